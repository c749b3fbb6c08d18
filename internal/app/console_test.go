package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/api/apitest"
	"guichet/internal/audit"
	"guichet/internal/devseed"
	"guichet/internal/sso"
	"guichet/internal/staff"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

// consoleHost is the tests' GUICHET_CONSOLE_HOST.
const consoleHost = "console.example.test"

// consoleApp is testApp with a console host and an injected clock.
func consoleApp(t *testing.T, databaseURL string, clock *testclock.Clock) *App {
	t.Helper()
	a, err := newApp(context.Background(), Config{
		DataDir: t.TempDir(), BrandsDir: "../../config/brands", Mail: "log", DatabaseURL: databaseURL,
		ConsoleHost: consoleHost, now: clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.DB.Close() })
	return a
}

// browser calls an App's handler on one host, keeping the cookies it sets.
type browser struct {
	t       *testing.T
	a       *App
	host    string
	cookies map[string]string
	header  http.Header
}

func newBrowser(t *testing.T, a *App, host string) *browser {
	return &browser{t: t, a: a, host: host, cookies: map[string]string{}, header: http.Header{}}
}

// serveHTTP serves the application's whole handler over HTTP (for the
// sockets and real clients) until the test ends.
func serveHTTP(t *testing.T, a *App) *httptest.Server {
	srv := httptest.NewServer(a.Handler)
	t.Cleanup(srv.Close)
	return srv
}

// marie is Marie, an agent of belair, signed in on the console.
func marie(t *testing.T, a *App, clock *testclock.Clock) *browser {
	t.Helper()
	return signedInStaff(t, a, clock, "marie@example.com", staff.RoleAgent, []string{"belair"})
}

// marieServed is the whole handler served over HTTP (srv, for the
// sockets) and marie signed in on the console, with her session token.
func marieServed(t *testing.T, a *App, clock *testclock.Clock) (srv *httptest.Server, agent *browser, token string) {
	t.Helper()
	srv = serveHTTP(t, a)
	agent = marie(t, a, clock)
	return srv, agent, agent.cookies[staff.CookieName]
}

// siteBrowser is a browser on the brand's first host that sends its api
// key, as the portal's pages do.
func siteBrowser(t *testing.T, a *App, brandID string) *browser {
	t.Helper()
	b := testenv.Brand(t, a.Brands, brandID)
	br := newBrowser(t, a, b.Hosts[0])
	br.header.Set("api-key", b.APIKey)
	return br
}

// do sends a request and decodes a JSON answer into a map.
func (b *browser) do(method, path, body string) (int, map[string]any) {
	b.t.Helper()
	req := testenv.Request{Method: method, Path: path, Host: b.host, Body: body, Headers: map[string]string{}}
	if body != "" {
		req.Headers["Content-Type"] = "application/json"
	}
	for k := range b.header {
		req.Headers[k] = b.header.Get(k)
	}
	for name, value := range b.cookies {
		req.Cookies = append(req.Cookies, &http.Cookie{Name: name, Value: value})
	}
	rec := testenv.Do(b.t, b.a.Handler, req)
	for _, c := range rec.Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	var out map[string]any
	_ = json.Unmarshal(rec.Body, &out)
	if out == nil {
		out = map[string]any{"body": string(rec.Body)}
	}
	return rec.Status, out
}

func (b *browser) want(method, path, body string, status int, code string) map[string]any {
	b.t.Helper()
	got, out := b.do(method, path, body)
	if got != status || code != "" && out["errorCode"] != code {
		b.t.Fatalf("%s %s: %d %v; want %d %s", method, path, got, out, status, code)
	}
	return out
}

