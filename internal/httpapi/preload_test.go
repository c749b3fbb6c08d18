package httpapi

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"guichet/internal/brand"
)

const testPageChunks = `{
 "pages": {
  "/": {"js": ["assets/login-1.js", "assets/field-1.js"], "css": [], "aside": true},
  "/roadblock/:page": {"js": ["assets/roadblock-1.js"], "css": ["assets/roadblock-1.css"]},
  "/my-account": {"js": ["assets/my-account-1.js"], "css": [], "sections": ["security", "oidc"]},
  "*": {"js": ["assets/not-found-1.js"], "css": []}
 },
 "catalogs": {"security.en": ["assets/security.en-1.js"], "security.fr": ["assets/security.fr-1.js"], "oidc.fr": ["assets/oidc.fr-1.js"],
  "en": ["assets/english-1.js", "assets/en-1.js"], "fr": ["assets/fr-1.js"], "bna.en": ["assets/bna.en-1.js"], "bna.fr": ["assets/bna.fr-1.js"]}
}`

// preloadServer serves testIndex with testPageChunks' pages.
func preloadServer(t *testing.T) (http.Handler, *brand.Registry) {
	return newServer(t, Config{Dev: true}, Deps{
		SPA: fstest.MapFS{
			"index.html":       {Data: []byte(testIndex)},
			"page-chunks.json": {Data: []byte(testPageChunks)},
		},
		SPAPaths: []byte(`{"paths": ["/", "/not-found", "/roadblock/:page", "/my-account"]}`),
	})
}

// Issue 12, defect 3: index.html names the page's chunks and the message
// catalogues, so the browser fetches them with the entry, not after it;
// the page's language's catalogues only (issue 32: a French page does not
// download the English texts).
func TestIndexPreloadsThePageAndItsCatalogues(t *testing.T) {
	h, _ := preloadServer(t)
	links := regexp.MustCompile(`<link rel="(modulepreload|stylesheet)"(?: nonce="[^"]+")? crossorigin href="([^"]+)">`)
	cases := []struct {
		target, host string
		want         []string
	}{
		{"/", "bna.localhost", []string{"modulepreload /assets/login-1.js", "modulepreload /assets/field-1.js",
			"modulepreload /assets/english-1.js", "modulepreload /assets/en-1.js", "modulepreload /assets/bna.en-1.js"}},
		{"/?lang=fr", "bna.localhost", []string{"modulepreload /assets/login-1.js", "modulepreload /assets/field-1.js",
			"modulepreload /assets/fr-1.js", "modulepreload /assets/bna.fr-1.js"}},
		{"/roadblock/technical", "belair.localhost", []string{"stylesheet /assets/roadblock-1.css", "modulepreload /assets/roadblock-1.js", "modulepreload /assets/english-1.js", "modulepreload /assets/en-1.js"}},
		// The page's message sections, in its language (issue 32: asked for only once the entry had run before).
		{"/my-account?lang=fr", "bna.localhost", []string{"modulepreload /assets/my-account-1.js",
			"modulepreload /assets/fr-1.js", "modulepreload /assets/bna.fr-1.js", "modulepreload /assets/security.fr-1.js", "modulepreload /assets/oidc.fr-1.js"}},
		{"/nope", "belair.localhost", []string{"modulepreload /assets/not-found-1.js", "modulepreload /assets/english-1.js", "modulepreload /assets/en-1.js"}},
	}
	for _, c := range cases {
		t.Run(c.target, func(t *testing.T) {
			body := string(do(t, h, "GET", c.target, c.host, nil, "").Body)
			head := body[:strings.Index(body, "</head>")]
			var got []string
			for _, m := range links.FindAllStringSubmatch(head, -1) {
				if m[2] != "/assets/vendor-abc.js" { // the entry's own, already in index.html
					got = append(got, m[1]+" "+m[2])
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("preloads:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if strings.Count(head, `<link rel="modulepreload" nonce="`) != strings.Count(head, `<link rel="modulepreload"`) {
				t.Fatalf("a modulepreload lacks the nonce: %s", head)
			}
		})
	}
}

// Issue 32: a page that shows the promo panel (page-chunks.json "aside")
// names the brand's promo image in its language first, at a high
// priority (Lighthouse's LCP element on a phone); not in webview mode
// (the panel is not shown there), nor on a page without the panel.
func TestIndexPreloadsThePromoImageOfAPageWithThePanel(t *testing.T) {
	h, brands := preloadServer(t)
	bna, _ := brands.ByID("bna")
	image := regexp.MustCompile(`<link rel="preload" as="image" fetchpriority="high" href="([^"]+)">`)
	for _, c := range []struct {
		target, language string
		cookie           map[string]string
		want             string
	}{
		{"/", "en", nil, bna.Site("", "en", false, true, "dev").Brand.Promo.Image},
		{"/?lang=fr", "fr", nil, bna.Site("", "fr", false, true, "dev").Brand.Promo.Image},
		{"/", "en", map[string]string{"Cookie": "waa-session=1"}, ""},
		{"/roadblock/technical", "en", nil, ""},
		{"/my-account", "en", nil, ""},
	} {
		body := string(do(t, h, "GET", c.target, "bna.localhost", c.cookie, "").Body)
		head := body[:strings.Index(body, "</head>")]
		found := image.FindAllStringSubmatch(head, -1)
		switch {
		case c.want == "" && len(found) != 0:
			t.Errorf("%s %v: preloads %v, want no image", c.target, c.cookie, found)
		case c.want != "" && (len(found) != 1 || found[0][1] != c.want):
			t.Errorf("%s: preloads %v, want %s once", c.target, found, c.want)
		case c.want != "" && strings.Index(head, found[0][0]) > strings.Index(head, "/assets/login-1.js"):
			t.Errorf("%s: the image is named after the page's scripts", c.target)
		}
	}
	if en, fr := bna.Site("", "en", false, true, "dev").Brand.Promo.Image, bna.Site("", "fr", false, true, "dev").Brand.Promo.Image; en == "" || fr == "" {
		t.Fatalf("bna has no promo image (%q, %q): the test proves nothing", en, fr)
	}
}
