package httpapi

import (
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"guichet/internal/brand"
)

// testConsoleHTML is the console's built console.html.
var testConsoleHTML = builtPage("Console", "console-abc.js", "shared-abc.js", "console")

func consoleServer(t *testing.T, cfg Config, withConsole bool) (http.Handler, *brand.Registry) {
	t.Helper()
	cfg.Env = "dev"
	files := fstest.MapFS{
		"index.html":            {Data: []byte(testIndex)},
		"assets/console-abc.js": {Data: []byte("console.log(2)")},
	}
	if withConsole {
		files["console.html"] = &fstest.MapFile{Data: []byte(testConsoleHTML)}
	}
	return newServer(t, cfg, Deps{SPA: files,
		SPAPaths: []byte(`{"paths": ["/", "/not-found", "/my-account", "/roadblock/:page"]}`)})
}

// TestConsoleHostIsolation: the console host serves the console's page
// (with its nonce and a CSP of its own) and its API, nothing of the
// portal; brand hosts serve nothing of the console.
func TestConsoleHostIsolation(t *testing.T) {
	h, brands := consoleServer(t, Config{ConsoleHost: "console.example.test"}, true)
	b, _ := brands.ByID("belair")
	key := map[string]string{"api-key": b.APIKey}
	brandHost := b.Hosts[0]
	for _, host := range []string{"console.example.test", "CONSOLE.example.test:8443"} {
		rec := do(t, h, "GET", "/customers/abc", host, nil, "")
		body := string(rec.Body)
		if rec.Status != 200 || !strings.Contains(body, `<div id="console">`) || strings.Contains(body, "guichet-site") {
			t.Fatalf("%s console page: %d %s", host, rec.Status, body)
		}
		csp := rec.Header.Get("Content-Security-Policy")
		nonce := between(csp, "'nonce-", "'")
		if nonce == "" || !strings.Contains(body, `<script nonce="`+nonce+`"`) || !strings.Contains(body, `<link rel="modulepreload" nonce="`+nonce+`"`) {
			t.Fatalf("nonce %q not on the page's scripts: %s", nonce, body)
		}
		if !strings.Contains(csp, "form-action 'self'; frame-ancestors 'none'") || rec.Header.Get("X-Frame-Options") != "DENY" {
			t.Fatalf("console CSP: %s", csp)
		}
	}
	for _, c := range []struct {
		host, method, path string
		header             map[string]string
		status             int
		not                string
	}{
		// The portal on the console host: API and pages 404.
		{"console.example.test", "GET", "/api/v1/welcome", key, 404, ""},
		{"console.example.test", "POST", "/api/v1/accounts/find", key, 404, ""},
		{"console.example.test", "POST", "/pkmslogin.form", nil, 404, ""},
		{"console.example.test", "GET", "/my-account", nil, 404, "guichet-site"},
		{"console.example.test", "GET", "/roadblock/block", nil, 404, "guichet-site"},
		{"console.example.test", "GET", "/api/console/v1/nothing", nil, 404, ""},
		// The console on brand hosts: its API 404 (with or without api key), its page never.
		{brandHost, "GET", "/api/console/v1/session", nil, 404, ""},
		{brandHost, "POST", "/api/console/v1/session", key, 404, ""},
		{brandHost, "GET", "/api/console/v1/setup/AAAA", key, 404, ""},
		{brandHost, "GET", "/sign-in", nil, 404, `id="console"`},
		{brandHost, "GET", "/", nil, 200, `id="console"`},
		{"unknown.example", "GET", "/api/console/v1/session", nil, 404, ""},
	} {
		rec := do(t, h, c.method, c.path, c.host, c.header, "")
		if rec.Status != c.status || c.not != "" && strings.Contains(string(rec.Body), c.not) {
			t.Errorf("%s %s on %s: %d %.200s; want %d", c.method, c.path, c.host, rec.Status, string(rec.Body), c.status)
		}
	}
	// The console host is no brand host: without --dev, console.localhost is not it.
	if rec := do(t, h, "GET", "/customers/abc", "console.localhost:8080", nil, ""); strings.Contains(string(rec.Body), `id="console"`) {
		t.Fatal("console.localhost served the console outside --dev")
	}
}

// TestConsoleHostDev: in --dev console.localhost (any port) is the console
// host; a build without console.html answers 404 there, never the portal.
func TestConsoleHostDev(t *testing.T) {
	h, _ := consoleServer(t, Config{Dev: true}, false)
	rec := do(t, h, "GET", "/", "console.localhost:5173", nil, "")
	if rec.Status != 404 || strings.Contains(string(rec.Body), "guichet-site") {
		t.Fatalf("no console build: %d %s", rec.Status, rec.Body)
	}
	h, _ = consoleServer(t, Config{Dev: true}, true)
	if rec := do(t, h, "GET", "/setup", "console.localhost:5173", nil, ""); rec.Status != 200 || !strings.Contains(string(rec.Body), `id="console"`) {
		t.Fatalf("dev console: %d %s", rec.Status, rec.Body)
	}
	if rec := do(t, h, "GET", "/assets/console-abc.js", "console.localhost:5173", nil, ""); rec.Status != 200 {
		t.Fatalf("console asset: %d", rec.Status)
	}
}

// TestConsoleCrossOrigin: a state-changing console call from another origin
// is refused before any handler (as the portal's).
func TestConsoleCrossOrigin(t *testing.T) {
	h, _ := consoleServer(t, Config{ConsoleHost: "console.example.test"}, true)
	rec := do(t, h, "POST", "/api/console/v1/session", "console.example.test",
		map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}, `{}`)
	if rec.Status != 403 || !strings.Contains(string(rec.Body), "CROSS_ORIGIN") {
		t.Fatalf("cross-origin: %d %s", rec.Status, rec.Body)
	}
}

func between(s, start, end string) string {
	_, rest, ok := strings.Cut(s, start)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, end)
	return v
}

// TestConsoleViewerPolicy: the co-browse viewer's page (and only it) lets
// the replayed page's inline styles and the brand hosts' styles, images
// and fonts show; scripts stay nonce-only everywhere.
func TestConsoleViewerPolicy(t *testing.T) {
	h, brands := consoleServer(t, Config{ConsoleHost: "console.example.test"}, true)
	b, _ := brands.ByID("belair")
	host := b.Hosts[0]
	viewer := do(t, h, "GET", ViewerPathPrefix+"abc", "console.example.test", nil, "")
	csp := viewer.Header.Get("Content-Security-Policy")
	if viewer.Status != 200 || !strings.Contains(string(viewer.Body), `<div id="console">`) {
		t.Fatalf("viewer page: %d", viewer.Status)
	}
	for _, want := range []string{"style-src 'self' 'unsafe-inline' ", "img-src 'self' data: blob: ", "font-src 'self' data: ",
		" " + host + ":*", "; connect-src 'self';", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Fatalf("viewer CSP lacks %q: %s", want, csp)
		}
	}
	script := between(csp, "script-src ", ";")
	if !strings.HasPrefix(script, "'nonce-") || strings.Contains(script, "unsafe") || strings.Contains(script, host) {
		t.Fatalf("viewer script-src loosened: %q", script)
	}
	for _, c := range []struct{ host, path string }{{"console.example.test", "/cobrowse"}, {"console.example.test", "/chat"}, {host, ViewerPathPrefix + "abc"}} {
		csp := do(t, h, "GET", c.path, c.host, nil, "").Header.Get("Content-Security-Policy")
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, host+":*") {
			t.Fatalf("%s%s CSP loosened: %s", c.host, c.path, csp)
		}
	}
}
