package brand

import (
	"fmt"
	"maps"
	"math"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"guichet/internal/rules"
)

// minContrast is WCAG 2.x level AA for normal text.
const minContrast = 4.5

var (
	idPattern     = regexp.MustCompile(`^[a-z][a-z0-9]{0,19}$`)
	apiKeyPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16,128}$`)
	phonePattern  = regexp.MustCompile(`^1 [0-9]{3}-[0-9]{3}-[0-9]{4}$`)
	colourPattern = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)
	envPattern    = regexp.MustCompile(`^[a-z][a-z0-9]{0,15}$`)
	// imagePattern: a file name in the brand's image folder, no path.
	imagePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}(\.[a-z0-9]+)?\.(svg|webp|avif|png|jpg)$`)
)

// Longest promo texts, in characters: the panel is a narrow column.
const (
	maxPromoTitle = 80
	maxPromoText  = 300
	maxPromoLink  = 60
	maxPromoAlt   = 200
)

// validate checks the values of a decoded brand whose file is named
// stem.yaml. It also resolves the provinces' time zones.
func validate(b *Brand, stem string) problems {
	var ps problems
	switch {
	case !idPattern.MatchString(b.ID):
		ps.add("id", "%q must be 1 to 20 lower-case letters or digits, starting with a letter", b.ID)
	case b.ID != stem:
		ps.add("id", "%q does not match the file name (%s.yaml)", b.ID, stem)
	}
	switch {
	case strings.TrimSpace(b.Name.EN) == "" && strings.TrimSpace(b.Name.FR) == "":
		ps.add("name", "must not be empty")
	case strings.TrimSpace(b.Name.EN) == "":
		ps.add("name.en", "must not be empty")
	case strings.TrimSpace(b.Name.FR) == "":
		ps.add("name.fr", "must not be empty")
	}
	if !apiKeyPattern.MatchString(b.APIKey) {
		ps.add("apiKey", "must be 16 to 128 letters, digits, '-' or '_'")
	}
	validateHosts(&ps, b)

	provinces := validateProvinces(&ps, b.Provinces)
	validateDefaults(&ps, b, provinces)
	validateLinks(&ps, b, provinces)
	validateTheme(&ps, b.Theme)
	validatePolicyNumber(&ps, b.PolicyNumber, provinces)
	for _, key := range slices.Sorted(maps.Keys(b.DriverLicenceMasks)) {
		mask := b.DriverLicenceMasks[key]
		field := "driverLicenceMasks." + key
		if p, ok := provinces[key]; !ok {
			ps.add(field, "%q is not one of this brand's provinces", key)
		} else if !p.License {
			ps.add(field, "province %q has license: false, so it takes no licence mask", key)
		}
		if err := checkLicenceMask(mask); err != nil {
			ps.add(field, "%q %v", mask, err)
		}
	}
	validateSSO(&ps, b.SSO)
	if d := b.Tokens.ExpiryDays; d < 0 || d > MaxTokenExpiryDays {
		ps.add("tokens.expiryDays", "%d must be 1 to %d days (absent: %d)", d, MaxTokenExpiryDays, DefaultTokenExpiryDays)
	}
	switch b.EmailProof {
	case "", EmailProofCode, EmailProofLink:
	default:
		ps.add("emailProof", "%q must be %s or %s (absent: %s)", b.EmailProof, EmailProofCode, EmailProofLink, EmailProofCode)
	}
	validateSmartRegistration(&ps, b.SmartRegistration, provinces)
	validateChat(&ps, b.Chat)
	validatePrivacy(&ps, b.Privacy)
	if b.Promo != nil {
		for _, lang := range knownLanguages {
			validatePromoPanel(&ps, "promo."+lang, b.Promo.For(lang))
		}
	}
	return ps
}

