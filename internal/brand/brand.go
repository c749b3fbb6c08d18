// Package brand loads the per-brand configuration (config/brands/*.yaml) and
// answers the questions that depend on it: which brand serves a host, which
// province and language a request is in, whether chat is open, and what the
// SPA is told about the site (SiteConfig).
//
// A Brand is read-only once LoadDir has returned it; callers must not modify
// its fields.
package brand

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Languages and provinces known to the product (spec §1).
var (
	knownLanguages = []string{"en", "fr"}
	knownProvinces = []string{"ab", "bc", "mb", "nb", "nl", "ns", "nt", "nu", "on", "pe", "qc", "sk", "yt"}
)

// Environments that select the web single sign-on URLs (Brand.SSO).
const (
	EnvDev  = "dev"
	EnvProd = "prod"
)

// FallbackLanguage is used when nothing else decides (spec §1: "fallback en").
const FallbackLanguage = "en"

// Brand is one brand file. Fields tagged brand:"required" must be present in
// the YAML; the rest of the validation is in validate.go.
type Brand struct {
	ID string `yaml:"id" brand:"required"`
	// Name is the brand as it writes itself in each language: one text when
	// it is the same in both (belairdirect), else {en: ..., fr: ...}.
	Name   Name   `yaml:"name" brand:"required"`
	APIKey string `yaml:"apiKey" brand:"required"`
	// SampleValues marks a file whose phone numbers are samples, not real lines.
	SampleValues bool `yaml:"sampleValues"`

	Hosts    []string `yaml:"hosts" brand:"required"`
	DevHosts []string `yaml:"devHosts" brand:"required"`

	DefaultProvince string `yaml:"defaultProvince" brand:"required"`
	DefaultLanguage string `yaml:"defaultLanguage" brand:"required"`

	Features      Features       `yaml:"features" brand:"required"`
	Links         Links          `yaml:"links" brand:"required"`
	MarketingURLs []MarketingURL `yaml:"marketingUrls"`
	ScreenShare   bool           `yaml:"screenShare"`
	Theme         Theme          `yaml:"theme" brand:"required"`
	PolicyNumber  PolicyNumber   `yaml:"policyNumber" brand:"required"`
	// DriverLicenceMasks maps a licence province to its input mask (spec §5).
	DriverLicenceMasks map[string]string `yaml:"driverLicenceMasks"`
	// SSO maps an environment (EnvDev, EnvProd, ...) to its login form.
	SSO       map[string]SSOEnvironment `yaml:"sso" brand:"required"`
	Provinces []*Province               `yaml:"provinces" brand:"required"`

	// Promo is the promo panel beside the forms (spec §1); nil: none.
	Promo *Promo `yaml:"promo"`
	// Tokens configures the emailed magic-link tokens (internal/emailtoken).
	Tokens Tokens `yaml:"tokens"`

	// EmailProof is how legacy registration proves an email address the
	// visitor gives on account-creation/email or new-email (spec §4.2 email
	// submission): EmailProofCode, a 6-digit code typed on validation/email
	// (the default), or EmailProofLink, a link the email carries (202,
	// email-sent).
	EmailProof string `yaml:"emailProof"`

	// SmartRegistration configures smart registration; nil: its defaults.
	SmartRegistration *SmartRegistration `yaml:"smartRegistration"`

	// Chat configures live chat (chat.go); every field has a default.
	Chat Chat `yaml:"chat"`
	// Privacy configures what the customer's data rights keep (privacy.go).
	Privacy Privacy `yaml:"privacy"`

	// Cobrowse configures co-browse (issue 18).
	Cobrowse Cobrowse `yaml:"cobrowse"`

	file string // path the brand was loaded from
}

// Values of emailProof.
const (
	EmailProofCode = "code"
	EmailProofLink = "link"
)

// EmailByLink reports whether the brand proves a registration's email
// address with a link rather than a code (emailProof: link).
func (b *Brand) EmailByLink() bool { return b.EmailProof == EmailProofLink }

// Tokens configures a brand's emailed magic-link tokens.
type Tokens struct {
	// ExpiryDays is how long a token lives from its start date; 0: the
	// default, DefaultTokenExpiryDays.
	ExpiryDays int `yaml:"expiryDays"`
}

// DefaultTokenExpiryDays is a token's life when the brand file does not say.
const DefaultTokenExpiryDays = 14

// MaxTokenExpiryDays bounds tokens.expiryDays and an issuer's --days.
const MaxTokenExpiryDays = 365

// TokenExpiry is how long the brand's email tokens live.
func (b *Brand) TokenExpiry() time.Duration {
	days := b.Tokens.ExpiryDays
	if days == 0 {
		days = DefaultTokenExpiryDays
	}
	return time.Duration(days) * 24 * time.Hour
}

