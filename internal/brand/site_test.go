package brand

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestSiteJSONShape checks the JSON against docs/architecture.md, key by key.
func TestSiteJSONShape(t *testing.T) {
	r := loadReal(t)
	localized := "en,fr"
	span := "close,open"
	for _, b := range r.All() {
		for _, env := range []string{EnvDev, EnvProd} {
			data, err := json.Marshal(b.Site("", "", false, env == EnvDev, env))
			if err != nil {
				t.Fatal(err)
			}
			var site map[string]any
			if err := json.Unmarshal(data, &site); err != nil {
				t.Fatal(err)
			}
			where := b.ID + " " + env
			expectKeys(t, where, site, "brand,dev,language,province,webview")
			brand := site["brand"].(map[string]any)
			expectKeys(t, where+" brand", brand, "apiKey,defaultLanguage,defaultProvince,driverLicenceMasks,features,id,links,name,names,policyNumber,promo,promos,provinces,screenShare,smartPinRoadblock,sso,theme")
			expectKeys(t, where+" names", brand["names"], localized)
			expectKeys(t, where+" features", brand["features"], "chatbot,registration,usenewmarketingredirection")
			links := brand["links"].(map[string]any)
			expectKeys(t, where+" links", links, "appStore,certificate,googlePlay,marketing,privacy,screenShare,security,terms")
			for name, l := range links {
				expectKeys(t, where+" links."+name, l, localized)
			}
			expectKeys(t, where+" theme", brand["theme"], "accent,background,primary,primaryText,text")
			expectKeys(t, where+" promos", brand["promos"], localized)
			for _, promo := range []any{brand["promo"], brand["promos"].(map[string]any)["en"], brand["promos"].(map[string]any)["fr"]} {
				expectKeys(t, where+" promo", promo, "image,imageAlt,link,text,title")
				expectKeys(t, where+" promo.link", promo.(map[string]any)["link"], "text,url")
			}
			pn := brand["policyNumber"].(map[string]any)
			expectKeys(t, where+" policyNumber", pn, "byProvince,length,mask")
			for key, f := range pn["byProvince"].(map[string]any) {
				expectKeys(t, where+" policyNumber.byProvince."+key, f, "length,mask")
			}
			if _, ok := brand["driverLicenceMasks"].(map[string]any); !ok {
				t.Errorf("%s driverLicenceMasks is not an object", where)
			}
			sso := brand["sso"].(map[string]any)
			expectKeys(t, where+" sso", sso, "external,loginUrl")
			expectKeys(t, where+" sso.loginUrl", sso["loginUrl"], localized)
			provinces, ok := brand["provinces"].([]any)
			if !ok || len(provinces) == 0 {
				t.Fatalf("%s provinces = %v", where, brand["provinces"])
			}
			for _, p := range provinces {
				expectKeys(t, where+" province", p, "hours,key,languages,license,menu,phone,timeZone,ubi")
				hours := p.(map[string]any)["hours"]
				if hours == nil {
					continue
				}
				expectKeys(t, where+" hours", hours, "saturday,weekdays")
				h := hours.(map[string]any)
				expectKeys(t, where+" hours.weekdays", h["weekdays"], span)
				if h["saturday"] != nil {
					expectKeys(t, where+" hours.saturday", h["saturday"], span)
				}
			}
		}
	}
}

func expectKeys(t *testing.T, where string, v any, want string) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s: %v is not an object", where, v)
		return
	}
	if got := strings.Join(slices.Sorted(maps.Keys(m)), ","); got != want {
		t.Errorf("%s keys = %s, want %s", where, got, want)
	}
}

func TestSite(t *testing.T) {
	r := loadReal(t)
	fx := fixtureBrand(t)
	belair, _ := r.ByID("belair")
	intact, _ := r.ByID("intact")
	servus, _ := r.ByID("servus")
	tests := []struct {
		name                        string
		b                           *Brand
		province, language, env     string
		webview, dev                bool
		wantProvince, wantLanguage  string
		wantLogin                   string
		wantExternal                bool
		wantMarketingEN, wantMarkFR string
	}{
		{"belair qc fr dev", belair, "qc", "fr", EnvDev, false, true, "qc", "fr", "/pkmslogin.form", false,
			"https://www.belairdirect.com/en/quebec.html", "https://www.belairdirect.com/fr/quebec.html"},
		{"belair on: marketing from links", belair, "on", "en", EnvProd, true, false, "on", "en", "/pkmslogin.form", false,
			"https://www.belairdirect.com/en.html", "https://www.belairdirect.com/fr.html"},
		{"unchecked values are resolved again", belair, "<script>", "de", EnvProd, false, false, "on", "en", "/pkmslogin.form", false,
			"https://www.belairdirect.com/en.html", "https://www.belairdirect.com/fr.html"},
		{"english-only province", belair, "AB", "fr", EnvProd, false, false, "ab", "en", "/pkmslogin.form", false,
			"https://www.belairdirect.com/en.html", "https://www.belairdirect.com/fr.html"},
		{"servus", servus, "", "", EnvProd, false, false, "ab", "en", "/pkmslogin.form", false,
			"https://www.servusinsurance.ca/en.html", "https://www.servusinsurance.ca/fr.html"},
		{"intact", intact, "nu", "fr", EnvDev, false, true, "nu", "fr", "/pkmslogin.form", false,
			"https://www.intact.ca/en.html", "https://www.intact.ca/fr.html"},
		{"external sso in prod", fx, "qc", "fr", EnvProd, false, false, "qc", "fr", "https://sso.example.com/fr/pkmslogin.form", true,
			"https://www.example.com/en", "https://www.example.com/fr/quebec"},
		{"own sso in dev", fx, "qc", "en", EnvDev, false, true, "qc", "en", "/pkmslogin.form", false,
			"https://www.example.com/en", "https://www.example.com/fr/quebec"},
		{"unknown environment reads as prod", fx, "on", "en", "staging", false, false, "on", "en", "https://sso.example.com/en/pkmslogin.form", true,
			"https://www.example.com/en", "https://www.example.com/fr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.b.Site(tt.province, tt.language, tt.webview, tt.dev, tt.env)
			if s.Province != tt.wantProvince || s.Language != tt.wantLanguage || s.Webview != tt.webview || s.Dev != tt.dev {
				t.Errorf("site = %s/%s webview=%v dev=%v", s.Province, s.Language, s.Webview, s.Dev)
			}
			if got := s.Brand.SSO.LoginURL.For(s.Language); got != tt.wantLogin || s.Brand.SSO.External != tt.wantExternal {
				t.Errorf("sso = %s external=%v, want %s %v", got, s.Brand.SSO.External, tt.wantLogin, tt.wantExternal)
			}
			if m := s.Brand.Links.Marketing; m.EN != tt.wantMarketingEN || m.FR != tt.wantMarkFR {
				t.Errorf("marketing = %+v", m)
			}
			if s.Brand.ID != tt.b.ID || s.Brand.APIKey != tt.b.APIKey || len(s.Brand.Provinces) != len(tt.b.Provinces) {
				t.Errorf("brand = %s %s %d provinces", s.Brand.ID, s.Brand.APIKey, len(s.Brand.Provinces))
			}
		})
	}
}

