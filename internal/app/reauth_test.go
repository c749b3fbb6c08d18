package app

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"guichet/internal/oidc"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// newestMail is the text of the newest message the dev mailbox holds for
// to (the worker delivers at once when poked; the loop only bounds a
// failure).
func (w *rpWorld) newestMail(brand, to string) string {
	w.t.Helper()
	for range 500 {
		res, err := w.browser.Get(w.issuer(brand) + "/_dev/mail.json?limit=1&to=" + url.QueryEscape(to))
		if err != nil {
			w.t.Fatal(err)
		}
		var mail []struct {
			Text string `json:"text"`
		}
		_ = json.NewDecoder(res.Body).Decode(&mail)
		res.Body.Close()
		if len(mail) > 0 {
			return mail[0].Text
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.t.Fatalf("no message to %s", to)
	return ""
}

// codeMailed is the six digits of the newest message to "to" that differs
// from the one before (the dev mailbox keeps the old ones).
func (w *rpWorld) codeMailed(brand, to, before string) string {
	w.t.Helper()
	for range 500 {
		if code := sixDigits.FindString(w.newestMail(brand, to)); code != "" && code != before {
			return code
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.t.Fatalf("no new code mailed to %s", to)
	return ""
}

// fresh reports whether this browser's session may make a security change.
func (w *rpWorld) fresh(brand string) bool {
	w.t.Helper()
	status, out := w.api(brand, "GET", "/api/v1/me/reauth", "")
	if status != http.StatusOK {
		w.t.Fatalf("reauth status: %d %v", status, out)
	}
	return out["freshUntil"] != nil
}

// advance moves the --dev clock.
func (w *rpWorld) advance(by string) {
	w.t.Helper()
	if status, out := w.api("belair", "POST", "/_dev/clock", `{"advance":"`+by+`"}`); status != http.StatusOK {
		w.t.Fatalf("advance the clock: %d %v", status, out)
	}
}

// TestReauth: a sign-in is a fresh proof for 10 minutes; after that, the
// password (checked as a sign-in checks it) or a code emailed to the
// account's address proves again; a code is single use, five wrong
// guesses end it, and a session asks for at most five (issue 31).
func TestReauth(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		if status, _ := w.api("belair", "GET", "/api/v1/me/reauth", ""); status != http.StatusUnauthorized {
			t.Fatalf("without a session: %d", status)
		}
		w.signIn("belair", demoEmail, demoPassword)
		if !w.fresh("belair") {
			t.Fatal("a sign-in is not a fresh proof")
		}
		w.advance("10m1s")
		if w.fresh("belair") {
			t.Fatal("a proof older than 10 minutes still counts")
		}

		prove := func(body string) (int, map[string]any) { return w.api("belair", "POST", "/api/v1/me/reauth", body) }
		// proved fails the test unless the proof is answered status with the
		// errorCode code, or, code "", with a freshUntil.
		proved := func(what, body string, status int, code string) {
			t.Helper()
			got, out := prove(body)
			if got != status || code != "" && out["errorCode"] != code || code == "" && out["freshUntil"] == nil {
				t.Fatalf("%s: %d %v, want %d %s", what, got, out, status, code)
			}
		}
		proved("a wrong password", `{"password":"Not-The-Password-1!"}`, http.StatusBadRequest, "WRONG_CURRENT_PASSWORD")
		for _, bad := range []string{`{}`, `{"password":"x","code":"123456"}`, `{"code":"12"}`, `[`, `{"password":7}`} {
			if status, out := prove(bad); status != http.StatusBadRequest {
				t.Fatalf("body %s: %d %v, want 400", bad, status, out)
			}
		}
		if w.fresh("belair") {
			t.Fatal("fresh after refused proofs")
		}
		proved("the password", `{"password":"`+demoPassword+`"}`, http.StatusOK, "")

		// By a code to the email on file.
		w.advance("10m1s")
		proved("a code before any was sent", `{"code":"123456"}`, http.StatusForbidden, "CODE_EXPIRED")
		if status, out := w.api("belair", "POST", "/api/v1/me/reauth/code", ""); status != http.StatusNoContent {
			t.Fatalf("send a code: %d %v", status, out)
		}
		code := w.codeMailed("belair", demoEmail, "")
		wrong := wrongCode(code)
		proved("a wrong code", `{"code":"`+wrong+`"}`, http.StatusBadRequest, "INVALID_ACTIVATION_CODE")
		proved("the code", `{"code":"`+code+`"}`, http.StatusOK, "")
		w.advance("10m1s")
		proved("the code a second time", `{"code":"`+code+`"}`, http.StatusForbidden, "CODE_EXPIRED")

		// Five wrong guesses end a code, the right one included.
		if status, _ := w.api("belair", "POST", "/api/v1/me/reauth/code", ""); status != http.StatusNoContent {
			t.Fatalf("a second code: %d", status)
		}
		code = w.codeMailed("belair", demoEmail, code)
		wrong = wrongCode(code)
		for i := range 5 {
			status, out := prove(`{"code":"` + wrong + `"}`)
			if want := map[bool]int{true: http.StatusForbidden, false: http.StatusBadRequest}[i == 4]; status != want {
				t.Fatalf("wrong guess %d: %d %v, want %d", i+1, status, out, want)
			}
		}
		proved("the right code after five wrong", `{"code":"`+code+`"}`, http.StatusForbidden, "EXCEEDED_RETRIES_CODE_ACTIVATION")
		// A code expires after 10 minutes.
		if status, _ := w.api("belair", "POST", "/api/v1/me/reauth/code", ""); status != http.StatusNoContent {
			t.Fatalf("a third code: %d", status)
		}
		code = w.codeMailed("belair", demoEmail, code)
		w.advance("10m1s")
		proved("an expired code", `{"code":"`+code+`"}`, http.StatusForbidden, "CODE_EXPIRED")
		// Five codes per session.
		for i := range 2 {
			if status, out := w.api("belair", "POST", "/api/v1/me/reauth/code", ""); status != http.StatusNoContent {
				t.Fatalf("code %d: %d %v", i+4, status, out)
			}
		}
		if status, out := w.api("belair", "POST", "/api/v1/me/reauth/code", ""); status != http.StatusTooManyRequests || out["errorCode"] != "RESEND_LIMIT_REACHED" {
			t.Fatalf("a sixth code: %d %v", status, out)
		}

		got := storetest.Strings(t, w.a.DB, "SELECT event || ' ' || outcome FROM audit_events WHERE account_id = ? AND event LIKE 'reauth.%' AND event <> 'reauth.code_send' ORDER BY id", w.account)
		want := []string{"reauth.password wrong_password", "reauth.password ok", "reauth.code expired", "reauth.code wrong_code",
			"reauth.code ok", "reauth.code expired", "reauth.code wrong_code", "reauth.code wrong_code", "reauth.code wrong_code",
			"reauth.code wrong_code", "reauth.code exceeded", "reauth.code exceeded", "reauth.code expired"}
		if !slices.Equal(got, want) {
			t.Fatalf("audit %v\nwant %v", got, want)
		}
		testenv.NoSecretInAudit(t, w.a.DB, demoPassword, code)
	})
}

// TestReauthGuessesRace: concurrent wrong codes are counted one by one
// (each try is counted before the code is compared): no more than four of
// them are answered as a wrong code, the rest as too many.
func TestReauthGuessesRace(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		w.signIn("belair", demoEmail, demoPassword)
		if status, _ := w.api("belair", "POST", "/api/v1/me/reauth/code", ""); status != http.StatusNoContent {
			t.Fatalf("send a code: %d", status)
		}
		code := w.codeMailed("belair", demoEmail, "")
		wrong := wrongCode(code)
		var mu sync.Mutex
		answers := map[int]int{}
		var wg sync.WaitGroup
		for range 24 {
			wg.Go(func() {
				status, _ := w.api("belair", "POST", "/api/v1/me/reauth", `{"code":"`+wrong+`"}`)
				mu.Lock()
				answers[status]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if answers[http.StatusBadRequest] > MaxWrongAnswered || answers[http.StatusBadRequest]+answers[http.StatusForbidden] != 24 {
			t.Fatalf("answers %v: at most %d wrong-code answers, the rest too many", answers, MaxWrongAnswered)
		}
		if status, out := w.api("belair", "POST", "/api/v1/me/reauth", `{"code":"`+code+`"}`); status != http.StatusForbidden {
			t.Fatalf("the right code after the burst: %d %v", status, out)
		}
	})
}

// MaxWrongAnswered is reauth.MaxFailures less the try that ends the code.
const MaxWrongAnswered = 4

// wrongCode is a six-digit code other than code.
func wrongCode(code string) string {
	if code == "000000" {
		return "000001"
	}
	return "000000"
}