// auditCount counts a staff member's audit rows of an event and outcome.
func auditCount(t *testing.T, a *App, staffID, event, outcome string) int {
	t.Helper()
	var n int
	if err := a.DB.QueryRow(context.Background(), "SELECT COUNT(*) FROM audit_events WHERE account_id = ? AND event = ? AND outcome = ? AND brand = ?",
		staffID, event, outcome, staff.AuditBrand).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestConsoleSetUpAndSignIn walks a staff member from the CLI's set-up
// link to a signed-in console session and out, on the console host, on
// both databases: the link (single use), the password rule, the first
// code, the recovery codes, sign-in with password then TOTP (a new id,
// the set-up's code refused as a replay), sign-out, and the audit rows.
func TestConsoleSetUpAndSignIn(t *testing.T) {
	eachConsole(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		ctx := context.Background()
		m, token, err := a.Staff.Add(ctx, staff.NewMember{Email: "Jo.Agent@Example.com", Name: "Jo Agent", Role: staff.RoleAgent, Brands: []string{"belair"}}, "cli")
		if err != nil {
			t.Fatal(err)
		}
		c := newBrowser(t, a, consoleHost)
		setup := c.want("GET", "/api/console/v1/setup/"+token, "", 200, "")
		if setup["email"] != "jo.agent@example.com" || setup["name"] != "Jo Agent" || !strings.HasPrefix(setup["otpauthUri"].(string), "otpauth://totp/") {
			t.Fatalf("setup: %v", setup)
		}
		secret, err := staff.DecodeSecret(setup["secret"].(string))
		if err != nil || len(secret) != staff.SecretSize {
			t.Fatalf("secret %q: %v", setup["secret"], err)
		}
		code := staff.TOTP(secret, clock.Now())
		c.want("POST", "/api/console/v1/setup/"+token, `{"password":"short","code":"`+code+`"}`, 400, "")
		wrong := staff.TOTP(secret, clock.Now().Add(-5*time.Minute))
		c.want("POST", "/api/console/v1/setup/"+token, `{"password":"Console-Pass-2026!","code":"`+wrong+`"}`, 401, "INVALID_CODE")
		done := c.want("POST", "/api/console/v1/setup/"+token, `{"password":"Console-Pass-2026!","code":"`+code+`"}`, 200, "")
		if rc := done["recoveryCodes"].([]any); len(rc) != 10 {
			t.Fatalf("recovery codes: %v", rc)
		}
		me := c.want("GET", "/api/console/v1/session", "", 200, "")
		if me["id"] != m.ID || me["role"] != "agent" || me["email"] != "jo.agent@example.com" {
			t.Fatalf("me: %v", me)
		}
		c.want("GET", "/api/console/v1/setup/"+token, "", 404, "NOT_FOUND")
		c.want("POST", "/api/console/v1/setup/"+token, `{"password":"Console-Pass-2026!","code":"`+code+`"}`, 404, "NOT_FOUND")
		c.want("DELETE", "/api/console/v1/session", "", 204, "")
		c.want("GET", "/api/console/v1/session", "", 401, "SIGN_IN_REQUIRED")

		c.want("POST", "/api/console/v1/session", `{"email":"jo.agent@example.com","password":"Wrong-Pass-2026!"}`, 401, "INVALID_CREDENTIALS")
		c.want("POST", "/api/console/v1/session", `{"email":"nobody@example.com","password":"Console-Pass-2026!"}`, 401, "INVALID_CREDENTIALS")
		next := c.want("POST", "/api/console/v1/session", `{"email":"JO.AGENT@example.com","password":"Console-Pass-2026!"}`, 200, "")
		if next["next"] != "totp" {
			t.Fatalf("sign-in: %v", next)
		}
		pending := c.cookies[staff.CookieName]
		c.want("GET", "/api/console/v1/session", "", 401, "SIGN_IN_REQUIRED")
		// The set-up's code, in the same time step: a replay.
		c.want("POST", "/api/console/v1/session/totp", `{"code":"`+code+`"}`, 401, "INVALID_CODE")
		clock.Advance(staff.Period)
		signedIn := c.want("POST", "/api/console/v1/session/totp", `{"code":"`+staff.TOTP(secret, clock.Now())+`"}`, 200, "")
		if signedIn["staff"].(map[string]any)["id"] != m.ID {
			t.Fatalf("totp: %v", signedIn)
		}
		if c.cookies[staff.CookieName] == pending || c.cookies[staff.CookieName] == "" {
			t.Fatal("the session id did not change at the second factor")
		}
		c.want("GET", "/api/console/v1/session", "", 200, "")
		old := newBrowser(t, a, consoleHost)
		old.cookies[staff.CookieName] = pending
		old.want("GET", "/api/console/v1/session", "", 401, "SIGN_IN_REQUIRED")

		for _, w := range []struct {
			event, outcome string
			n              int
		}{
			{string(audit.StaffAdd), "ok", 1}, {string(audit.StaffSetup), "ok", 1}, {string(audit.StaffSignOut), "ok", 1},
			{string(audit.StaffSignIn), "wrong_password", 1}, {string(audit.StaffSignIn), "password_ok", 1},
			{string(audit.StaffSignIn), "wrong_code", 1}, {string(audit.StaffSignIn), "ok", 1},
		} {
			if got := auditCount(t, a, m.ID, w.event, w.outcome); got != w.n {
				t.Errorf("audit %s %s: %d rows, want %d", w.event, w.outcome, got, w.n)
			}
		}

		// Disabled: the session ends at once.
		if err := a.Staff.Disable(ctx, "jo.agent@example.com", "cli"); err != nil {
			t.Fatal(err)
		}
		c.want("GET", "/api/console/v1/session", "", 401, "SIGN_IN_REQUIRED")
		c.want("POST", "/api/console/v1/session", `{"email":"jo.agent@example.com","password":"Console-Pass-2026!"}`, 401, "INVALID_CREDENTIALS")
	})
}

