package httpapi

import (
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

const testPageChunks = `{
 "pages": {
  "/": {"js": ["assets/login-1.js", "assets/field-1.js"], "css": []},
  "/roadblock/:page": {"js": ["assets/roadblock-1.js"], "css": ["assets/roadblock-1.css"]},
  "/my-account": {"js": ["assets/my-account-1.js"], "css": [], "sections": ["security", "oidc"]},
  "*": {"js": ["assets/not-found-1.js"], "css": []}
 },
 "catalogs": {"security.en": ["assets/security.en-1.js"], "security.fr": ["assets/security.fr-1.js"], "oidc.fr": ["assets/oidc.fr-1.js"],
  "en": ["assets/english-1.js", "assets/en-1.js"], "fr": ["assets/fr-1.js"], "bna.en": ["assets/bna.en-1.js"], "bna.fr": ["assets/bna.fr-1.js"]}
}`

// Issue 12, defect 3: index.html names the page's chunks and the message
// catalogues, so the browser fetches them with the entry, not after it;
// the page's language's catalogues only (issue 32: a French page does not
// download the English texts).
func TestIndexPreloadsThePageAndItsCatalogues(t *testing.T) {
	h, _ := newServer(t, Config{Dev: true}, Deps{
		SPA: fstest.MapFS{
			"index.html":       {Data: []byte(testIndex)},
			"page-chunks.json": {Data: []byte(testPageChunks)},
		},
		SPAPaths: []byte(`{"paths": ["/", "/not-found", "/roadblock/:page", "/my-account"]}`),
	})
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
