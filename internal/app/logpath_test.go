package app

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"guichet/internal/httpapi"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

// TestEveryWildcardClassified: every wildcard of the route table is
// classified for the logs (httpapi.WildcardClass), so a new route's token
// cannot be logged by default; the names that say token or secret are
// Secret.
func TestEveryWildcardClassified(t *testing.T) {
	a := testApp(t, "")
	n := 0
	for _, r := range a.Routes {
		for _, m := range pathParam.FindAllStringSubmatch(r.Pattern, -1) {
			n++
			kind, ok := httpapi.WildcardClass(m[1])
			if !ok {
				t.Errorf("%s: wildcard {%s} is not classified in internal/httpapi/logpath.go", r.Pattern, m[1])
			}
			lower := strings.ToLower(m[1])
			if (strings.Contains(lower, "token") || strings.Contains(lower, "secret") || strings.Contains(lower, "code")) && kind != httpapi.WildcardSecret {
				t.Errorf("%s: wildcard {%s} looks like a bearer secret but is not Secret", r.Pattern, m[1])
			}
		}
	}
	if n == 0 {
		t.Fatal("no wildcard in the route table: it was not read")
	}
}

// TestAccessLogRedactsTokens walks the route table: every route with a
// wildcard is called with a distinct token-like value in each wildcard, on
// its host; no Secret wildcard's value (nor any value that is not an id)
// may be in the log, and PublicID wildcards are logged (the log is read).
// Paths a client sends outside the table (a token under a catch-all, an
// unknown page, a query string) are not in the log either.
func TestAccessLogRedactsTokens(t *testing.T) {
	clock := testclock.New()
	a := consoleApp(t, "", clock)
	log := testenv.CaptureLog(t)
	srv := serveHTTP(t, a)
	belair, _ := a.Brands.ByID("belair")

	var secrets, ids []string
	calls := 0
	secret := func() string {
		s := "SeCrEtToKeN" + strings.Repeat("x", 30) + string(rune('A'+len(secrets)%26)) + string(rune('a'+len(secrets)/26))
		secrets = append(secrets, s)
		return s
	}
	call := func(method, host, path string) {
		t.Helper()
		calls++
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("api-key", belair.APIKey)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	tokenRoutes := 0
	for _, r := range a.Routes {
		params := pathParam.FindAllStringSubmatch(r.Pattern, -1)
		if len(params) == 0 {
			continue
		}
		values := map[string]string{}
		for i, p := range params {
			if kind, _ := httpapi.WildcardClass(p[1]); kind == httpapi.WildcardPublicID {
				id := strings.Repeat(string(rune('B'+i)), 10) + "IdIdIdIdIdId"
				values[p[1]] = id
				ids = append(ids, id)
			} else {
				tokenRoutes++
				values[p[1]] = secret()
			}
		}
		host := belair.Hosts[0]
		if isConsole(r.Kind) {
			host = consoleHost
		}
		method, path := fill(r.Pattern, values)
		call(method, host, path)
		// A PublicID slot holding a value that is no id is not logged.
		for _, p := range params {
			if kind, _ := httpapi.WildcardClass(p[1]); kind == httpapi.WildcardPublicID {
				v := map[string]string{}
				for k, x := range values {
					v[k] = x
				}
				v[p[1]] = secret()
				_, path := fill(r.Pattern, v)
				call(method, host, path)
			}
		}
	}
	if tokenRoutes < 4 {
		t.Fatalf("%d routes with a token wildcard, want the 4 of magic links and staff set-up", tokenRoutes)
	}
	// Outside the table: catch-alls, pages, files, query strings.
	for _, c := range []struct{ method, host, path string }{
		{"POST", belair.Hosts[0], "/api/v1/tokens/" + secret()},
		{"GET", belair.Hosts[0], "/api/v1/tokens/" + secret() + "/more"},
		{"GET", consoleHost, "/api/console/v1/setup/" + secret() + "/more"},
		{"PUT", consoleHost, "/api/console/v1/setup/" + secret()},
		{"GET", belair.Hosts[0], "/api/console/v1/setup/" + secret()},
		{"GET", belair.Hosts[0], "/" + secret()},
		{"GET", belair.Hosts[0], "/registration/link?token=" + secret()},
		{"GET", belair.Hosts[0], "/reset?token=" + secret()},
		{"GET", belair.Hosts[0], "/undo-deletion?token=" + secret() + "&lang=fr"},
		{"GET", belair.Hosts[0], "/assets/" + secret() + ".js"},
		{"GET", belair.Hosts[0], "/brands/" + secret()},
		{"GET", consoleHost, "/setup/" + secret()},
		{"GET", consoleHost, "/assets/" + secret()},
		{"GET", "unknown.example.test", "/api/v1/tokens/" + secret()},
		{"GET", belair.Hosts[0], "/api/v1/tokens/" + secret() + "/" + strings.Repeat("y", 5000)},
	} {
		call(c.method, c.host, c.path)
	}
	// A request's line is written once its handler returned, which can be
	// after its client read the answer: wait for a line per call (a bound
	// on a hang, not on speed).
	requestLines := func() int { return strings.Count(log.String(), `"msg":"request"`) }
	for deadline := time.Now().Add(time.Minute); requestLines() < calls && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	out := log.String()
	if n := requestLines(); n < calls {
		t.Fatalf("%d request lines for %d calls: the access log was not captured", n, calls)
	}
	for _, s := range secrets {
		if strings.Contains(out, s) || strings.Contains(out, s[:20]) {
			t.Errorf("token %s is in the log", s)
		}
	}
	for _, id := range ids {
		if !strings.Contains(out, id) {
			t.Errorf("id %s is not in the log: public ids are logged", id)
		}
	}
	if !strings.Contains(out, `"path":"/api/v1/tokens/{token}"`) || !strings.Contains(out, `"path":"/api/console/v1/setup/{token}"`) {
		t.Errorf("the token routes' patterns are not in the log:\n%.2000s", out)
	}
	if !strings.Contains(out, `"path":"/registration/link"`) {
		t.Errorf("an SPA page's path is not in the log:\n%.2000s", out)
	}
}
