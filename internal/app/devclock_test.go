package app

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/testenv"
)

// TestDevClock: a --dev server's one clock moves forward on POST
// /_dev/clock, and the domain services read it: a login ticket the account
// service issued is refused once the clock passed its lifetime (the browser
// tests of an expiry move the clock instead of waiting). Bad moves are 400;
// outside --dev there is no such route.
func TestDevClock(t *testing.T) {
	ctx := t.Context()
	a, srv := devApp(t)
	belair, _ := a.Brands.ByID("belair")
	call := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		return apiCall(t, a.Handler, "belair.localhost", belair.APIKey, method, path, body)
	}
	clockNow := func(out map[string]any) time.Time {
		t.Helper()
		at, err := time.Parse(time.RFC3339Nano, out["now"].(string))
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	status, got := call("GET", "/_dev/clock", "")
	if status != 200 {
		t.Fatalf("GET /_dev/clock: %d %v", status, got)
	}
	before := clockNow(got)
	for _, bad := range []string{`{"advance":"-1s"}`, `{"advance":"0s"}`, `{"advance":"soon"}`, `{"advance":"9000h"}`, `{}`, `{"back":"1s"}`, `[`} {
		if status, out := call("POST", "/_dev/clock", bad); status != 400 || out["errorCode"] == nil {
			t.Fatalf("POST /_dev/clock %s: %d %v, want 400 with an error code", bad, status, out)
		}
	}

	// A login ticket, then the clock past its lifetime: the SSO form post
	// refuses it (the account service reads the moved clock).
	_, found := call("POST", "/api/v1/accounts/find", `{"email":"demo@belair.example"}`)
	status, auth := call("POST", "/api/v1/accounts/"+found["id"].(string)+"/authentication", `{"password":"Guichet-Demo-2026!"}`)
	if status != 200 {
		t.Fatalf("authentication: %d %v", status, auth)
	}
	status, got = call("POST", "/_dev/clock", `{"advance":"`+(account.TicketTTL+time.Second).String()+`"}`)
	if status != 200 {
		t.Fatalf("POST /_dev/clock: %d %v", status, got)
	}
	if moved := clockNow(got).Sub(before); moved < account.TicketTTL+time.Second {
		t.Fatalf("the clock moved %s, want at least %s", moved, account.TicketTTL+time.Second)
	}
	form := url.Values{"login-form-type": {"pwd"}, "username": {"demo@belair.example"},
		"password": {"Guichet-Demo-2026!"}, "ticket": {auth["loginTicket"].(string)}}
	req, _ := http.NewRequest("POST", srv.URL+"/pkmslogin.form", strings.NewReader(form.Encode()))
	req.Host = "belair.localhost"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode == http.StatusSeeOther && res.Header.Get("Location") == "/my-account" {
		t.Fatal("an expired login ticket opened a session: the account service does not read the dev clock")
	}

	// Outside --dev the route does not exist.
	prod, err := newApp(ctx, Config{DataDir: t.TempDir(), BrandsDir: "../../config/brands", Mail: "log"})
	if err != nil {
		t.Fatal(err)
	}
	defer prod.DB.Close()
	rec := testenv.Do(t, prod.Handler, testenv.Request{Method: "POST", Path: "/_dev/clock", Host: "belair.localhost", Body: `{"advance":"1h"}`})
	if rec.Status == 200 {
		t.Fatalf("POST /_dev/clock outside --dev: %d", rec.Status)
	}
}
