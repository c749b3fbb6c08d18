package app

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/oidc"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

var undoLink = regexp.MustCompile(`http://[^\s"]+/email-undo\?token=([A-Za-z0-9_-]+)`)

// TestEmailChange: after a fresh proof, a code to the new address changes
// the account's email (its username: the old one signs in no more, the
// new one does); the former address gets a notice whose link, once and
// within 72 hours, puts it back, takes the password away until a reset
// and signs the account out everywhere (issue 31).
func TestEmailChange(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		w.signIn("belair", demoEmail, demoPassword)
		const newEmail = "alex.new@example.com"
		start := func(body string) (int, map[string]any) { return w.api("belair", "POST", "/api/v1/me/email", body) }
		confirm := func(code string) (int, map[string]any) {
			return w.api("belair", "POST", "/api/v1/me/email/confirm", `{"code":"`+code+`"}`)
		}

		// Refusals before any code: a stale proof, bad input, the same
		// address, another account's.
		w.advance("10m1s")
		if status, out := start(`{"email":"` + newEmail + `"}`); status != http.StatusForbidden || out["errorCode"] != "REAUTH_REQUIRED" {
			t.Fatalf("a stale proof: %d %v", status, out)
		}
		if status, out := w.api("belair", "POST", "/api/v1/me/reauth", `{"password":"`+demoPassword+`"}`); status != http.StatusOK {
			t.Fatalf("reauth: %d %v", status, out)
		}
		for body, want := range map[string]string{`{"email":"not-an-email"}`: "", `{"email":"DEMO@belair.example"}`: "SAME_EMAIL",
			`{"email":"francais@belair.example"}`: "EMAIL_ALREADY_EXISTS", `[`: ""} {
			if status, out := start(body); status < 400 || status >= 500 || want != "" && out["errorCode"] != want {
				t.Fatalf("%s: %d %v, want a 4xx %s", body, status, out, want)
			}
		}
		if status, out := confirm("123456"); status != http.StatusForbidden || out["errorCode"] != "CODE_EXPIRED" {
			t.Fatalf("a code before any change: %d %v", status, out)
		}

		// The code goes to the new address; a wrong one counts, the right one changes.
		if status, out := start(`{"email":"` + newEmail + `"}`); status != http.StatusNoContent {
			t.Fatalf("start: %d %v", status, out)
		}
		code := w.codeMailed("belair", newEmail, "")
		wrong := wrongCode(code)
		if status, out := confirm(wrong); status != http.StatusBadRequest || out["errorCode"] != "INVALID_ACTIVATION_CODE" {
			t.Fatalf("a wrong code: %d %v", status, out)
		}
		if status, out := confirm(code); status != http.StatusOK || out["email"] != newEmail {
			t.Fatalf("the right code: %d %v", status, out)
		}
		if status, out := confirm(code); status != http.StatusForbidden {
			t.Fatalf("the code again: %d %v", status, out)
		}
		if status, out := w.api("belair", "GET", "/api/v1/me", ""); status != http.StatusOK {
			t.Fatalf("me after the change: %d %v", status, out)
		}
		other := &rpWorld{t: t, a: w.a, port: w.port, addr: w.addr, browser: loopbackClient(w.addr, false)}
		if status, _ := other.api("belair", "POST", "/api/v1/accounts/find", `{"email":"`+demoEmail+`"}`); status == http.StatusOK {
			if status, _ := other.api("belair", "POST", "/api/v1/accounts/"+w.account+"/authentication", `{"password":"`+demoPassword+`"}`); status == http.StatusOK {
				t.Fatal("the former address still signs in")
			}
		}
		other.signIn("belair", newEmail, demoPassword)
		// While the change may be undone, no other change chains after it,
		// and no other account takes the former address.
		if status, out := start(`{"email":"alex.third@example.com"}`); status != http.StatusConflict || out["errorCode"] != "EMAIL_CHANGE_PENDING" {
			t.Fatalf("a second change within 72 hours: %d %v", status, out)
		}
		someone := &rpWorld{t: t, a: w.a, port: w.port, addr: w.addr, browser: loopbackClient(w.addr, false)}
		someone.signIn("belair", "francais@belair.example", demoPassword)
		if status, out := someone.api("belair", "POST", "/api/v1/me/email", `{"email":"`+demoEmail+`"}`); status != http.StatusConflict || out["errorCode"] != "EMAIL_ALREADY_EXISTS" {
			t.Fatalf("another account takes the former address: %d %v", status, out)
		}

		// The former address's notice and its undo link.
		m := undoLink.FindStringSubmatch(w.newestMail("belair", demoEmail))
		if m == nil {
			t.Fatal("no undo link in the notice to the former address")
		}
		undo := func(token string) (int, map[string]any) {
			return other.api("belair", "POST", "/api/v1/email-undo", `{"token":"`+token+`"}`)
		}
		forged := "x" + m[1][1:] // not the token, whatever its first character
		if m[1][0] == 'x' {
			forged = "y" + m[1][1:]
		}
		if status, out := undo(forged); status != http.StatusForbidden || out["errorCode"] != "UNDO_INVALID" {
			t.Fatalf("a forged token: %d %v", status, out)
		}
		// A passkey the intruder could have added goes with the password.
		insertPasskeyRow(t, w.a.DB, w.account, "cred-"+w.account, 1)
		if status, out := undo(m[1]); status != http.StatusNoContent {
			t.Fatalf("undo: %d %v", status, out)
		}
		if rows := storetest.Strings(t, w.a.DB, "SELECT id FROM passkeys WHERE account_id = ?", w.account); len(rows) != 0 {
			t.Fatalf("passkeys left after the undo: %v", rows)
		}
		if status, out := undo(m[1]); status != http.StatusForbidden || out["errorCode"] != "UNDO_INVALID" {
			t.Fatalf("undo twice: %d %v", status, out)
		}
		// Signed out everywhere; the address is back but no password signs in.
		for _, b := range []*rpWorld{w, other} {
			if status, _ := b.api("belair", "GET", "/api/v1/me", ""); status != http.StatusUnauthorized {
				t.Fatalf("a session after the undo: %d", status)
			}
		}
		status, out := other.api("belair", "POST", "/api/v1/accounts/find", `{"email":"`+demoEmail+`"}`)
		if status != http.StatusOK || out["id"] != w.account {
			t.Fatalf("the former address after the undo: %d %v", status, out)
		}
		if status, _ := other.api("belair", "POST", "/api/v1/accounts/"+w.account+"/authentication", `{"password":"`+demoPassword+`"}`); status == http.StatusOK {
			t.Fatal("the password still signs in after the undo")
		}
		got := storetest.Strings(t, w.a.DB, "SELECT event || ' ' || outcome FROM audit_events WHERE event LIKE 'contact.%' ORDER BY id")
		want := []string{"contact.change expired", "contact.start ok", "contact.change wrong_code", "contact.change ok",
			"contact.change expired", "contact.undo invalid", "contact.undo ok", "contact.undo invalid"}
		if !slices.Equal(got, want) {
			t.Fatalf("audit %v\nwant %v", got, want)
		}
	})
}