// validatePromoPanel checks one language's promo panel; whether its image
// exists is checked by load, which knows where images are.
func validatePromoPanel(ps *problems, field string, p PromoPanel) {
	texts := []struct {
		name, value string
		max         int
		optional    bool
	}{
		{"title", p.Title, maxPromoTitle, false}, {"text", p.Text, maxPromoText, false},
		{"link.text", p.Link.Text, maxPromoLink, false}, {"imageAlt", p.ImageAlt, maxPromoAlt, true},
	}
	for _, t := range texts {
		switch n := utf8.RuneCountInString(t.value); {
		case strings.TrimSpace(t.value) == "" && !t.optional:
			ps.add(field+"."+t.name, "must not be empty")
		case strings.TrimSpace(t.value) == "" && t.value != "":
			ps.add(field+"."+t.name, "is only spaces (leave it out to mark the image decorative)")
		case n > t.max:
			ps.add(field+"."+t.name, "is %d characters long, more than the %d the panel holds", n, t.max)
		}
	}
	if !imagePattern.MatchString(p.Image) {
		ps.add(field+".image", "%q must be a file name such as promo.svg (lower-case letters, digits, '-' or '_'; .svg, .webp, .avif, .png or .jpg; no folder)", p.Image)
	}
	if err := checkURL(p.Link.URL); err != nil {
		ps.add(field+".link.url", "%v", err)
	}
}

func validateHosts(ps *problems, b *Brand) {
	seen := map[string]string{}
	check := func(list string, hosts []string, dev bool) {
		if len(hosts) == 0 {
			ps.add(list, "must list at least one host name")
		}
		for i, h := range hosts {
			field := fmt.Sprintf("%s[%d]", list, i)
			if first, dup := seen[h]; dup {
				ps.add(field, "%q is already listed at %s", h, first)
				continue
			}
			seen[h] = field
			switch {
			case !validHostname(h):
				ps.add(field, "%q is not a lower-case host name (no port, no trailing dot)", h)
			case dev && !strings.HasSuffix(h, ".localhost"):
				ps.add(field, "%q must end in .localhost", h)
			case !dev && (strings.HasSuffix(h, ".localhost") || !strings.Contains(h, ".")):
				ps.add(field, "%q is not a public host name (dev names go in devHosts)", h)
			}
		}
	}
	check("hosts", b.Hosts, false)
	check("devHosts", b.DevHosts, true)
}

// validateProvinces returns the valid provinces by key.
func validateProvinces(ps *problems, list []*Province) map[string]*Province {
	byKey := map[string]*Province{}
	if len(list) == 0 {
		ps.add("provinces", "must list at least one province")
	}
	for i, p := range list {
		if p == nil {
			continue // an empty list item, reported by the decoder
		}
		field := fmt.Sprintf("provinces[%d]", i)
		switch {
		case !slices.Contains(knownProvinces, p.Key):
			ps.add(field+".key", "%q is not a province key (%s)", p.Key, strings.Join(knownProvinces, ", "))
		case byKey[p.Key] != nil:
			ps.add(field+".key", "%q is listed twice", p.Key)
		default:
			byKey[p.Key] = p
		}
		if len(p.Languages) == 0 {
			ps.add(field+".languages", "must list at least one language")
		}
		for j, l := range p.Languages {
			lf := fmt.Sprintf("%s.languages[%d]", field, j)
			if !slices.Contains(knownLanguages, l) {
				ps.add(lf, "%q is not a language (en, fr)", l)
			} else if slices.Index(p.Languages, l) != j {
				ps.add(lf, "%q is listed twice", l)
			}
		}
		if !phonePattern.MatchString(p.Phone) {
			ps.add(field+".phone", "%q must look like 1 800-555-0199", p.Phone)
		}
		if p.TimeZone == "" || p.TimeZone == "Local" {
			ps.add(field+".timeZone", "must be an IANA time zone such as America/Toronto")
		} else if loc, err := loadLocation(p.TimeZone); err != nil {
			ps.add(field+".timeZone", "%q is not an IANA time zone", p.TimeZone)
		} else {
			p.loc = loc
		}
		if p.Hours != nil {
			checkSpan(ps, field+".hours.weekdays", p.Hours.Weekdays)
			if p.Hours.Saturday != nil {
				checkSpan(ps, field+".hours.saturday", *p.Hours.Saturday)
			}
		}
	}
	return byKey
}