func eachConsole(t *testing.T, fn func(t *testing.T, a *App, clock *testclock.Clock)) {
	eachConsoleAt(t, testclock.New, fn)
}

// eachConsoleAt runs fn on a console app over each database, its clock
// made by start.
func eachConsoleAt(t *testing.T, start func() *testclock.Clock, fn func(t *testing.T, a *App, clock *testclock.Clock)) {
	testenv.EachURL(t, true, func(t *testing.T, url string) {
		clock := start()
		fn(t, consoleApp(t, url, clock), clock)
	})
}

// TestConsoleAndPortalSessionsApart: a customer's session cookie is never
// a console session (nor is the portal there), and a staff session cookie
// is never a customer's on a brand host.
func TestConsoleAndPortalSessionsApart(t *testing.T) {
	eachConsole(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		ctx := context.Background()
		if _, err := devseed.Accounts(ctx, a.DB, a.Brands.All(), account.NewHasher(testHashParams), clock.Now()); err != nil {
			t.Fatal(err)
		}
		belair, _ := a.Brands.ByID("belair")
		customer := siteBrowser(t, a, "belair")
		customer.header.Set("Content-Type", "application/x-www-form-urlencoded")
		status, _ := customer.do("POST", "/pkmslogin.form", "login-form-type=pwd&username=demo%40belair.example&password=Guichet-Demo-2026%21")
		customer.header.Del("Content-Type")
		if status != http.StatusSeeOther || customer.cookies[sso.CookieName] == "" {
			t.Fatalf("customer sign-in: %d %v", status, customer.cookies)
		}
		customer.want("GET", "/api/v1/me", "", 200, "")

		// The customer's cookies on the console host.
		onConsole := newBrowser(t, a, consoleHost)
		onConsole.cookies = customer.cookies
		onConsole.header.Set("api-key", belair.APIKey)
		onConsole.want("GET", "/api/console/v1/session", "", 401, "SIGN_IN_REQUIRED")
		onConsole.want("GET", "/api/v1/me", "", 404, "NOT_FOUND")
		onConsole.want("POST", "/api/v1/logout", "", 404, "NOT_FOUND")
		// Even under the staff cookie's name, a customer's token is nothing here.
		onConsole.cookies = map[string]string{staff.CookieName: customer.cookies[sso.CookieName]}
		onConsole.want("GET", "/api/console/v1/session", "", 401, "SIGN_IN_REQUIRED")

		// A staff session on a brand host: not a customer's, no console API.
		_, token, _ := a.Staff.Add(ctx, staff.NewMember{Email: "kim@example.com", Name: "Kim", Role: staff.RoleAgent}, "cli")
		info, _ := a.Staff.Setup(ctx, token)
		opened, _, err := a.Staff.CompleteSetup(ctx, token, "Console-Pass-2026!", staff.TOTP(info.Secret, clock.Now()), "")
		if err != nil {
			t.Fatal(err)
		}
		onBrand := siteBrowser(t, a, "belair")
		onBrand.cookies = map[string]string{staff.CookieName: opened.Token, sso.CookieName: opened.Token}
		onBrand.want("GET", "/api/v1/me", "", 401, "UNAUTHENTICATED")
		onBrand.want("GET", "/api/console/v1/session", "", 404, "NOT_FOUND")
		staffOnConsole := newBrowser(t, a, consoleHost)
		staffOnConsole.cookies = map[string]string{staff.CookieName: opened.Token}
		staffOnConsole.want("GET", "/api/console/v1/session", "", 200, "")
	})
}