// TestEmailUndoExpires: the undo link works 72 hours.
func TestEmailUndoExpires(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) { emailUndoExpires(t, databaseURL) })
}

func emailUndoExpires(t *testing.T, databaseURL string) {
	w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
	m := w.changedEmail("alex.late@example.com")
	if u, err := url.Parse(m[0]); err != nil || u.Query().Get("token") != m[1] {
		t.Fatalf("undo link %q", m[0])
	}
	w.advance("72h1s")
	if status, out := w.api("belair", "POST", "/api/v1/email-undo", `{"token":"`+m[1]+`"}`); status != http.StatusForbidden {
		t.Fatalf("undo after 72 hours: %d %v", status, out)
	}
}

// TestPhoneChange: a code by SMS to the new number changes the cell phone.
func TestPhoneChange(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		w.signIn("belair", demoEmail, demoPassword)
		for body, want := range map[string]string{`{"phone":"12"}`: "", `{"phone":"514-555-0123"}`: "SAME_PHONE"} {
			if status, out := w.api("belair", "POST", "/api/v1/me/phone", body); status != http.StatusBadRequest || want != "" && out["errorCode"] != want {
				t.Fatalf("%s: %d %v", body, status, out)
			}
		}
		if status, out := w.api("belair", "POST", "/api/v1/me/phone", `{"phone":"(438) 555-0199"}`); status != http.StatusNoContent {
			t.Fatalf("start: %d %v", status, out)
		}
		code := w.codeMailed("belair", "+14385550199", "")
		if status, out := w.api("belair", "POST", "/api/v1/me/phone/confirm", `{"code":"`+code+`"}`); status != http.StatusOK || out["phone"] != "4385550199" {
			t.Fatalf("confirm: %d %v", status, out)
		}
		if got := storetest.Strings(t, w.a.DB, "SELECT phone FROM accounts WHERE id = ?", w.account); !slices.Equal(got, []string{"4385550199"}) {
			t.Fatalf("phone on file %v", got)
		}
		// The account's address hears of it (the phone proves who a UBI
		// driver is to a password reset), with the way to secure it.
		if notice := w.newestMail("belair", demoEmail); !strings.Contains(notice, "/forgot?lang=en") || !strings.Contains(notice, "cell phone") {
			t.Fatalf("the phone-changed notice: %q", notice)
		}
	})
}