// Province is one province a brand serves (spec §3 "Province configuration").
type Province struct {
	Key       string   `yaml:"key" brand:"required"`
	Languages []string `yaml:"languages" brand:"required"`
	// Menu false keeps the province out of the dropdown; it is still valid
	// when asked for by query string or cookie.
	Menu    bool   `yaml:"menu" brand:"required"`
	License bool   `yaml:"license" brand:"required"`
	UBI     bool   `yaml:"ubi" brand:"required"`
	Phone   string `yaml:"phone" brand:"required"`
	// TimeZone is the IANA zone the opening hours are read in.
	TimeZone string `yaml:"timeZone" brand:"required"`
	// Hours nil means chat is never open in this province.
	Hours *Hours `yaml:"hours"`

	loc *time.Location
}

// Hours are chat opening hours: Monday to Friday, Saturday (nil = closed);
// Sunday is always closed (spec §4.5).
type Hours struct {
	Weekdays Span  `yaml:"weekdays" json:"weekdays" brand:"required"`
	Saturday *Span `yaml:"saturday" json:"saturday"`
}

// Span is an opening time and a closing time, "HH:MM", local time; the
// closing minute itself is closed.
type Span struct {
	Open  string `yaml:"open" json:"open" brand:"required"`
	Close string `yaml:"close" json:"close" brand:"required"`
}

// Features are the per-brand feature flags (spec §6).
type Features struct {
	Registration               bool `yaml:"registration" json:"registration" brand:"required"`
	Chatbot                    bool `yaml:"chatbot" json:"chatbot" brand:"required"`
	UseNewMarketingRedirection bool `yaml:"usenewmarketingredirection" json:"usenewmarketingredirection" brand:"required"`
}

// LocalizedURL is one link per language.
type LocalizedURL struct {
	EN string `yaml:"en" json:"en" brand:"required"`
	FR string `yaml:"fr" json:"fr" brand:"required"`
}

// For returns the URL for a language ("fr" or anything else for English).
func (l LocalizedURL) For(language string) string { return inLanguage(language, l.EN, l.FR) }

// inLanguage is fr for the language "fr", en for any other: the one rule
// every per-language field of a brand follows.
func inLanguage[T any](language string, en, fr T) T {
	if language == "fr" {
		return fr
	}
	return en
}

// Name is a brand's name per language. In YAML it is either one text, the
// same in every language, or a mapping {en: ..., fr: ...}.
type Name struct {
	EN string `yaml:"en" json:"en" brand:"required"`
	FR string `yaml:"fr" json:"fr" brand:"required"`
}

// For returns the name in a language ("fr" or anything else for English).
func (n Name) For(language string) string { return inLanguage(language, n.EN, n.FR) }

// UnmarshalYAML reads one text as the name in every language.
func (n *Name) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind == yaml.ScalarNode {
		var s string
		if err := node.Decode(&s); err != nil {
			return err
		}
		*n = Name{EN: s, FR: s}
		return nil
	}
	type plain Name // without this method, so Decode does not recurse
	return node.Decode((*plain)(n))
}

// Links are the header and footer links. ScreenShare is only required for the
// brand that shows the screen-share link; AppStore and GooglePlay are given
// in both languages or left out (the brand has no app in that store).
type Links struct {
	Marketing   LocalizedURL `yaml:"marketing" json:"marketing" brand:"required"`
	Certificate LocalizedURL `yaml:"certificate" json:"certificate" brand:"required"`
	Privacy     LocalizedURL `yaml:"privacy" json:"privacy" brand:"required"`
	Terms       LocalizedURL `yaml:"terms" json:"terms" brand:"required"`
	Security    LocalizedURL `yaml:"security" json:"security" brand:"required"`
	ScreenShare LocalizedURL `yaml:"screenShare" json:"screenShare"`
	AppStore    LocalizedURL `yaml:"appStore" json:"appStore"`
	GooglePlay  LocalizedURL `yaml:"googlePlay" json:"googlePlay"`
}

// Promo is the promo panel shown beside the login, recovery and
// registration forms (spec §1), one per language.
type Promo struct {
	EN PromoPanel `yaml:"en" brand:"required"`
	FR PromoPanel `yaml:"fr" brand:"required"`
}

// For returns the panel in a language ("fr" or anything else for English).
func (p *Promo) For(language string) PromoPanel { return inLanguage(language, p.EN, p.FR) }

// PromoPanel is the promo panel in one language.
type PromoPanel struct {
	Title string `yaml:"title" brand:"required"`
	Text  string `yaml:"text" brand:"required"`
	// Image is a file name (promo.svg): the brands directory's <id>/ folder
	// when the file is there, else the SPA's brands/<id>/ folder
	// (web/public/brands/<id>/, built into the binary). It is served at
	// /brands/<id>/<image> and shown in a 16:9 box.
	Image string `yaml:"image" brand:"required"`
	// ImageAlt describes the image; empty (the default) marks it decorative,
	// for when the title and text say it all.
	ImageAlt string    `yaml:"imageAlt"`
	Link     PromoLink `yaml:"link" brand:"required"`
}

// PromoLink is where the promo panel leads, and the link's text.
type PromoLink struct {
	URL  string `yaml:"url" json:"url" brand:"required"`
	Text string `yaml:"text" json:"text" brand:"required"`
}

