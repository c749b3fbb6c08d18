package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"guichet/internal/staff"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
)

// consoleHost is the tests' GUICHET_CONSOLE_HOST.
const consoleHost = "console.example.test"

// consoleApp is testApp with a console host and an injected clock.
func consoleApp(t *testing.T, databaseURL string, clock *testclock.Clock) *App {
	t.Helper()
	a, err := New(context.Background(), Config{
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

// do sends a request and decodes a JSON answer into a map.
func (b *browser) do(method, path, body string) (int, map[string]any) {
	b.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Host = b.host
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range b.header {
		req.Header[k] = v
	}
	for name, value := range b.cookies {
		req.AddCookie(&http.Cookie{Name: name, Value: value})
	}
	rec := httptest.NewRecorder()
	b.a.Handler.ServeHTTP(rec, req)
	for _, c := range rec.Result().Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	var out map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	if out == nil {
		out = map[string]any{"body": rec.Body.String()}
	}
	return rec.Code, out
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
			{staff.EventAdd, "ok", 1}, {staff.EventSetup, "ok", 1}, {staff.EventSignOut, "ok", 1},
			{staff.EventSignIn, "wrong_password", 1}, {staff.EventSignIn, "password_ok", 1},
			{staff.EventSignIn, "wrong_code", 1}, {staff.EventSignIn, "ok", 1},
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
	t.Run("sqlite", func(t *testing.T) {
		clock := testclock.New()
		fn(t, consoleApp(t, "", clock), clock)
	})
	t.Run("postgres", func(t *testing.T) {
		clock := testclock.New()
		fn(t, consoleApp(t, storetest.PostgresURL(t), clock), clock)
	})
}