// TestEmailUndoWhenTaken: should another account hold the former address
// by the time its link is used (a registration, which the change does not
// reserve it against), the account keeps the new address but is locked
// until staff release it, and signed out: a reset through the intruder's
// address must not give it back.
func TestEmailUndoWhenTaken(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		m := w.changedEmail("alex.taken@example.com")
		accounttest.Insert(t, w.a.DB, time.Now(), account.Account{Brand: "belair", Email: demoEmail})
		if status, out := w.api("belair", "POST", "/api/v1/email-undo", `{"token":"`+m[1]+`"}`); status != http.StatusNoContent {
			t.Fatalf("undo: %d %v", status, out)
		}
		got := storetest.Strings(t, w.a.DB, "SELECT email || ' ' || status || ' ' || password_hash FROM accounts WHERE id = ?", w.account)
		if !slices.Equal(got, []string{"alex.taken@example.com locked "}) {
			t.Fatalf("the account after the undo: %v", got)
		}
		if status, _ := w.api("belair", "GET", "/api/v1/me", ""); status != http.StatusUnauthorized {
			t.Fatalf("signed in after the undo: %d", status)
		}
	})
}

// changedEmail signs the demo policyholder in and changes their email to
// newEmail (the code mailed there confirmed); it returns the undo link of
// the notice to the former address and its token (undoLink's match).
func (w *rpWorld) changedEmail(newEmail string) []string {
	w.t.Helper()
	w.signIn("belair", demoEmail, demoPassword)
	if status, out := w.api("belair", "POST", "/api/v1/me/email", `{"email":"`+newEmail+`"}`); status != http.StatusNoContent {
		w.t.Fatalf("start: %d %v", status, out)
	}
	code := w.codeMailed("belair", newEmail, "")
	if status, out := w.api("belair", "POST", "/api/v1/me/email/confirm", `{"code":"`+code+`"}`); status != http.StatusOK {
		w.t.Fatalf("confirm: %d %v", status, out)
	}
	m := undoLink.FindStringSubmatch(w.newestMail("belair", demoEmail))
	if m == nil {
		w.t.Fatal("no undo link")
	}
	return m
}

// insertPasskeyRow stores a passkey row of belair for the account as it
// is kept, its id the credential's (its key's JSON does not matter to the
// tests that count or remove it).
func insertPasskeyRow(t *testing.T, db *store.DB, accountID, credentialID string, createdAt int64) {
	t.Helper()
	err := db.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.Exec(t.Context(), `INSERT INTO passkeys (id, account_id, brand, rp_id, credential_id, name, credential, created_at)
			VALUES (?, ?, 'belair', 'belair.localhost', ?, 'Phone', '{}', ?)`, credentialID, accountID, credentialID, createdAt)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
