package staff

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// TestGuard: the middleware puts the Principal in the context of a signed-
// in session only; a state-changing call wants a fresh factor, a read does
// not.
func TestGuard(t *testing.T) {
	f := newFixture(t, storetest.Open(t))
	h := &Handler{Service: f.s}
	var seen Principal
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, _ = PrincipalFrom(r.Context())
		w.WriteHeader(http.StatusNoContent)
	})
	guarded := h.Guard(next)
	call := func(method, cookieName, token string) (int, string) {
		req := testenv.Request{Method: method, Path: "/api/console/v1/anything"}
		if token != "" {
			req.Cookies = []*http.Cookie{{Name: cookieName, Value: token}}
		}
		seen = Principal{}
		got := testenv.Do(t, guarded, req)
		return got.Status, string(got.Body)
	}
	if code, body := call("GET", CookieName, ""); code != 401 || !strings.Contains(body, "SIGN_IN_REQUIRED") {
		t.Fatalf("no cookie: %d %s", code, body)
	}
	pending, err := f.s.SignIn(t.Context(), f.m.Email, password, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := call("GET", CookieName, pending); code != 401 {
		t.Fatalf("pending session: %d", code)
	}
	tok := f.signIn(t)
	// The customers' cookie name carries nothing here.
	if code, _ := call("GET", "__Host-guichet_session", tok); code != 401 {
		t.Fatalf("customer cookie: %d", code)
	}
	if code, _ := call("POST", CookieName, tok); code != 204 || seen.ID != f.m.ID || seen.Role != RoleSupervisor {
		t.Fatalf("fresh POST: %d %+v", code, seen)
	}
	f.clock.Advance(10 * time.Minute) // a read in between keeps it from idling out
	if code, _ := call("GET", CookieName, tok); code != 204 {
		t.Fatalf("GET at 10 min: %d", code)
	}
	f.clock.Advance(FreshFactor - 10*time.Minute + time.Millisecond)
	if code, _ := call("GET", CookieName, tok); code != 204 || seen.ID != f.m.ID {
		t.Fatalf("stale GET: %d", code)
	}
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		if code, body := call(m, CookieName, tok); code != 401 || !strings.Contains(body, "REAUTH_REQUIRED") || seen.ID != "" {
			t.Fatalf("stale %s: %d %s", m, code, body)
		}
	}
	if _, err := f.s.Reauth(t.Context(), tok, TOTP(f.secret, f.clock.Now()), ""); err != nil {
		t.Fatal(err)
	}
	if code, _ := call("POST", CookieName, tok); code != 204 {
		t.Fatalf("POST after reauth: %d", code)
	}
}

// TestCookie: __Host-, HttpOnly, Secure, SameSite=Strict, Path=/; the dev
// name over plain http in --dev only.
func TestCookie(t *testing.T) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/", nil)
	(&Handler{}).setCookie(rec, req, "tok")
	c := rec.Result().Cookies()[0]
	if c.Name != CookieName || !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Domain != "" {
		t.Fatalf("cookie %+v", c)
	}
	rec = httptest.NewRecorder()
	(&Handler{Dev: true}).setCookie(rec, req, "tok")
	if c := rec.Result().Cookies()[0]; c.Name != DevCookieName || c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
		t.Fatalf("dev cookie %+v", c)
	}
}
