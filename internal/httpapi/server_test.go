package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/rules"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// testIndex is the portal's built index.html.
var testIndex = builtPage("Guichet", "index-abc.js", "vendor-abc.js", "root")

// builtPage is an HTML entry as Vite builds it: its title, its entry
// script and the chunk it preloads (under /assets/), and the element the app
// mounts on.
func builtPage(title, entry, preload, mount string) string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>` + title + `</title>
<script type="module" crossorigin src="/assets/` + entry + `"></script>
<link rel="modulepreload" crossorigin href="/assets/` + preload + `">
</head><body><div id="` + mount + `"></div></body></html>`
}

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}

// newServer is the HTTP layer over deps, with what a test leaves out filled
// in: the sample brands, a fresh SQLite database, an SPA of testIndex alone
// with the route list "/", a metrics registry of its own, and Env "dev".
func newServer(t *testing.T, cfg Config, deps Deps) (http.Handler, *brand.Registry) {
	t.Helper()
	if deps.Brands == nil {
		deps.Brands = testenv.Brands(t)
	}
	if deps.DB == nil {
		deps.DB = storetest.Open(t)
	}
	if deps.SPA == nil {
		deps.SPA = fstest.MapFS{"index.html": {Data: []byte(testIndex)}}
	}
	if deps.SPAPaths == nil {
		deps.SPAPaths = []byte(`{"paths": ["/"]}`)
	}
	if deps.Metrics == nil {
		deps.Metrics = prometheus.NewRegistry()
	}
	if cfg.Env == "" {
		cfg.Env = "dev"
	}
	h, err := New(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	return h, deps.Brands
}

func testServer(t *testing.T, cfg Config) (http.Handler, *brand.Registry) {
	t.Helper()
	return newServer(t, cfg, Deps{
		SPA: fstest.MapFS{
			"index.html":          {Data: []byte(testIndex)},
			"assets/index-abc.js": {Data: []byte("console.log(1)")},
		},
		SPAPaths: []byte(`{"paths": ["/", "/not-found", "/create-an-account/identification", "/roadblock/:page"]}`),
	})
}

// do serves a request to host with h.
func do(t testing.TB, h http.Handler, method, target, host string, header map[string]string, body string) testenv.Answer {
	t.Helper()
	return testenv.Do(t, h, testenv.Request{Method: method, Path: target, Host: host, Headers: header, Body: body})
}

func TestPagesAndRedirects(t *testing.T) {
	h, _ := testServer(t, Config{Dev: true})
	cases := []struct {
		name, target, host string
		status             int
		location           string
	}{
		{"login", "/", "belair.localhost:8080", 200, ""},
		{"known route with param", "/roadblock/technical", "belair.localhost", 200, ""},
		{"unknown path is a 404 page", "/nope/zzz", "belair.localhost", 404, ""},
		{"odd characters", "/%E2%80%AE%00x", "intact.localhost", 404, ""},
		{"WAA keeps the query", "/WAA/not-found?x=1&y=2", "belair.localhost", 302, "/not-found?x=1&y=2"},
		{"WAA root", "/WAA?x=1", "belair.localhost", 302, "/?x=1"},
		{"WAA never protocol-relative (the mux cleans the path first)", "/WAA//evil.example/x", "belair.localhost", 307, "/WAA/evil.example/x"},
		{"registration keeps the query", "/registration?a=b", "bna.localhost", 302, "/registration/identification?a=b"},
		{"unknown smart path", "/create-an-account/zzz?q=1", "belair.localhost", 302, "/not-found"},
		{"known smart path", "/create-an-account/identification", "belair.localhost", 200, ""},
		{"plain localhost is belair in dev", "/", "localhost:8080", 200, ""},
		{"unknown host", "/", "evil.example", 404, ""},
		{"post to a page", "/not-found", "belair.localhost", 405, ""},
	}
	var scenarios []testenv.Scenario
	for _, c := range cases {
		method := http.MethodGet
		if c.status == 405 {
			method = http.MethodPost
		}
		scenarios = append(scenarios, testenv.Scenario{Name: c.name, Request: testenv.Request{Method: method, Path: c.target, Host: c.host},
			Status: c.status, Headers: map[string]string{"Location": c.location}})
	}
	testenv.Run(t, h, scenarios...)
}

func TestIndexCarriesSiteConfigAndNonce(t *testing.T) {
	h, _ := testServer(t, Config{Dev: true})
	rec := do(t, h, "GET", "/?province=QC&lang=fr", "bna.localhost", nil, "")
	body := string(rec.Body)
	csp := rec.Header.Get("Content-Security-Policy")
	m := regexp.MustCompile(`'nonce-([A-Za-z0-9+/]+)'`).FindStringSubmatch(csp)
	if m == nil {
		t.Fatalf("no nonce in CSP %q", csp)
	}
	if !strings.Contains(body, `<script nonce="`+m[1]+`" type="module"`) {
		t.Fatalf("module script lacks the nonce: %s", body)
	}
	if !strings.Contains(body, `<link rel="modulepreload" nonce="`+m[1]+`"`) {
		t.Fatal("modulepreload lacks the nonce")
	}
	if !strings.Contains(body, `<html lang="fr"`) {
		t.Fatal("html lang not set to fr")
	}
	cookies := map[string]string{}
	for _, c := range rec.Cookies() {
		cookies[c.Name] = c.Value
		if c.MaxAge != 15552000 || c.HttpOnly {
			t.Errorf("cookie %s: MaxAge %d HttpOnly %v", c.Name, c.MaxAge, c.HttpOnly)
		}
	}
	if cookies["province"] != "qc" || cookies["language"] != "fr" {
		t.Fatalf("choices from the address not remembered: %v", cookies)
	}
	start := strings.Index(body, `<script id="guichet-site" type="application/json">`)
	if start < 0 {
		t.Fatalf("site config missing: %s", body)
	}
	raw := body[start:]
	raw = raw[strings.Index(raw, ">")+1 : strings.Index(raw, "</script>")]
	var site struct {
		Province, Language string
		Brand              struct{ ID string }
	}
	if err := json.Unmarshal([]byte(raw), &site); err != nil {
		t.Fatal(err)
	}
	if site.Brand.ID != "bna" || site.Province != "qc" || site.Language != "fr" {
		t.Fatalf("site = %+v", site)
	}
	// A second response has another nonce.
	rec2 := do(t, h, "GET", "/", "bna.localhost", nil, "")
	if rec2.Header.Get("Content-Security-Policy") == csp {
		t.Fatal("nonce reused across responses")
	}
}

// TestSecurityHeadersByResponseKind pins the security headers of each kind
// of response: every one a browser may show as a document (pages, the API's
// answers, errors, SVG images) carries them all; a script, a stylesheet, a
// font or a raster image keeps only those that act on such a file
// (documentOnlyHeaders says why), and HSTS over HTTPS everywhere.
func TestSecurityHeadersByResponseKind(t *testing.T) {
	h, _, _, _ := assetServer(t)
	all := []string{"Content-Security-Policy", "Cross-Origin-Opener-Policy", "Permissions-Policy", "Referrer-Policy",
		"X-Content-Type-Options", "X-Frame-Options", "X-Request-Id"}
	document := strings.Join(all, " ")
	static := "Referrer-Policy X-Content-Type-Options X-Request-Id"
	data := "Content-Security-Policy Referrer-Policy X-Content-Type-Options X-Frame-Options X-Request-Id"
	pagePolicy := "script-src 'nonce-"
	cases := []struct{ target, want, policy string }{
		{"/", document, pagePolicy},
		{"/nope", document, pagePolicy},
		{"/api/v1/welcome", data, dataPolicy},
		{"/api/v1/nope", data, dataPolicy},
		{"/healthz", document, pagePolicy},
		{"/favicon.svg", data, svgPolicy},
		{"/brands/belair/logo.svg", data, svgPolicy},
		{"/assets/missing.js", document, pagePolicy},
		{"/assets/app-abc.js", static, ""},
		{"/assets/style-abc.css", static, ""},
		{"/assets/font-abc.woff2", static, ""},
		{"/assets/photo-abc.webp", static, ""},
	}
	for _, c := range cases {
		for _, scheme := range []string{"http", "https"} {
			rec := do(t, h, "GET", scheme+"://belair.localhost"+c.target, "", map[string]string{"Accept-Encoding": "br, gzip"}, "")
			var got []string
			for _, k := range all {
				if rec.Header.Get(k) != "" {
					got = append(got, k)
				}
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("%s %s (%d): security headers %q, want %q", scheme, c.target, rec.Status, got, c.want)
			}
			if hsts := rec.Header.Get("Strict-Transport-Security"); (scheme == "https") != (hsts != "") {
				t.Errorf("%s %s: Strict-Transport-Security %q", scheme, c.target, hsts)
			}
			if csp := rec.Header.Get("Content-Security-Policy"); csp != "" && !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Errorf("%s %s: CSP lacks frame-ancestors: %q", scheme, c.target, csp)
			} else if csp != c.policy && (c.policy != pagePolicy || !strings.Contains(csp, pagePolicy)) {
				t.Errorf("%s %s: CSP %q, want %q", scheme, c.target, csp, c.policy)
			}
		}
	}
}

func TestAPIKeyAndHeaders(t *testing.T) {
	h, brands := testServer(t, Config{Dev: true})
	belair, _ := brands.ByID("belair")
	intact, _ := brands.ByID("intact")
	welcome := func(name string, header map[string]string, status int, code string, want map[string]any) testenv.Scenario {
		return testenv.Scenario{Name: name, Request: testenv.Request{Path: "/api/v1/welcome", Host: "belair.localhost", Headers: header},
			Status: status, Code: code, JSON: want,
			After: func(t testing.TB, a testenv.Answer) {
				var body map[string]string
				if err := json.Unmarshal(a.Body, &body); err != nil {
					t.Fatalf("not JSON: %s", a.Body)
				}
			}}
	}
	testenv.Run(t, h,
		welcome("main client", map[string]string{"api-key": belair.APIKey, "province": "QC", "language": "fr"}, 200, "", map[string]any{"brand": "belair", "province": "qc", "language": "fr"}),
		welcome("second client", map[string]string{"X-API-KEY": belair.APIKey, "province": "AB", "language": "fr"}, 200, "", map[string]any{"province": "ab", "language": "en"}),
		welcome("unknown province falls back", map[string]string{"api-key": belair.APIKey, "province": "ZZ<script>"}, 200, "", map[string]any{"province": "on"}),
		welcome("another brand's key", map[string]string{"api-key": intact.APIKey}, 403, "INVALID_API_KEY", nil),
		welcome("no key", nil, 403, "INVALID_API_KEY", nil),
	)
}

func TestBadInputIsA4xx(t *testing.T) {
	h, brands := testServer(t, Config{Dev: true})
	belair, _ := brands.ByID("belair")
	key := map[string]string{"api-key": belair.APIKey}
	bad := func(name, method, target, host, body string, header map[string]string, status int) testenv.Scenario {
		return testenv.Scenario{Name: name, Request: testenv.Request{Method: method, Path: target, Host: host, Headers: header, Body: body},
			Status: status,
			After: func(t testing.TB, a testenv.Answer) {
				if strings.HasPrefix(target, "/api/") && !json.Valid(a.Body) {
					t.Fatalf("API answer is not JSON: %s", a.Body)
				}
			}}
	}
	testenv.Run(t, h,
		bad("unknown API path", "GET", "/api/v1/nope", "belair.localhost", "", key, 404),
		bad("unknown host on the API", "GET", "/api/v1/welcome", "nobody.example", "", key, 404),
		bad("oversized body", "POST", "/api/v1/welcome", "belair.localhost", strings.Repeat("x", 2<<20), key, 413),
		bad("oversized URL", "GET", "/"+strings.Repeat("a", 5000), "belair.localhost", "", nil, 414),
		bad("cross-site POST", "POST", "/api/v1/nope", "belair.localhost", "{}", map[string]string{"api-key": belair.APIKey, "Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, 403),
		// Login CSRF: another site's page posting its own credentials to the
		// SSO form would sign the visitor in as someone else (and, with a
		// client's request pending, hand that client the wrong customer).
		// Refused before routing (this server has no SSO route: 405 otherwise).
		bad("cross-site SSO form post", "POST", "/pkmslogin.form", "belair.localhost", "login-form-type=pwd&username=a%40b.example&password=x",
			map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, 403),
		bad("foreign-origin SSO form post", "POST", "/pkmslogin.form", "belair.localhost", "login-form-type=pwd&username=a%40b.example&password=x",
			map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://evil.example"}, 403),
		bad("same-site SSO form post", "POST", "/pkmslogin.form", "belair.localhost", "login-form-type=pwd&username=a%40b.example&password=x",
			map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-site", "Origin": "http://www.belair.localhost"}, 403),
	)
}

func TestOperations(t *testing.T) {
	h, _ := testServer(t, Config{})
	for target, want := range map[string]string{"/healthz": `{"status":"ok"}`, "/readyz": `{"status":"ready"}`} {
		rec := do(t, h, "GET", target, "10.0.0.1:8080", nil, "")
		if rec.Status != 200 || strings.TrimSpace(string(rec.Body)) != want {
			t.Fatalf("%s = %d %s, want 200 %s", target, rec.Status, string(rec.Body), want)
		}
	}
	do(t, h, "GET", "/", "belair.localhost", nil, "") // not a dev server: unknown host
	for _, host := range []string{"10.0.0.1", "belair.localhost"} {
		if rec := do(t, h, "GET", "/metrics", host, nil, ""); rec.Status != http.StatusNotFound || strings.Contains(string(rec.Body), "guichet_") {
			t.Fatalf("/metrics on the public handler (host %s) = %d, want 404", host, rec.Status)
		}
	}
}

// TestAdminServesMetrics: the metrics are on the admin handler, with the
// public handler's counters.
func TestAdminServesMetrics(t *testing.T) {
	deps := Deps{Brands: testenv.Brands(t), DB: storetest.Open(t), SPA: fstest.MapFS{"index.html": {Data: []byte(testIndex)}},
		SPAPaths: []byte(`{"paths": ["/"]}`), Metrics: prometheus.NewRegistry()}
	h, _ := newServer(t, Config{}, deps)
	do(t, h, "GET", "/healthz", "10.0.0.1", nil, "")
	// A method the client made up is one series, never one per name.
	do(t, h, "BREW", "/healthz", "10.0.0.1", nil, "")
	do(t, h, "TEAPOT", "/healthz", "10.0.0.1", nil, "")
	rec := do(t, NewAdmin(deps), "GET", "/metrics", "127.0.0.1:9090", nil, "")
	body := string(rec.Body)
	if rec.Status != 200 || !strings.Contains(body, `guichet_http_requests_total{method="GET",route="GET /healthz",status="200"} 1`) {
		t.Fatalf("admin /metrics = %d, lacks the request counter:\n%s", rec.Status, body)
	}
	if strings.Contains(body, "BREW") || strings.Contains(body, "TEAPOT") || !strings.Contains(body, `method="_OTHER"`) {
		t.Fatalf("made-up methods are labels of their own:\n%s", body)
	}
	if !strings.Contains(body, "guichet_http_request_duration_seconds_bucket") {
		t.Fatal("metrics lack the latency histogram")
	}
	if rec := do(t, NewAdmin(deps), "GET", "/", "127.0.0.1:9090", nil, ""); rec.Status != http.StatusNotFound {
		t.Fatalf("admin / = %d, want 404", rec.Status)
	}
}

// TestReadyzSaysOnlyDown: a database outage is a 503 that names nothing.
func TestReadyzSaysOnlyDown(t *testing.T) {
	db := storetest.Open(t)
	h, _ := newServer(t, Config{}, Deps{DB: db})
	db.Close()
	rec := do(t, h, "GET", "/readyz", "10.0.0.1", nil, "")
	if rec.Status != http.StatusServiceUnavailable || strings.TrimSpace(string(rec.Body)) != `{"status":"unavailable"}` {
		t.Fatalf("/readyz with the database closed = %d %s", rec.Status, string(rec.Body))
	}
}

func TestMatchPath(t *testing.T) {
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"/", "/", true},
		{"/", "/x", false},
		{"/not-found", "/not-found/", true},
		{"/roadblock/:page", "/roadblock/technical", true},
		{"/roadblock/:page", "/roadblock/", false},
		{"/roadblock/:page", "/roadblock/a/b", false},
		{"/registration/*", "/registration/validation/sms", true},
	}
	for _, c := range cases {
		if got := matchPath(c.pattern, c.path); got != c.want {
			t.Errorf("matchPath(%q, %q) = %v", c.pattern, c.path, got)
		}
	}
}

func TestRuleErrorsAreFieldErrors(t *testing.T) {
	var err error = rules.Error{Field: rules.FieldEmail, Key: rules.KeyEmailRequired}
	rec := testenv.Do(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.WriteError(w, r, fmt.Errorf("find: %w", err))
	}), testenv.Request{Path: "/api/x"})
	if rec.Status != 400 || !strings.Contains(string(rec.Body), `"errorCode":"errorEmailRequired"`) ||
		!strings.Contains(string(rec.Body), `"email":"errorEmailRequired"`) {
		t.Fatalf("rule error answered %d %s", rec.Status, string(rec.Body))
	}
}