// zones caches time zones by name: loading one from the embedded database
// reads through the whole archive.
var zones sync.Map

func loadLocation(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, loc)
	return loc, nil
}

func checkSpan(ps *problems, field string, s Span) {
	open, okOpen := parseClock(s.Open)
	closing, okClose := parseClock(s.Close)
	if !okOpen {
		ps.add(field+".open", "%q is not a time (HH:MM)", s.Open)
	}
	if !okClose {
		ps.add(field+".close", "%q is not a time (HH:MM)", s.Close)
	}
	if okOpen && okClose && open >= closing {
		ps.add(field, "opens at %s but closes at %s", s.Open, s.Close)
	}
}

// parseClock reads "HH:MM" (00:00 to 23:59) as minutes after midnight.
func parseClock(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	h, errH := strconv.Atoi(s[:2])
	m, errM := strconv.Atoi(s[3:])
	if errH != nil || errM != nil || s[0] == '+' || s[3] == '+' || h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}

func validateDefaults(ps *problems, b *Brand, provinces map[string]*Province) {
	p, ok := provinces[b.DefaultProvince]
	switch {
	case !ok:
		ps.add("defaultProvince", "%q is not one of this brand's provinces", b.DefaultProvince)
		return
	case !p.Menu:
		ps.add("defaultProvince", "%q is hidden (menu: false)", b.DefaultProvince)
	}
	// The resolver falls back to the province's first language, so the
	// brand's default language must be the default province's first one.
	if len(p.Languages) > 0 && b.DefaultLanguage != p.Languages[0] {
		ps.add("defaultLanguage", "%q must be %q, the first language of the default province %q", b.DefaultLanguage, p.Languages[0], p.Key)
	}
}

func validateLinks(ps *problems, b *Brand, provinces map[string]*Province) {
	links := []struct {
		name string
		url  LocalizedURL
	}{
		{"marketing", b.Links.Marketing}, {"certificate", b.Links.Certificate},
		{"privacy", b.Links.Privacy}, {"terms", b.Links.Terms},
		{"security", b.Links.Security}, {"screenShare", b.Links.ScreenShare},
		{"appStore", b.Links.AppStore}, {"googlePlay", b.Links.GooglePlay},
	}
	for _, l := range links {
		if l.name == "screenShare" && !b.ScreenShare && l.url == (LocalizedURL{}) {
			continue // only the brand that shows the link needs it
		}
		if l.name == "appStore" || l.name == "googlePlay" {
			if l.url == (LocalizedURL{}) {
				continue // the brand has no app in this store
			}
			if l.url.EN == "" || l.url.FR == "" {
				ps.add("links."+l.name, "give the link in both languages (en and fr), or leave %s out when the brand has no app there", l.name)
				continue
			}
		}
		for _, lang := range knownLanguages {
			if err := checkURL(l.url.For(lang)); err != nil {
				ps.add("links."+l.name+"."+lang, "%v", err)
			}
		}
	}
	for i, m := range b.MarketingURLs {
		field := fmt.Sprintf("marketingUrls[%d]", i)
		if err := checkURL(m.URL); err != nil {
			ps.add(field+".url", "%v", err)
		}
		for j, l := range m.Languages {
			if !slices.Contains(knownLanguages, l) {
				ps.add(fmt.Sprintf("%s.languages[%d]", field, j), "%q is not a language (en, fr)", l)
			}
		}
		for j, p := range m.Provinces {
			if provinces[p] == nil {
				ps.add(fmt.Sprintf("%s.provinces[%d]", field, j), "%q is not one of this brand's provinces", p)
			}
		}
	}
}

// checkURL accepts an https URL or a path on Guichet's own site.
func checkURL(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("must not be empty")
	case strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == '\\' || r == 0x7f }):
		return fmt.Errorf("%q contains spaces, control characters or backslashes", s)
	case strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//"):
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return fmt.Errorf("%q is not an https URL or a path starting with /", s)
	}
	return nil
}

