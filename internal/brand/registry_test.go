package brand

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"guichet/config"
)

const realBrandsDir = "../../config/brands"

func loadReal(t testing.TB) *Registry {
	t.Helper()
	r, err := LoadDir(realBrandsDir)
	if err != nil {
		t.Fatalf("LoadDir(%s): %v", realBrandsDir, err)
	}
	return r
}

// fixture is a small valid brand file; {ID} is replaced by the brand id.
const fixture = `id: {ID}
name: Test {ID}
apiKey: key-{ID}-0123456789abcdef
hosts: [account.{ID}.example]
devHosts: [{ID}.localhost]
defaultProvince: "on"
defaultLanguage: en
features: {registration: true, chatbot: false, usenewmarketingredirection: false}
screenShare: false
links:
  marketing: {en: https://www.example.com/en, fr: https://www.example.com/fr}
  certificate: {en: https://www.example.com/en/c, fr: https://www.example.com/fr/c}
  privacy: {en: https://www.example.com/en/p, fr: https://www.example.com/fr/p}
  terms: {en: https://www.example.com/en/t, fr: https://www.example.com/fr/t}
  security: {en: https://www.example.com/en/s, fr: https://www.example.com/fr/s}
  appStore: {en: https://apps.example.com/en, fr: https://apps.example.com/fr}
  googlePlay: {en: https://play.example.com/en, fr: https://play.example.com/fr}
marketingUrls:
  - url: https://www.example.com/fr/quebec
    languages: [fr]
    provinces: [qc]
theme: {primary: "#C8102E", primaryText: "#FFFFFF", accent: "#0B6A88", background: "#FFFFFF", text: "#1C1C1C"}
policyNumber: {length: 7, mask: XXX-XXXX, byProvince: {ab: {length: 9, mask: XXXXXXXXX}}}
driverLicenceMasks: {qc: A9999-999999-99}
sso:
  dev: {loginUrl: {en: /pkmslogin.form, fr: /pkmslogin.form}}
  prod: {loginUrl: {en: https://sso.example.com/en/pkmslogin.form, fr: https://sso.example.com/fr/pkmslogin.form}}
provinces:
  - key: qc
    languages: [fr, en]
    menu: true
    license: true
    ubi: true
    phone: "1 833-000-0101"
    timeZone: America/Toronto
    hours:
      weekdays: {open: "08:00", close: "20:00"}
      saturday: {open: "08:00", close: "17:00"}
  - key: "on"
    languages: [en, fr]
    menu: true
    license: true
    ubi: true
    phone: "1 833-000-0102"
    timeZone: America/Toronto
  - key: ab
    languages: [en]
    menu: false
    license: true
    ubi: false
    phone: "1 833-000-0103"
    timeZone: America/Edmonton
    hours:
      weekdays: {open: "08:00", close: "19:00"}
`

func brandFile(id string, edits ...string) string {
	s := strings.ReplaceAll(fixture, "{ID}", id)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(s, edits[i]) {
			panic("fixture edit not found: " + edits[i])
		}
		s = strings.Replace(s, edits[i], edits[i+1], 1)
	}
	return s
}