// MarketingURL overrides the marketing link for some languages and provinces
// (spec §3 "Marketing URL": url, languages, provinces). Empty lists match all.
type MarketingURL struct {
	URL       string   `yaml:"url" brand:"required"`
	Languages []string `yaml:"languages"`
	Provinces []string `yaml:"provinces"`
}

// Theme colours, "#RRGGBB". primaryText on primary, and text, accent and
// primary on background (primary is the colour of links and secondary
// buttons) all have a contrast ratio of at least 4.5:1.
type Theme struct {
	Primary     string `yaml:"primary" json:"primary" brand:"required"`
	PrimaryText string `yaml:"primaryText" json:"primaryText" brand:"required"`
	Accent      string `yaml:"accent" json:"accent" brand:"required"`
	Background  string `yaml:"background" json:"background" brand:"required"`
	Text        string `yaml:"text" json:"text" brand:"required"`
}

// PolicyNumberFormat is the policy number rule: Length letters or digits,
// shown with Mask ('A' = one letter or digit, anything else is literal).
type PolicyNumberFormat struct {
	Length int    `yaml:"length" json:"length" brand:"required"`
	Mask   string `yaml:"mask" json:"mask" brand:"required"`
}

// PolicyNumber is the brand's rule with per-province overrides.
type PolicyNumber struct {
	Length     int                           `yaml:"length" json:"length" brand:"required"`
	Mask       string                        `yaml:"mask" json:"mask" brand:"required"`
	ByProvince map[string]PolicyNumberFormat `yaml:"byProvince" json:"byProvince"`
}

// SSOEnvironment is the web single sign-on login form of one environment.
type SSOEnvironment struct {
	LoginURL LocalizedURL `yaml:"loginUrl" brand:"required"`
}

// File is the path the brand was loaded from.
func (b *Brand) File() string { return b.file }

// Province returns the province with this key (any case), hidden or not.
func (b *Brand) Province(key string) (*Province, bool) {
	key = asciiLower(key)
	for _, p := range b.Provinces {
		if p.Key == key {
			return p, true
		}
	}
	return nil, false
}

// Phone is the technical phone number of a province, or of the default
// province when the brand does not serve the one given.
func (b *Brand) Phone(province string) string {
	return b.provinceOrDefault(province).Phone
}

// PolicyNumberFormat is the policy number rule in a province.
func (b *Brand) PolicyNumberFormat(province string) PolicyNumberFormat {
	if f, ok := b.PolicyNumber.ByProvince[asciiLower(province)]; ok {
		return f
	}
	return PolicyNumberFormat{Length: b.PolicyNumber.Length, Mask: b.PolicyNumber.Mask}
}

// DriverLicenceMask is the input mask for a licence issued in a province;
// false when the brand has none for it (the generic rule of spec §5 applies).
// Mask characters: A letter, 9 digit, * or _ letter or digit; others literal.
func (b *Brand) DriverLicenceMask(province string) (string, bool) {
	m, ok := b.DriverLicenceMasks[asciiLower(province)]
	return m, ok
}

// LoginURL is the web single sign-on form URL for an environment and a
// language; an unknown environment reads as EnvProd.
func (b *Brand) LoginURL(env, language string) string {
	return b.ssoEnvironment(env).LoginURL.For(language)
}

// SSOOrigins are the origins (scheme://host) of absolute login form URLs of
// an environment, for the CSP form-action directive; empty when the form
// posts to Guichet itself.
func (b *Brand) SSOOrigins(env string) []string {
	var origins []string
	l := b.ssoEnvironment(env).LoginURL
	for _, raw := range []string{l.EN, l.FR} {
		if u, err := url.Parse(raw); err == nil && u.IsAbs() {
			o := u.Scheme + "://" + u.Host
			if !slices.Contains(origins, o) {
				origins = append(origins, o)
			}
		}
	}
	return origins
}

// MarketingURL is the marketing site link for a province and a language: the
// first matching marketingUrls entry, else links.marketing.
func (b *Brand) MarketingURL(province, language string) string {
	province, language = asciiLower(province), asciiLower(language)
	for _, m := range b.MarketingURLs {
		if (len(m.Languages) == 0 || slices.Contains(m.Languages, language)) &&
			(len(m.Provinces) == 0 || slices.Contains(m.Provinces, province)) {
			return m.URL
		}
	}
	return b.Links.Marketing.For(language)
}

func (b *Brand) ssoEnvironment(env string) SSOEnvironment {
	if e, ok := b.SSO[env]; ok {
		return e
	}
	return b.SSO[EnvProd]
}

func (b *Brand) provinceOrDefault(key string) *Province {
	if p, ok := b.Province(key); ok {
		return p
	}
	p, _ := b.Province(b.DefaultProvince) // validated to exist
	return p
}

// Location is the province's time zone.
func (p *Province) Location() *time.Location { return p.loc }

// asciiLower lowers A-Z only, so Go and the SPA's resolver (which does the
// same) agree on every input, whatever Unicode case rules say.
func asciiLower(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' }) {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