func TestSiteDoesNotShareState(t *testing.T) {
	r := loadReal(t)
	intact, _ := r.ByID("intact")
	s := intact.Site("on", "en", false, false, EnvProd)
	if got := len(s.Brand.PolicyNumber.ByProvince); got != 12 {
		t.Fatalf("intact byProvince has %d provinces, want 12 (all but qc)", got)
	}
	if _, ok := s.Brand.PolicyNumber.ByProvince["qc"]; ok {
		t.Fatal("intact qc must keep the 7-character policy number")
	}
	s.Brand.PolicyNumber.ByProvince["qc"] = PolicyNumberFormat{Length: 1, Mask: "A"}
	s.Brand.DriverLicenceMasks["qc"] = "9"
	s.Brand.Provinces[0].Languages[0] = "xx"
	if intact.PolicyNumberFormat("qc").Length != 7 {
		t.Error("changing the SiteConfig changed the brand's policy number")
	}
	if m, _ := intact.DriverLicenceMask("qc"); m != "A9999-999999-99" {
		t.Errorf("changing the SiteConfig changed the brand's licence mask: %s", m)
	}
	if intact.Provinces[0].Languages[0] == "xx" {
		t.Error("changing the SiteConfig changed the brand's languages")
	}
}

func TestBrandLookups(t *testing.T) {
	r := loadReal(t)
	belair, _ := r.ByID("belair")
	intact, _ := r.ByID("intact")
	fx := fixtureBrand(t)
	if got := belair.Phone("QC"); got != "1 833-000-0101" {
		t.Errorf("belair qc phone = %s", got)
	}
	if got, want := belair.Phone("mb"), belair.Phone("on"); got != want {
		t.Errorf("phone of a province not offered = %s, want the default's %s", got, want)
	}
	for _, tt := range []struct {
		b        *Brand
		province string
		want     PolicyNumberFormat
	}{
		{belair, "qc", PolicyNumberFormat{7, "XXX-XXXX"}},
		{intact, "qc", PolicyNumberFormat{7, "XXX-XXXX"}},
		{intact, "ON", PolicyNumberFormat{9, "XXXXXXXXX"}},
		{intact, "yt", PolicyNumberFormat{9, "XXXXXXXXX"}},
	} {
		if got := tt.b.PolicyNumberFormat(tt.province); got != tt.want {
			t.Errorf("%s %s policy number = %+v, want %+v", tt.b.ID, tt.province, got, tt.want)
		}
	}
	for _, tt := range []struct {
		b              *Brand
		province, want string
		ok             bool
	}{
		{belair, "qc", "A9999-999999-99", true},
		{belair, "on", "A9999-99999-99999", true},
		{belair, "ab", "**9999-999", true},
		{belair, "bc", "9999999", true},
		{belair, "ns", "", false},
		{intact, "ns", "A____999999999", true},
		{intact, "nb", "", false},
	} {
		got, ok := tt.b.DriverLicenceMask(tt.province)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s %s licence mask = %q %v", tt.b.ID, tt.province, got, ok)
		}
	}
	if got := fx.SSOOrigins(EnvProd); strings.Join(got, ",") != "https://sso.example.com" {
		t.Errorf("SSOOrigins(prod) = %v", got)
	}
	if got := fx.SSOOrigins(EnvDev); len(got) != 0 {
		t.Errorf("SSOOrigins(dev) = %v", got)
	}
	if got := fx.LoginURL(EnvProd, "fr"); got != "https://sso.example.com/fr/pkmslogin.form" {
		t.Errorf("LoginURL = %s", got)
	}
	if p, ok := belair.Province("NL"); !ok || p.Location().String() != "America/St_Johns" {
		t.Errorf("Province(NL) = %v, %v", p, ok)
	}
}

// fixtureBrand loads the test fixture (external SSO in prod, a marketing
// override for qc in French).
func fixtureBrand(t *testing.T) *Brand {
	t.Helper()
	r, err := LoadDir(writeDir(t, map[string]string{"fx.yaml": brandFile("fx")}))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.ByID("fx")
	return b
}
