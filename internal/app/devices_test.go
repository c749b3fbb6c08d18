package app

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"guichet/internal/notify"
	"guichet/internal/oidc"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// browserAs is a visitor's browser that says it is ua.
func (w *rpWorld) browserAs(ua string) *rpWorld {
	c := loopbackClient(w.addr, false)
	c.Transport = withHeader{next: c.Transport, name: "User-Agent", value: ua}
	return &rpWorld{t: w.t, a: w.a, port: w.port, addr: w.addr, browser: c}
}

// TestDevices: My account lists where the customer is signed in (browser
// and system from the User-Agent, this browser marked), ends one session or
// every one but this browser's (issue 31).
func TestDevices(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		phone := w.browserAs("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1")
		laptop := w.browserAs("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0")
		tablet := w.browserAs("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
		for _, b := range []*rpWorld{phone, laptop, tablet} {
			b.signIn("belair", demoEmail, demoPassword)
		}
		status, out := phone.api("belair", "GET", "/api/v1/me/sessions", "")
		list, _ := out["sessions"].([]any)
		if status != http.StatusOK || len(list) != 3 {
			t.Fatalf("sessions: %d %v", status, out)
		}
		seen := map[string]map[string]any{}
		for _, item := range list {
			s := item.(map[string]any)
			seen[s["browser"].(string)+" on "+s["system"].(string)] = s
		}
		this, ok := seen["Safari on iOS"]
		if !ok || this["thisDevice"] != true || seen["Edge on Windows"]["thisDevice"] != false || seen["Firefox on Linux"] == nil {
			t.Fatalf("sessions as listed: %v", list)
		}
		// The phone signs the laptop out.
		laptopID := seen["Edge on Windows"]["id"].(string)
		if status, _ := phone.api("belair", "DELETE", "/api/v1/me/sessions/"+laptopID, ""); status != http.StatusNoContent {
			t.Fatalf("end the laptop's session: %d", status)
		}
		if status, _ := laptop.api("belair", "GET", "/api/v1/me", ""); status != http.StatusUnauthorized {
			t.Fatalf("the laptop after it was signed out: %d", status)
		}
		if status, _ := phone.api("belair", "DELETE", "/api/v1/me/sessions/"+laptopID, ""); status != http.StatusNotFound {
			t.Fatalf("end it again: %d, want 404", status)
		}
		// Another customer's session id is not this one's to end.
		other := w.browserAs("curl/8")
		other.signIn("belair", "francais@belair.example", demoPassword)
		if status, _ := other.api("belair", "DELETE", "/api/v1/me/sessions/"+this["id"].(string), ""); status != http.StatusNotFound {
			t.Fatalf("another customer ending this session: %d, want 404", status)
		}
		// Every other one: the tablet goes, the phone stays.
		if status, out := phone.api("belair", "POST", "/api/v1/me/sessions/end-others", ""); status != http.StatusOK || out["ended"] != float64(1) {
			t.Fatalf("end the others: %d %v", status, out)
		}
		if status, _ := tablet.api("belair", "GET", "/api/v1/me", ""); status != http.StatusUnauthorized {
			t.Fatalf("the tablet after end-others: %d", status)
		}
		if status, out := phone.api("belair", "GET", "/api/v1/me/sessions", ""); status != http.StatusOK || len(out["sessions"].([]any)) != 1 {
			t.Fatalf("sessions after end-others: %d %v", status, out)
		}
		if status, _ := laptop.api("belair", "GET", "/api/v1/me/sessions", ""); status != http.StatusUnauthorized {
			t.Fatalf("the list without a session: %d, want 401", status)
		}
		want := []string{"sso.session_end ok", "sso.session_end ok"}
		if got := storetest.Strings(t, w.a.DB, "SELECT event || ' ' || outcome FROM audit_events WHERE event = 'sso.session_end' ORDER BY id"); !slices.Equal(got, want) {
			t.Fatalf("audit %v", got)
		}
	})
}

// TestNewDeviceNotice: the account's first browser signs in silently; a
// second one gets the customer an email (time, browser, system, a link to
// secure the account), once; a browser unseen for 90 days is new again.
func TestNewDeviceNotice(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		notices := func() []string {
			return storetest.Strings(t, w.a.DB, "SELECT data FROM outbox WHERE recipient = ? AND template = ? ORDER BY created_at", demoEmail, notify.TemplateNewDevice)
		}
		usual := w.browserAs("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0")
		usual.signIn("belair", demoEmail, demoPassword)
		usual.signIn("belair", demoEmail, demoPassword)
		if n := notices(); len(n) != 0 {
			t.Fatalf("the account's first browser was noticed: %v", n)
		}
		stranger := w.browserAs("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
		stranger.signIn("belair", demoEmail, demoPassword)
		n := notices()
		if len(n) != 1 || !strings.Contains(n[0], `"browser":"Firefox"`) || !strings.Contains(n[0], `"system":"Linux"`) ||
			!strings.Contains(n[0], "/forgot?lang=") || !strings.Contains(n[0], `"when":"`) {
			t.Fatalf("the notice of a new browser: %v", n)
		}
		stranger.signIn("belair", demoEmail, demoPassword)
		if n := notices(); len(n) != 1 {
			t.Fatalf("a known browser noticed again: %d notices", len(n))
		}
		// 91 days later the stranger's browser is new again; the usual one
		// (seen as recently) too, once.
		if status, out := w.api("belair", "POST", "/_dev/clock", `{"advance":"2184h"}`); status != http.StatusOK {
			t.Fatalf("advance the clock: %d %v", status, out)
		}
		stranger.signIn("belair", demoEmail, demoPassword)
		if n := notices(); len(n) != 2 {
			t.Fatalf("a browser back after 91 days: %d notices, want 2", len(n))
		}
		got := storetest.Strings(t, w.a.DB, "SELECT event || ' ' || outcome FROM audit_events WHERE event = 'sso.new_device' ORDER BY id")
		if !slices.Equal(got, []string{"sso.new_device notified", "sso.new_device notified"}) {
			t.Fatalf("audit %v", got)
		}
	})
}