func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadDirRealConfig(t *testing.T) {
	r := loadReal(t)
	var ids []string
	for _, b := range r.All() {
		ids = append(ids, b.ID)
	}
	if got := strings.Join(ids, ","); got != "belair,bna,intact,scotia,servus" {
		t.Fatalf("brands = %s", got)
	}
	tests := []struct {
		brand, provinces, hidden, defaultProvince string
	}{
		{"belair", "qc,on,ab,bc,nb,ns,nl,pe", "", "on"},
		{"bna", "qc,on,ab,bc", "ab,bc", "on"},
		{"intact", "ab,bc,mb,nb,nl,ns,nt,nu,on,pe,qc,sk,yt", "", "on"},
		{"scotia", "qc,on,ab,bc,nb,ns,nl,pe", "", "on"},
		{"servus", "ab", "", "ab"},
	}
	screenShare := 0
	for _, tt := range tests {
		b, ok := r.ByID(tt.brand)
		if !ok {
			t.Fatalf("ByID(%s) missing", tt.brand)
		}
		var keys, hidden []string
		for _, p := range b.Provinces {
			keys = append(keys, p.Key)
			if !p.Menu {
				hidden = append(hidden, p.Key)
			}
			wantLangs := "en,fr"
			switch {
			case b.ID == "servus", b.ID == "belair" && (p.Key == "ab" || p.Key == "bc"):
				wantLangs = "en"
			case p.Key == "qc":
				wantLangs = "fr,en"
			}
			if got := strings.Join(p.Languages, ","); got != wantLangs {
				t.Errorf("%s %s languages = %s, want %s", b.ID, p.Key, got, wantLangs)
			}
			if want := strings.Contains("qc,on,ab,bc,ns", p.Key); p.License != want {
				t.Errorf("%s %s license = %v, want %v", b.ID, p.Key, p.License, want)
			}
			if b.ID == "intact" && p.Hours != nil {
				t.Errorf("intact %s has opening hours; intact has none", p.Key)
			}
			if got := b.PolicyNumberFormat(p.Key).Length; (b.ID == "intact" && p.Key != "qc") != (got == 9) {
				t.Errorf("%s %s policy number length = %d", b.ID, p.Key, got)
			}
		}
		if got := strings.Join(keys, ","); got != tt.provinces {
			t.Errorf("%s provinces = %s, want %s", tt.brand, got, tt.provinces)
		}
		if got := strings.Join(hidden, ","); got != tt.hidden {
			t.Errorf("%s hidden = %s, want %s", tt.brand, got, tt.hidden)
		}
		if b.DefaultProvince != tt.defaultProvince || b.DefaultLanguage != "en" {
			t.Errorf("%s defaults = %s/%s", tt.brand, b.DefaultProvince, b.DefaultLanguage)
		}
		if b.File() != filepath.Join(realBrandsDir, tt.brand+".yaml") {
			t.Errorf("%s File() = %s", tt.brand, b.File())
		}
		if b.ScreenShare {
			screenShare++
		}
		if b.EmailByLink() != (b.ID == "scotia") {
			t.Errorf("%s emailProof = %q; scotia alone proves an email by link", b.ID, b.EmailProof)
		}
	}
	if screenShare != 1 {
		t.Errorf("%d brands show the screen-share link, want 1", screenShare)
	}
	belair, _ := r.ByID("belair")
	if !belair.ScreenShare {
		t.Error("belair must show the screen-share link")
	}
	// Spec §4.1: a smart registration PIN used up goes to pin-identification
	// for one brand (belair's file says so), identity-verification for the others.
	for _, b := range r.All() {
		want := RoadblockIdentityVerification
		if b.ID == "belair" {
			want = RoadblockPinIdentification
		}
		if got := b.SmartPinRoadblock(); got != want {
			t.Errorf("%s: a PIN used up goes to %s, want %s", b.ID, got, want)
		}
		if got := b.Site("", "", false, false, EnvDev).Brand.SmartPinRoadblock; got != want {
			t.Errorf("%s site configuration: smartPinRoadblock %s, want %s", b.ID, got, want)
		}
	}
}

