package app

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"guichet/internal/notify"
	"guichet/internal/oidc"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// TestChangePassword: the signed-in customer changes their password on My
// account (issue 31): the current one is checked as a sign-in checks it
// (a wrong one is refused and counts toward the lock), the new one obeys
// spec §5; then this browser stays signed in, every other session and the
// applications' grants end, the old password no longer signs in, and the
// 'password changed' email carries a "this wasn't me" link to /forgot.
func TestChangePassword(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		tok := w.tokens("en") // this browser signs in, and the application gets a grant
		other := &rpWorld{t: t, a: w.a, port: w.port, browser: loopbackClient(w.addr, false)}
		other.signIn("belair", demoEmail, demoPassword)

		change := func(current, next string) (int, map[string]any) {
			t.Helper()
			body, _ := json.Marshal(map[string]string{"currentPassword": current, "newPassword": next})
			return w.api("belair", "POST", "/api/v1/me/password", string(body))
		}
		const newPassword = "Harbour-Lights-2027!"
		if status, out := change("Not-The-Password-1!", newPassword); status != http.StatusBadRequest || out["errorCode"] != "WRONG_CURRENT_PASSWORD" {
			t.Fatalf("a wrong current password: %d %v", status, out)
		}
		if status, out := change(demoPassword, "short"); status != http.StatusBadRequest || out["errorCode"] == nil {
			t.Fatalf("a new password against the rules: %d %v", status, out)
		}
		if status, _ := change(demoPassword, "x"+demoEmail); status != http.StatusBadRequest {
			t.Fatalf("a new password holding the email: %d", status)
		}
		for _, bad := range []string{`[`, `{"currentPassword":1}`, strings.Repeat(" ", 2<<20)} {
			if status, out := w.api("belair", "POST", "/api/v1/me/password", bad); status < 400 || status >= 500 {
				t.Fatalf("body %.20q: %d %v, want a 4xx", bad, status, out)
			}
		}
		if status, _ := other.api("belair", "POST", "/api/v1/me/password", `{}`); status != http.StatusUnauthorized && status != http.StatusBadRequest {
			t.Fatalf("an empty change: %d", status)
		}
		if status, out := change(demoPassword, newPassword); status != http.StatusNoContent {
			t.Fatalf("the change: %d %v", status, out)
		}

		// This browser stays; the other one and the application's grant end.
		if status, _ := w.api("belair", "GET", "/api/v1/me", ""); status != http.StatusOK {
			t.Fatalf("this browser after the change: %d, want 200", status)
		}
		if status, _ := other.api("belair", "GET", "/api/v1/me", ""); status != http.StatusUnauthorized {
			t.Fatalf("the other browser after the change: %d, want 401", status)
		}
		if _, err := w.refresh(tok.RefreshToken); !isInvalidGrant(err) {
			t.Fatalf("the application's grant after the change: %v", err)
		}
		// Without a session: 401, before anything is read.
		if status, out := other.api("belair", "POST", "/api/v1/me/password", `{"currentPassword":"`+newPassword+`","newPassword":"Another-One-2027!"}`); status != http.StatusUnauthorized {
			t.Fatalf("a change without a session: %d %v", status, out)
		}
		// The old password signs in no more; the new one does.
		if status, out := other.api("belair", "POST", "/api/v1/accounts/"+w.account+"/authentication", `{"password":"`+demoPassword+`"}`); status == http.StatusOK {
			t.Fatalf("the old password still signs in: %v", out)
		}
		other.signIn("belair", demoEmail, newPassword)

		// The email, with its link to /forgot, and the audit.
		links := storetest.Strings(t, w.a.DB, "SELECT data FROM outbox WHERE recipient = ? AND template = ?", demoEmail, notify.TemplatePasswordChanged)
		if len(links) != 1 || !strings.Contains(links[0], `/forgot?lang=en`) || strings.Contains(links[0], newPassword) {
			t.Fatalf("the password-changed emails: %v", links)
		}
		testenv.ExpectAudit(t, w.a.DB, w.account, "password.", "password.check wrong_password", "password.check ok", "password.set ok")
		testenv.NoSecretInAudit(t, w.a.DB, demoPassword, newPassword)
	})
}

// TestChangePasswordObeysTheLockout: wrong current passwords lock the
// account as wrong sign-ins do; while locked, even the right one is refused
// with the same answer.
func TestChangePasswordObeysTheLockout(t *testing.T) {
	w := newRPWorld(t, "", "belair", oidc.Confidential)
	w.signIn("belair", demoEmail, demoPassword)
	for i := range 10 {
		if status, out := w.api("belair", "POST", "/api/v1/me/password", `{"currentPassword":"Wrong-Horse-`+string(rune('a'+i))+`1!","newPassword":"Harbour-Lights-2027!"}`); status != http.StatusBadRequest {
			t.Fatalf("wrong try %d: %d %v", i+1, status, out)
		}
	}
	if status, out := w.api("belair", "POST", "/api/v1/me/password", `{"currentPassword":"`+demoPassword+`","newPassword":"Harbour-Lights-2027!"}`); status != http.StatusBadRequest || out["errorCode"] != "WRONG_CURRENT_PASSWORD" {
		t.Fatalf("the right password on a locked account: %d %v", status, out)
	}
}
