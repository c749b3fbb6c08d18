package httpapi

import (
	"html"
	"net/http"
	"strings"
	"testing"
)

// TestUnknownSiteListsEveryBrand: a host that is no brand's gets a 404 page
// in English or French (lang, Content-Language) that lists every brand of
// the registry by its name in that language, with its portal address and
// website, and links to the other language.
func TestUnknownSiteListsEveryBrand(t *testing.T) {
	cases := []struct {
		name, target, acceptLanguage, lang string
		dev                                bool
	}{
		{"English by default", "/", "", "en", false},
		{"French from Accept-Language", "/some/path", "fr-CA,fr;q=0.9,en;q=0.8", "fr", false},
		{"English ranked above French", "/", "de, en-CA;q=0.9, fr;q=0.5", "en", false},
		{"?lang= wins", "/?lang=fr", "en", "fr", false},
		{"dev: the dev hosts on the port asked for", "/", "", "en", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, brands := testServer(t, Config{Dev: c.dev})
			host := "unknown.example"
			if c.dev {
				host = "unknown.localhost:8080"
			}
			rec := do(t, h, "GET", c.target, host, map[string]string{"Accept-Language": c.acceptLanguage}, "")
			body := string(rec.Body)
			if rec.Status != http.StatusNotFound || rec.Header.Get("Content-Language") != c.lang {
				t.Fatalf("status %d, Content-Language %q", rec.Status, rec.Header.Get("Content-Language"))
			}
			for _, want := range []string{`<html lang="` + c.lang + `">`, "<main", "<h1>", `<h2 id="sites-title">`, `href="/unknown-site.css"`} {
				if !strings.Contains(body, want) {
					t.Errorf("page lacks %s", want)
				}
			}
			other := map[string]string{"en": "fr", "fr": "en"}[c.lang]
			if !strings.Contains(body, `href="?lang=`+other+`" lang="`+other+`"`) {
				t.Errorf("no link to the %s page", other)
			}
			all := brands.All()
			if len(all) < 5 {
				t.Fatalf("%d brands", len(all))
			}
			if got := strings.Count(body, `<li class="site">`); got != len(all) {
				t.Errorf("%d sites listed, want %d", got, len(all))
			}
			for _, b := range all {
				portal := "https://" + b.Hosts[0] + "/?lang=" + c.lang
				if c.dev {
					portal = "http://" + b.DevHosts[0] + ":8080/?lang=" + c.lang
				}
				logo := map[string]string{"en": "logo.svg", "fr": "logo.fr.svg"}[c.lang]
				for _, want := range []string{
					`<h3 class="site__name">` + html.EscapeString(b.Name.For(c.lang)) + `</h3>`,
					`href="` + html.EscapeString(portal) + `"`,
					`href="` + html.EscapeString(b.Links.Marketing.For(c.lang)) + `"`,
					`src="/brands/` + b.ID + `/` + logo + `"`,
				} {
					if !strings.Contains(body, want) {
						t.Errorf("%s: page lacks %s", b.ID, want)
					}
				}
			}
		})
	}
}

func TestUnknownSiteStylesheet(t *testing.T) {
	h, _ := testServer(t, Config{Dev: true})
	rec := do(t, h, "GET", "/unknown-site.css", "unknown.example", nil, "")
	if rec.Status != 200 || !strings.HasPrefix(rec.Header.Get("Content-Type"), "text/css") || !strings.Contains(string(rec.Body), ".sites") {
		t.Fatalf("status %d, %q", rec.Status, rec.Header.Get("Content-Type"))
	}
	// A brand's host has no such file: its pages are the SPA's.
	if rec := do(t, h, "GET", "/unknown-site.css", "belair.localhost", nil, ""); rec.Status == 200 && strings.Contains(string(rec.Body), ".sites") {
		t.Fatal("a brand host serves the unknown-site stylesheet")
	}
	// The API of an unknown host stays JSON.
	if rec := do(t, h, "GET", "/api/v1/welcome", "unknown.example", nil, ""); rec.Status != 404 || !strings.Contains(string(rec.Body), "UNKNOWN_SITE") {
		t.Fatalf("API: %d %s", rec.Status, string(rec.Body))
	}
}