func validateTheme(ps *problems, t Theme) {
	colours := []struct{ name, value string }{
		{"primary", t.Primary}, {"primaryText", t.PrimaryText}, {"accent", t.Accent},
		{"background", t.Background}, {"text", t.Text},
	}
	ok := true
	for _, c := range colours {
		if !colourPattern.MatchString(c.value) {
			ps.add("theme."+c.name, "%q is not a colour (#RRGGBB)", c.value)
			ok = false
		}
	}
	if !ok {
		return
	}
	pairs := []struct{ fg, bg, fgName, bgName string }{
		{t.PrimaryText, t.Primary, "primaryText", "primary"},
		{t.Text, t.Background, "text", "background"},
		{t.Accent, t.Background, "accent", "background"},
		{t.Primary, t.Background, "primary", "background"}, // links and secondary buttons
	}
	for _, p := range pairs {
		if r := contrastRatio(p.fg, p.bg); r < minContrast {
			ps.add("theme."+p.fgName, "contrast with %s is %.2f:1, below the %.1f:1 of WCAG AA", p.bgName, r, minContrast)
		}
	}
}

// contrastRatio is the WCAG 2.x contrast ratio of two "#RRGGBB" colours.
func contrastRatio(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func luminance(hex string) float64 {
	v, _ := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	channel := func(shift uint) float64 {
		c := float64((v>>shift)&0xff) / 255
		if c <= 0.04045 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	return 0.2126*channel(16) + 0.7152*channel(8) + 0.0722*channel(0)
}

func validatePolicyNumber(ps *problems, pn PolicyNumber, provinces map[string]*Province) {
	// The field rule's own check (internal/rules), so the brand file and the
	// rule agree on what the mask means: X, * or _ a letter or digit, A a
	// letter, 9 a digit, anything else a separator shown between groups.
	check := func(field string, f PolicyNumberFormat) {
		if err := (rules.PolicyFormat{Length: f.Length, Mask: f.Mask}).Check(); err != nil {
			ps.add(field, "%v", err)
		}
	}
	check("policyNumber", PolicyNumberFormat{Length: pn.Length, Mask: pn.Mask})
	for _, key := range slices.Sorted(maps.Keys(pn.ByProvince)) {
		f := pn.ByProvince[key]
		field := "policyNumber.byProvince." + key
		if provinces[key] == nil {
			ps.add(field, "%q is not one of this brand's provinces", key)
		}
		check(field, f)
	}
}

// checkLicenceMask: A letter, 9 digit, * or _ letter or digit, '-' and ' '
// literal (spec §5 masks).
func checkLicenceMask(mask string) error {
	switch {
	case len(mask) > 40:
		return fmt.Errorf("is longer than 40 characters")
	case strings.Trim(mask, "A9*_- ") != "":
		return fmt.Errorf("may hold only A (letter), 9 (digit), * or _ (letter or digit), '-' and ' '")
	case strings.Trim(mask, "- ") == "":
		return fmt.Errorf("has no character to fill")
	}
	return nil
}

func validateSSO(ps *problems, sso map[string]SSOEnvironment) {
	for _, env := range []string{EnvDev, EnvProd} {
		if _, ok := sso[env]; !ok {
			ps.add("sso."+env, "required environment is missing")
		}
	}
	for _, env := range slices.Sorted(maps.Keys(sso)) {
		e := sso[env]
		if !envPattern.MatchString(env) {
			ps.add("sso."+env, "%q is not an environment name (lower-case letters and digits)", env)
		}
		for _, lang := range knownLanguages {
			if err := checkURL(e.LoginURL.For(lang)); err != nil {
				ps.add("sso."+env+".loginUrl."+lang, "%v", err)
			}
		}
	}
}

// validHostname: lower-case DNS name, labels of letters, digits and inner
// hyphens, no port, no trailing dot, not an IP address.
func validHostname(h string) bool {
	if h == "" || len(h) > 253 || net.ParseIP(h) != nil {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range []byte(label) {
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