func TestLoadDirProblems(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // "file: field: message" lines, file relative to the directory
	}{
		{
			name:  "unknown field",
			files: map[string]string{"a.yaml": brandFile("a", "screenShare: false", "screenShare: false\ncolour: red")},
			want:  []string{"a.yaml: colour: unknown field (expected one of: id, name, apiKey"},
		},
		{
			name:  "token expiry out of range",
			files: map[string]string{"a.yaml": brandFile("a", "screenShare: false", "screenShare: false\ntokens: {expiryDays: 400}")},
			want:  []string{"a.yaml: tokens.expiryDays: 400 must be 1 to 365 days (absent: 14)"},
		},
		{
			name: "chat section out of range",
			files: map[string]string{"a.yaml": brandFile("a", "screenShare: false",
				"screenShare: false\nchat: {maxPerAgent: 50, retentionMonths: -1, canned: {en: [\"\"], fr: [\"Bonjour\"]}}")},
			want: []string{"a.yaml: chat.maxPerAgent: 50 must be 1 to 20 (absent: 3)",
				"a.yaml: chat.retentionMonths: -1 must be 1 to 120 (absent: 24)",
				"a.yaml: chat.canned.en: reply 1 must be 1 to 2000 characters"},
		},
		{
			name:  "unknown chat field",
			files: map[string]string{"a.yaml": brandFile("a", "screenShare: false", "screenShare: false\nchat: {hours: 3}")},
			want:  []string{"a.yaml: chat.hours: unknown field"},
		},
		{
			name:  "email proof neither code nor link",
			files: map[string]string{"a.yaml": brandFile("a", "screenShare: false", "screenShare: false\nemailProof: letter")},
			want:  []string{`a.yaml: emailProof: "letter" must be code or link (absent: code)`},
		},
		{
			name:  "negative token expiry",
			files: map[string]string{"a.yaml": brandFile("a", "screenShare: false", "screenShare: false\ntokens: {expiryDays: -1}")},
			want:  []string{"a.yaml: tokens.expiryDays: -1 must be 1 to 365 days (absent: 14)"},
		},
		{
			name: "smart registration field lists",
			files: map[string]string{"a.yaml": brandFile("a", "screenShare: false", "screenShare: false\n"+
				"smartRegistration:\n  identification:\n"+
				"    policyHolder:\n      qc: [policyNumber, lastName, dateOfBirth, shoeSize]\n      zz: [policyNumber, lastName, dateOfBirth]\n"+
				"      default: [policyNumber, lastName, lastName]\n"+
				"    boss:\n      default: [policyNumber, lastName, dateOfBirth]")},
			want: []string{
				`a.yaml: smartRegistration.identification.boss: "boss" is not an account type ([policyHolder insuredDriver])`,
				`a.yaml: smartRegistration.identification.policyHolder.default: "lastName" is listed twice`,
				`a.yaml: smartRegistration.identification.policyHolder.default: must list "dateOfBirth"`,
				`a.yaml: smartRegistration.identification.policyHolder.qc: "shoeSize" is not a known field`,
				`a.yaml: smartRegistration.identification.policyHolder.zz: "zz" is neither one of this brand's provinces nor default`,
			},
		},
		{
			name:  "smart registration PIN roadblock",
			files: map[string]string{"a.yaml": brandFile("a", "screenShare: false", "screenShare: false\nsmartRegistration: {pinRoadblock: technical}")},
			want:  []string{`a.yaml: smartRegistration.pinRoadblock: "technical" is neither identity-verification nor pin-identification`},
		},
		{
			name:  "name without French",
			files: map[string]string{"a.yaml": brandFile("a", "name: Test a", "name: {en: Test a}")},
			want:  []string{"a.yaml: name.fr: required field is missing"},
		},
		{
			name:  "name in an unknown language",
			files: map[string]string{"a.yaml": brandFile("a", "name: Test a", "name: {en: Test a, fr: Essai a, de: Test a}")},
			want:  []string{"a.yaml: name.de: unknown field (expected one of: en, fr)"},
		},
		{
			name:  "empty French name",
			files: map[string]string{"a.yaml": brandFile("a", "name: Test a", "name: {en: Test a, fr: ' '}")},
			want:  []string{"a.yaml: name.fr: must not be empty"},
		},
		{
			name:  "name as a list",
			files: map[string]string{"a.yaml": brandFile("a", "name: Test a", "name: [Test a]")},
			want:  []string{"a.yaml: name: expected a text value, found a list"},
		},
		{
			name:  "unknown nested field",
			files: map[string]string{"a.yaml": brandFile("a", "    ubi: false\n", "    ubi: false\n    sunday: {open: \"08:00\", close: \"12:00\"}\n")},
			want:  []string{"a.yaml: provinces[2].sunday: unknown field (expected one of: key, languages, menu, license, ubi, phone, timeZone, hours)"},
		},
		{
			name:  "bad time",
			files: map[string]string{"a.yaml": brandFile("a", `{open: "08:00", close: "19:00"}`, `{open: "25:00", close: "19:00"}`)},
			want:  []string{`a.yaml: provinces[2].hours.weekdays.open: "25:00" is not a time (HH:MM)`},
		},
		{
			name:  "closes before it opens",
			files: map[string]string{"a.yaml": brandFile("a", `saturday: {open: "08:00", close: "17:00"}`, `saturday: {open: "17:00", close: "08:00"}`)},
			want:  []string{"a.yaml: provinces[0].hours.saturday: opens at 17:00 but closes at 08:00"},
		},
		{
			name:  "unknown province key",
			files: map[string]string{"a.yaml": brandFile("a", "  - key: ab", "  - key: zz")},
			want:  []string{`a.yaml: provinces[2].key: "zz" is not a province key (ab, bc,`},
		},
		{
			name:  "province listed twice",
			files: map[string]string{"a.yaml": brandFile("a", "  - key: ab", "  - key: qc")},
			want:  []string{`a.yaml: provinces[2].key: "qc" is listed twice`},
		},
		{
			name: "duplicate host across brands",
			files: map[string]string{
				"a.yaml": brandFile("a"),
				"b.yaml": brandFile("b", "hosts: [account.b.example]", "hosts: [account.b.example, account.a.example]"),
			},
			want: []string{`b.yaml: hosts[1]: "account.a.example" is already used by brand "a" (`},
		},
		{
			name: "duplicate dev host across brands",
			files: map[string]string{
				"a.yaml": brandFile("a"),
				"b.yaml": brandFile("b", "devHosts: [b.localhost]", "devHosts: [a.localhost]"),
			},
			want: []string{`b.yaml: devHosts[0]: "a.localhost" is already used by brand "a" (`},
		},
		{
			name:  "host listed twice in one brand",
			files: map[string]string{"a.yaml": brandFile("a", "hosts: [account.a.example]", "hosts: [account.a.example, account.a.example]")},
			want:  []string{`a.yaml: hosts[1]: "account.a.example" is already listed at hosts[0]`},
		},
		{
			name: "malformed hosts",
			files: map[string]string{"a.yaml": brandFile("a",
				"hosts: [account.a.example]", "hosts: [Account.A.Example, a.localhost, localhost, 'x.example:8080']",
				"devHosts: [a.localhost]", "devHosts: [dev.a.example]")},
			want: []string{
				`a.yaml: hosts[0]: "Account.A.Example" is not a lower-case host name (no port, no trailing dot)`,
				`a.yaml: hosts[1]: "a.localhost" is not a public host name (dev names go in devHosts)`,
				`a.yaml: hosts[2]: "localhost" is not a public host name`,
				`a.yaml: hosts[3]: "x.example:8080" is not a lower-case host name`,
				`a.yaml: devHosts[0]: "dev.a.example" must end in .localhost`,
			},
		},
		{
			name:  "default province not in list",
			files: map[string]string{"a.yaml": brandFile("a", `defaultProvince: "on"`, "defaultProvince: mb")},
			want:  []string{`a.yaml: defaultProvince: "mb" is not one of this brand's provinces`},
		},
		{
			name:  "default province hidden",
			files: map[string]string{"a.yaml": brandFile("a", `defaultProvince: "on"`, "defaultProvince: ab")},
			want:  []string{`a.yaml: defaultProvince: "ab" is hidden (menu: false)`},
		},
		{
			name:  "default language not the default province's first",
			files: map[string]string{"a.yaml": brandFile("a", "defaultLanguage: en", "defaultLanguage: fr")},
			want:  []string{`a.yaml: defaultLanguage: "fr" must be "en", the first language of the default province "on"`},
		},
		{
			name:  "language not en or fr",
			files: map[string]string{"a.yaml": brandFile("a", "languages: [en, fr]", "languages: [en, de, en]")},
			want: []string{
				`a.yaml: provinces[1].languages[1]: "de" is not a language (en, fr)`,
				`a.yaml: provinces[1].languages[2]: "en" is listed twice`,
			},
		},
		{
			name:  "missing apiKey",
			files: map[string]string{"a.yaml": brandFile("a", "apiKey: key-a-0123456789abcdef\n", "")},
			want:  []string{"a.yaml: apiKey: required field is missing"},
		},
		{
			name:  "short apiKey",
			files: map[string]string{"a.yaml": brandFile("a", "apiKey: key-a-0123456789abcdef", "apiKey: short")},
			want:  []string{"a.yaml: apiKey: must be 16 to 128 letters, digits, '-' or '_'"},
		},
		{
			name: "same apiKey on two brands",
			files: map[string]string{
				"a.yaml": brandFile("a"),
				"b.yaml": brandFile("b", "apiKey: key-b-0123456789abcdef", "apiKey: key-a-0123456789abcdef"),
			},
			want: []string{`b.yaml: apiKey: is the same as brand "a"'s (`},
		},
		{
			name: "screenShare on more than one brand",
			files: map[string]string{
				"a.yaml": brandFile("a", "screenShare: false", "screenShare: true\n", "  appStore:", "  screenShare: {en: /share, fr: /partage}\n  appStore:"),
				"b.yaml": brandFile("b", "screenShare: false", "screenShare: true\n", "  appStore:", "  screenShare: {en: /share, fr: /partage}\n  appStore:"),
			},
			want: []string{`b.yaml: screenShare: brand "a" (`},
		},
		{
			name:  "screenShare without its link",
			files: map[string]string{"a.yaml": brandFile("a", "screenShare: false", "screenShare: true")},
			want: []string{
				"a.yaml: links.screenShare.en: must not be empty",
				"a.yaml: links.screenShare.fr: must not be empty",
			},
		},
		{
			name:  "missing required fields",
			files: map[string]string{"a.yaml": brandFile("a", "    phone: \"1 833-000-0103\"\n", "", "chatbot: false, ", "")},
			want: []string{
				"a.yaml: features.chatbot: required field is missing",
				"a.yaml: provinces[2].phone: required field is missing",
			},
		},
		{
			name:  "value of the wrong kind",
			files: map[string]string{"a.yaml": brandFile("a", "    menu: false", "    menu: maybe", "hosts: [account.a.example]", "hosts: account.a.example", "length: 7", "length: seven")},
			want: []string{
				`a.yaml: provinces[2].menu: "maybe" is not true or false`,
				`a.yaml: hosts: expected a list, found "account.a.example"`,
				`a.yaml: policyNumber.length: "seven" is not a whole number`,
			},
		},
		{
			name:  "duplicate key",
			files: map[string]string{"a.yaml": brandFile("a", "name: Test a", "name: Test a\nname: Again")},
			want:  []string{"a.yaml: name: duplicate key (first on line 2)"},
		},
		{
			name:  "merge key",
			files: map[string]string{"a.yaml": brandFile("a", "features: {", "base: &b {registration: true}\nfeatures: {<<: *b, ")},
			want: []string{
				"a.yaml: base: unknown field",
				"a.yaml: features.<<: merge keys are not supported; use an alias (*name) for the whole value",
			},
		},
		{
			name:  "empty list item",
			files: map[string]string{"a.yaml": brandFile("a", "provinces:\n", "provinces:\n  - ~\n")},
			want:  []string{"a.yaml: provinces[0]: empty list item"},
		},
		{
			name:  "bad time zone and phone",
			files: map[string]string{"a.yaml": brandFile("a", "America/Edmonton", "Mars/Olympus", `"1 833-000-0102"`, `"833 000 0102"`)},
			want: []string{
				`a.yaml: provinces[2].timeZone: "Mars/Olympus" is not an IANA time zone`,
				`a.yaml: provinces[1].phone: "833 000 0102" must look like 1 800-555-0199`,
			},
		},
		{
			name:  "bad colour and low contrast",
			files: map[string]string{"a.yaml": brandFile("a", `primary: "#C8102E"`, `primary: "red"`, `accent: "#0B6A88"`, `accent: "#DDDDDD"`)},
			want: []string{
				`a.yaml: theme.primary: "red" is not a colour (#RRGGBB)`,
			},
		},
		{
			name:  "low contrast",
			files: map[string]string{"a.yaml": brandFile("a", `primaryText: "#FFFFFF"`, `primaryText: "#F08080"`, `accent: "#0B6A88"`, `accent: "#DDDDDD"`)},
			want: []string{
				"a.yaml: theme.primaryText: contrast with primary is 2.",
				"a.yaml: theme.accent: contrast with background is 1.",
			},
		},
		{
			name:  "primary too light for links on the background",
			files: map[string]string{"a.yaml": brandFile("a", `primary: "#C8102E"`, `primary: "#F4A6B0"`, `primaryText: "#FFFFFF"`, `primaryText: "#1C1C1C"`)},
			want: []string{
				"a.yaml: theme.primary: contrast with background is 1.",
			},
		},
		{
			name:  "policy number mask and length disagree",
			files: map[string]string{"a.yaml": brandFile("a", "length: 9, mask: XXXXXXXXX", "length: 9, mask: XXX-XXX", "{ab: {", "{mb: {", "mask: XXX-XXXX", "mask: XXX-XX")},
			want: []string{
				`a.yaml: policyNumber: policy number mask "XXX-XX" has 5 slots, length is 7`,
				`a.yaml: policyNumber.byProvince.mb: "mb" is not one of this brand's provinces`,
				`a.yaml: policyNumber.byProvince.mb: policy number mask "XXX-XXX" has 6 slots, length is 9`,
			},
		},
		{
			name:  "driver licence masks",
			files: map[string]string{"a.yaml": brandFile("a", "{qc: A9999-999999-99}", `{qc: "A9999#999", mb: "999", "on": "--"}`, "    license: true\n    ubi: true\n    phone: \"1 833-000-0102\"", "    license: false\n    ubi: true\n    phone: \"1 833-000-0102\"")},
			want: []string{
				`a.yaml: driverLicenceMasks.mb: "mb" is not one of this brand's provinces`,
				`a.yaml: driverLicenceMasks.on: province "on" has license: false, so it takes no licence mask`,
				`a.yaml: driverLicenceMasks.on: "--" has no character to fill`,
				`a.yaml: driverLicenceMasks.qc: "A9999#999" may hold only A (letter), 9 (digit)`,
			},
		},
		{
			name:  "sso",
			files: map[string]string{"a.yaml": brandFile("a", "  prod: {loginUrl: {en: https://sso.example.com/en/pkmslogin.form,", "  Staging: {loginUrl: {en: http://sso.example.com/en/pkmslogin.form,")},
			want: []string{
				"a.yaml: sso.prod: required environment is missing",
				`a.yaml: sso.Staging: "Staging" is not an environment name`,
				`a.yaml: sso.Staging.loginUrl.en: "http://sso.example.com/en/pkmslogin.form" is not an https URL or a path starting with /`,
			},
		},
		{
			name:  "links",
			files: map[string]string{"a.yaml": brandFile("a", "fr: https://www.example.com/fr/p}", "fr: //evil.example/p}", "https://www.example.com/en/t", "javascript:alert(1)", "provinces: [qc]", "provinces: [nu]")},
			want: []string{
				`a.yaml: links.privacy.fr: "//evil.example/p" is not an https URL or a path starting with /`,
				`a.yaml: links.terms.en: "javascript:alert(1)" is not an https URL`,
				`a.yaml: marketingUrls[0].provinces[0]: "nu" is not one of this brand's provinces`,
			},
		},
		{
			name:  "id does not match the file name",
			files: map[string]string{"a.yaml": brandFile("b")},
			want:  []string{`a.yaml: id: "b" does not match the file name (a.yaml)`},
		},
		{
			name:  "not YAML",
			files: map[string]string{"a.yaml": "id: [unclosed\n"},
			want:  []string{"a.yaml: not valid YAML: line "},
		},
		{
			name:  "empty file",
			files: map[string]string{"a.yaml": "# nothing here\n"},
			want:  []string{"a.yaml: the file is empty"},
		},
		{
			name:  "two documents",
			files: map[string]string{"a.yaml": brandFile("a") + "---\n" + brandFile("a")},
			want:  []string{"a.yaml: the file must hold exactly one YAML document"},
		},
		{
			name:  "not a mapping",
			files: map[string]string{"a.yaml": "- just\n- a list\n"},
			want:  []string{"a.yaml: expected a mapping, found a list"},
		},
		{
			name: "every problem of every file",
			files: map[string]string{
				"a.yaml": brandFile("a", `{open: "08:00", close: "19:00"}`, `{open: "8h", close: "19:00"}`, "apiKey: key-a-0123456789abcdef", "apiKey: bad key",
					"screenShare: false", "screenShare: false\ncolour: red", "    menu: false", "    menu: maybe", "chatbot: false, ", ""),
				"b.yaml": brandFile("b", "defaultLanguage: en", "defaultLanguage: es"),
			},
			want: []string{
				`a.yaml: provinces[2].hours.weekdays.open: "8h" is not a time (HH:MM)`,
				"a.yaml: apiKey: must be 16 to 128",
				"a.yaml: colour: unknown field",
				`a.yaml: provinces[2].menu: "maybe" is not true or false`,
				"a.yaml: features.chatbot: required field is missing",
				`b.yaml: defaultLanguage: "es" must be "en"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeDir(t, tt.files)
			r, err := LoadDir(dir)
			if err == nil {
				t.Fatalf("LoadDir succeeded (%d brands), want problems", len(r.All()))
			}
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %T is not a *LoadError: %v", err, err)
			}
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, dir+string(filepath.Separator)+w) {
					t.Errorf("missing problem\n  %s\nin\n%s", w, msg)
				}
			}
			for _, p := range le.Problems {
				if !strings.HasPrefix(p.File, dir+string(filepath.Separator)) || p.Message == "" {
					t.Errorf("problem without file or message: %+v", p)
				}
			}
		})
	}
}

func TestLoadDirFixtureIsValid(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"a.yaml":     brandFile("a"),
		"b.yaml":     brandFile("b"),
		"README.txt": "not a brand file",
	})
	r, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.All()) != 2 {
		t.Fatalf("brands = %d, want 2", len(r.All()))
	}
}

// TestBrandNamePerLanguage: one text names the brand in both languages; a
// mapping gives each language its own name.
func TestBrandNamePerLanguage(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"a.yaml": brandFile("a"),
		"b.yaml": brandFile("b", "name: Test b", "name:\n  en: B Insurance\n  fr: Assurance B"),
	})
	r, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := r.ByID("a")
	b, _ := r.ByID("b")
	if a.Name != (Name{EN: "Test a", FR: "Test a"}) || b.Name != (Name{EN: "B Insurance", FR: "Assurance B"}) {
		t.Fatalf("names: a %+v, b %+v", a.Name, b.Name)
	}
	if got := b.Site("qc", "fr", false, false, EnvProd).Brand; got.Name != "Assurance B" || got.Names != b.Name {
		t.Errorf("French site: name %q, names %+v", got.Name, got.Names)
	}
	if got := b.Site("on", "en", false, false, EnvProd).Brand; got.Name != "B Insurance" {
		t.Errorf("English site: name %q", got.Name)
	}
	real := loadReal(t)
	for id, fr := range map[string]string{"intact": "Intact Assurance", "bna": "Banque Nationale Assurances", "belair": "belairdirect"} {
		if b, _ := real.ByID(id); b.Name.FR != fr {
			t.Errorf("%s French name %q, want %q", id, b.Name.FR, fr)
		}
	}
}

func TestLoadDirWithoutBrands(t *testing.T) {
	tests := []struct {
		name string
		dir  func(t *testing.T) string
		want string
	}{
		{"missing directory", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope") }, "no such file"},
		{"no yaml files", func(t *testing.T) string { return writeDir(t, map[string]string{"a.yml": brandFile("a")}) }, "holds no brand file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadDir(tt.dir(t))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestByHost(t *testing.T) {
	r := loadReal(t)
	tests := []struct {
		host string
		dev  bool
		want string // "" = no brand
	}{
		{"account.belairdirect.com", false, "belair"},
		{"ACCOUNT.BelairDirect.com:443", false, "belair"},
		{"account.belairdirect.com.", false, "belair"},
		{"account.belairdirect.com.:8443", false, "belair"},
		{"account.belairdirect.com", true, "belair"},
		{"compte.bna.ca", false, "bna"},
		{"account.nbc.ca", false, "bna"},
		{"account.intact.ca", false, "intact"},
		{"account.scotiainsurance.ca", false, "scotia"},
		{"account.servusinsurance.ca", false, "servus"},
		{"belair.localhost:8080", false, ""},
		{"belair.localhost:8080", true, "belair"},
		{"bna.localhost", true, "bna"},
		{"NBC.localhost:8080", true, "bna"},
		{"intact.localhost", true, "intact"},
		{"scotia.localhost", true, "scotia"},
		{"servus.localhost.", true, "servus"},
		{"localhost:8080", true, "belair"},
		{"localhost", false, ""},
		{"127.0.0.1:8080", true, "belair"},
		{"127.0.0.1", false, ""},
		{"[::1]:8080", true, "belair"},
		{"[::1]", true, "belair"},
		{"other.localhost", true, ""},
		{"www.example.com", false, ""},
		{"", true, ""},
		{":8080", true, ""},
		{"belair.localhost:", true, ""},
		{"belair.localhost:http", true, ""},
		{"belair.localhost:1234567", true, ""},
		{"belair.localhost:80:80", true, ""},
		{"[::1", true, ""},
		{"[::1]x", true, ""},
		{"[127.0.0.1]", true, ""},
		{"::1", true, ""},
		{"belair..localhost", true, ""},
		{"belair localhost", true, ""},
		{"belair.localhost/x", true, ""},
		{"bélair.localhost", true, ""},
		{strings.Repeat("a.", 200) + "localhost", true, ""},
	}
	for _, tt := range tests {
		b, ok := r.ByHost(tt.host, tt.dev)
		got := ""
		if ok {
			got = b.ID
		}
		if got != tt.want || ok != (b != nil) {
			t.Errorf("ByHost(%q, dev=%v) = %q, %v; want %q", tt.host, tt.dev, got, ok, tt.want)
		}
	}
}

// TestLocalhostWithoutDevDefault: a brands directory without belair still
// answers plain localhost in dev, with its first brand.
func TestLocalhostWithoutDevDefault(t *testing.T) {
	r, err := LoadDir(writeDir(t, map[string]string{
		"zeta.yaml": brandFile("zeta"), "acme.yaml": brandFile("acme"),
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"localhost:8080", "127.0.0.1", "[::1]:8080"} {
		if b, ok := r.ByHost(host, true); !ok || b.ID != "acme" {
			t.Errorf("ByHost(%q, dev) = %v, %v; want acme", host, b, ok)
		}
	}
}

func TestDefault(t *testing.T) {
	r := loadReal(t)
	if _, ok := r.Default(); ok {
		t.Fatal("Default set before SetDefault")
	}
	if err := r.SetDefault("nope"); err == nil {
		t.Fatal("SetDefault accepted an unknown brand")
	}
	if err := r.SetDefault("intact"); err != nil {
		t.Fatal(err)
	}
	if b, ok := r.Default(); !ok || b.ID != "intact" {
		t.Fatalf("Default = %v, %v", b, ok)
	}
	if _, ok := r.ByHost("www.example.com", false); ok {
		t.Fatal("ByHost must not fall back to the default brand")
	}
}

func FuzzByHost(f *testing.F) {
	r := loadReal(f)
	for _, seed := range []string{
		"account.belairdirect.com", "BELAIR.localhost:8080", "[::1]:80", "localhost", "127.0.0.1:8080",
		"", ":", "[", "]", "[]:", "a..b", "nbc.localhost.", "x:y:z", "\x00", "é.localhost",
	} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	f.Fuzz(func(t *testing.T, host string, dev bool) {
		b, ok := r.ByHost(host, dev)
		if ok != (b != nil) {
			t.Fatalf("ByHost(%q) = %v, %v", host, b, ok)
		}
		if ok && !dev {
			h, _ := normalizeHost(host)
			found := false
			for _, known := range b.Hosts {
				found = found || known == h
			}
			if !found {
				t.Fatalf("ByHost(%q, prod) = %s, but %q is not one of its hosts", host, b.ID, h)
			}
		}
	})
}

func FuzzDecode(f *testing.F) {
	entries, err := os.ReadDir(realBrandsDir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() { // a brand's folder (its FAQ file), not a brand file
			continue
		}
		data, err := os.ReadFile(filepath.Join(realBrandsDir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(brandFile("a")))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("provinces: [~, {hours: ~}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var b Brand
		if _, filled := decodeStrict(data, &b); filled {
			validate(&b, "a")
		}
	})
}

// TestLoadFSEmbeddedSamples: the sample brands embedded in the binary load
// through the same validation as a directory, with the same result.
func TestLoadFSEmbeddedSamples(t *testing.T) {
	fromDir := loadReal(t)
	fromFS, err := LoadFS(config.Brands(), "embedded")
	if err != nil {
		t.Fatalf("LoadFS(config.Brands()): %v", err)
	}
	if len(fromFS.All()) != len(fromDir.All()) {
		t.Fatalf("%d embedded brands, %d in %s", len(fromFS.All()), len(fromDir.All()), realBrandsDir)
	}
	for i, b := range fromFS.All() {
		if b.ID != fromDir.All()[i].ID || b.Name != fromDir.All()[i].Name {
			t.Errorf("embedded brand %d is %s, %s holds %s", i, b.ID, realBrandsDir, fromDir.All()[i].ID)
		}
		if b.File() != "embedded/"+b.ID+".yaml" {
			t.Errorf("File() = %q", b.File())
		}
	}
}

func TestLoadFSProblems(t *testing.T) {
	_, err := LoadFS(fstest.MapFS{"fx.yaml": {Data: []byte("id: fx\nprovinces: [\n")}}, "samples")
	var le *LoadError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "samples/fx.yaml") {
		t.Fatalf("LoadFS of a broken file = %v, want a *LoadError naming samples/fx.yaml", err)
	}
	if _, err := LoadFS(fstest.MapFS{"a.yml": {Data: []byte("id: a")}}, "samples"); err == nil ||
		!strings.Contains(err.Error(), "samples holds no brand file") {
		t.Fatalf("LoadFS without *.yaml = %v", err)
	}
}