// TestConsoleAnswersMatchOpenAPI: the session and set-up answers conform to
// api/openapi.yaml's schemas (the console SPA's generated types); code
// requests take one of code or recoveryCode (reauth: code only); a
// recovery code signs in once.
func TestConsoleAnswersMatchOpenAPI(t *testing.T) {
	eachConsole(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		ctx := context.Background()
		schemas := apitest.Schemas(t)
		conform := func(name string, v map[string]any) {
			t.Helper()
			if err := apitest.Conform(schemas, name, v); err != nil {
				t.Fatalf("%s: %v: %v", name, err, v)
			}
		}
		_, token, err := a.Staff.Add(ctx, staff.NewMember{Email: "val@example.com", Name: "Val", Role: staff.RoleSupervisor, Brands: []string{"intact"}}, "cli")
		if err != nil {
			t.Fatal(err)
		}
		c := newBrowser(t, a, consoleHost)
		setup := c.want("GET", "/api/console/v1/setup/"+token, "", 200, "")
		conform("StaffSetup", setup)
		secret, _ := staff.DecodeSecret(setup["secret"].(string))
		done := c.want("POST", "/api/console/v1/setup/"+token, `{"password":"Console-Pass-2026!","code":"`+staff.TOTP(secret, clock.Now())+`"}`, 200, "")
		conform("StaffSetupDone", done)
		conform("StaffMe", c.want("GET", "/api/console/v1/session", "", 200, ""))
		conform("Error", c.want("POST", "/api/console/v1/session/reauth", `{"recoveryCode":"abcd-efgh-jkmn"}`, 400, "VALIDATION"))
		c.want("POST", "/api/console/v1/session/reauth", `{}`, 400, "VALIDATION")
		c.want("POST", "/api/console/v1/session/reauth", `{"code":"1","extra":1}`, 400, "")
		clock.Advance(staff.Period)
		conform("StaffSignedIn", c.want("POST", "/api/console/v1/session/reauth", `{"code":"`+staff.TOTP(secret, clock.Now())+`"}`, 200, ""))

		recovery := done["recoveryCodes"].([]any)[3].(string)
		for i, want := range []int{200, 401} {
			s := newBrowser(t, a, consoleHost)
			next := s.want("POST", "/api/console/v1/session", `{"email":"val@example.com","password":"Console-Pass-2026!"}`, 200, "")
			conform("StaffSignInNext", next)
			s.want("POST", "/api/console/v1/session/totp", `{"code":"123456","recoveryCode":"`+recovery+`"}`, 400, "VALIDATION")
			got, out := s.do("POST", "/api/console/v1/session/totp", `{"recoveryCode":"`+recovery+`"}`)
			if got != want {
				t.Fatalf("recovery code, use %d: %d %v", i+1, got, out)
			}
			if want == 200 {
				conform("StaffSignedIn", out)
			}
		}
		// The 10 KB body, the wrong type: 4xx, never 5xx.
		for _, body := range []string{`{"email":1}`, `[]`, `{"email":"` + strings.Repeat("a", 10<<10) + `@example.com","password":"x"}`} {
			if got, out := c.do("POST", "/api/console/v1/session", body); got < 400 || got >= 500 {
				t.Fatalf("%.40s: %d %v", body, got, out)
			}
		}
	})
}
