package app

import (
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/descope/virtualwebauthn"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/audit"
	"guichet/internal/maintenance"
	"guichet/internal/oidc"
	"guichet/internal/staff"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

// softKey is a software authenticator (github.com/descope/virtualwebauthn:
// an ECDSA P-256 key, packed self attestation) holding one passkey made
// on a brand's host, as a phone's platform authenticator would.
type softKey struct {
	rp   virtualwebauthn.RelyingParty
	auth virtualwebauthn.Authenticator
	cred virtualwebauthn.Credential
}

func newSoftKey(w *rpWorld, brand string) *softKey {
	return &softKey{
		rp:   virtualwebauthn.RelyingParty{ID: brand + ".localhost", Name: brand, Origin: w.issuer(brand)},
		auth: virtualwebauthn.NewAuthenticator(),
		cred: fullLengthCredential(),
	}
}

// fullLengthCredential is a P-256 credential whose public key's X and Y
// are both 32 bytes: virtualwebauthn writes them with big.Int.Bytes(),
// which drops leading zero bytes, and about one key in 128 then came out
// short and was refused as invalid (a test that failed by chance).
func fullLengthCredential() virtualwebauthn.Credential {
	for {
		cred := virtualwebauthn.NewCredential(virtualwebauthn.KeyTypeEC2)
		key, err := x509.ParsePKCS8PrivateKey(cred.Key.Data)
		if err != nil {
			panic(err)
		}
		if ec, ok := key.(*ecdsa.PrivateKey); ok && len(ec.X.Bytes()) == 32 && len(ec.Y.Bytes()) == 32 {
			return cred
		}
	}
}

// options re-encodes the ceremony's options as the browser receives them.
func ceremonyOptions(t *testing.T, out map[string]any) string {
	t.Helper()
	b, err := json.Marshal(out["options"])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// create answers a registration's options as navigator.credentials.create.
func (k *softKey) create(t *testing.T, begun map[string]any) string {
	t.Helper()
	o, err := virtualwebauthn.ParseAttestationOptions(ceremonyOptions(t, begun))
	if err != nil {
		t.Fatalf("creation options: %v", err)
	}
	if o.RelyingPartyID != k.rp.ID {
		t.Fatalf("relying party %q, want %q", o.RelyingPartyID, k.rp.ID)
	}
	k.auth.Options.UserHandle = []byte(o.UserID)
	k.auth.AddCredential(k.cred)
	return virtualwebauthn.CreateAttestationResponse(k.rp, k.auth, k.cred, *o)
}

// get answers an assertion's options as navigator.credentials.get.
func (k *softKey) get(t *testing.T, begun map[string]any) string {
	t.Helper()
	o, err := virtualwebauthn.ParseAssertionOptions(ceremonyOptions(t, begun))
	if err != nil {
		t.Fatalf("request options: %v", err)
	}
	return virtualwebauthn.CreateAssertionResponse(k.rp, k.auth, k.cred, *o)
}

func finishBody(challengeID, name, credential string) string {
	b, _ := json.Marshal(map[string]any{"challengeId": challengeID, "name": name, "credential": json.RawMessage(credential)})
	return string(b)
}

// addPasskey adds k's passkey to the signed-in account.
func (w *rpWorld) addPasskey(brand string, k *softKey, name string) map[string]any {
	w.t.Helper()
	status, begun := w.api(brand, "POST", "/api/v1/me/passkeys/registration", "")
	if status != http.StatusOK {
		w.t.Fatalf("begin registration: %d %v", status, begun)
	}
	status, out := w.api(brand, "POST", "/api/v1/me/passkeys", finishBody(begun["challengeId"].(string), name, k.create(w.t, begun)))
	if status != http.StatusCreated {
		w.t.Fatalf("finish registration: %d %v", status, out)
	}
	return out
}

// passkeySignIn signs in with k as the login page does (begin, the
// browser's assertion, finish) and returns the finish call's answer.
func (w *rpWorld) passkeySignIn(brand string, k *softKey) (int, map[string]any) {
	w.t.Helper()
	status, begun := w.api(brand, "POST", "/api/v1/passkeys/login", "")
	if status != http.StatusOK {
		return status, begun
	}
	return w.api(brand, "POST", "/api/v1/passkeys/login/finish", finishBody(begun["challengeId"].(string), "", k.get(w.t, begun)))
}

// formPost presents a login ticket to the SSO form post as the SPA does.
func (w *rpWorld) formPost(brand, email, ticket string) *http.Response {
	w.t.Helper()
	form := url.Values{"login-form-type": {"pwd"}, "username": {email}, "password": {""}, "ticket": {ticket}}
	res, err := w.browser.PostForm(w.issuer(brand)+"/pkmslogin.form", form)
	if err != nil {
		w.t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// TestPasskeys: a passkey is added after a fresh proof (its creation
// options name the brand's host as relying party), listed, renamed, signs
// in through the SSO form post like a password (a fresh session), proves
// a re-authentication, and is removed after a fresh proof; every ceremony
// is single use; another account cannot remove it; another brand's host
// does not accept it (issue 31).
func TestPasskeys(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		w.signIn("belair", demoEmail, demoPassword)
		if status, out := w.api("belair", "GET", "/api/v1/me/passkeys", ""); status != http.StatusOK || out["offer"] != true ||
			len(out["passkeys"].([]any)) != 0 {
			t.Fatalf("before: %d %v", status, out)
		}
		key := newSoftKey(w, "belair")
		added := w.addPasskey("belair", key, "  My phone ")
		if added["name"] != "My phone" || added["lastUsedAt"] != nil {
			t.Fatalf("added: %v", added)
		}
		id := added["id"].(string)
		status, out := w.api("belair", "GET", "/api/v1/me/passkeys", "")
		if list := out["passkeys"].([]any); status != http.StatusOK || len(list) != 1 || out["offer"] != false ||
			list[0].(map[string]any)["id"] != id {
			t.Fatalf("list: %d %v", status, out)
		}

		// A ceremony is single use: its answer sent twice is refused.
		status, begun := w.api("belair", "POST", "/api/v1/me/passkeys/registration", "")
		if status != http.StatusOK || len(begun["options"].(map[string]any)["publicKey"].(map[string]any)["excludeCredentials"].([]any)) != 1 {
			t.Fatalf("second registration: %d %v", status, begun)
		}
		other := newSoftKey(w, "belair")
		body := finishBody(begun["challengeId"].(string), "Laptop", other.create(t, begun))
		if status, out := w.api("belair", "POST", "/api/v1/me/passkeys", body); status != http.StatusCreated {
			t.Fatalf("laptop: %d %v", status, out)
		}
		if status, out := w.api("belair", "POST", "/api/v1/me/passkeys", body); status != http.StatusBadRequest || out["errorCode"] != "PASSKEY_EXPIRED" {
			t.Fatalf("the same answer again: %d %v", status, out)
		}
		if status, out := w.api("belair", "PATCH", "/api/v1/me/passkeys/"+id, `{"name":"Pixel"}`); status != http.StatusNoContent {
			t.Fatalf("rename: %d %v", status, out)
		}
		if status, out := w.api("belair", "PATCH", "/api/v1/me/passkeys/"+id, `{"name":"  "}`); status != http.StatusBadRequest {
			t.Fatalf("empty name: %d %v", status, out)
		}

		// Past 10 minutes, adding and removing want a fresh proof.
		w.advance("11m")
		for _, call := range [][2]string{{"POST", "/api/v1/me/passkeys/registration"}, {"DELETE", "/api/v1/me/passkeys/" + id}} {
			if status, out := w.api("belair", call[0], call[1], ""); status != http.StatusForbidden || out["errorCode"] != "REAUTH_REQUIRED" {
				t.Fatalf("%s stale: %d %v", call[1], status, out)
			}
		}
		// A passkey is a proof.
		status, begun = w.api("belair", "POST", "/api/v1/me/reauth/passkey", "")
		if status != http.StatusOK {
			t.Fatalf("begin reauth: %d %v", status, begun)
		}
		answer := finishBody(begun["challengeId"].(string), "", key.get(t, begun))
		if status, out := w.api("belair", "POST", "/api/v1/me/reauth/passkey/finish", answer); status != http.StatusOK || !w.fresh("belair") {
			t.Fatalf("reauth by passkey: %d %v", status, out)
		}
		if status, out := w.api("belair", "POST", "/api/v1/me/reauth/passkey/finish", answer); status != http.StatusBadRequest || out["errorCode"] != "PASSKEY_EXPIRED" {
			t.Fatalf("reauth answer again: %d %v", status, out)
		}

		// Signed out, the passkey signs in: a ticket for the form post.
		if status, _ := w.api("belair", "POST", "/api/v1/logout", ""); status != http.StatusNoContent {
			t.Fatalf("logout: %d", status)
		}
		w.advance("11m")
		status, begun = w.api("belair", "POST", "/api/v1/passkeys/login", "")
		if pk := begun["options"].(map[string]any)["publicKey"].(map[string]any); status != http.StatusOK || pk["rpId"] != "belair.localhost" ||
			pk["allowCredentials"] != nil {
			t.Fatalf("begin login: %d %v", status, begun)
		}
		answer = finishBody(begun["challengeId"].(string), "", key.get(t, begun))
		status, signed := w.api("belair", "POST", "/api/v1/passkeys/login/finish", answer)
		if status != http.StatusOK || signed["email"] != demoEmail || signed["loginTicket"] == "" {
			t.Fatalf("finish login: %d %v", status, signed)
		}
		if status, out := w.api("belair", "POST", "/api/v1/passkeys/login/finish", answer); status != http.StatusBadRequest || out["errorCode"] != "PASSKEY_EXPIRED" {
			t.Fatalf("the same assertion again: %d %v", status, out)
		}
		if res := w.formPost("belair", demoEmail, signed["loginTicket"].(string)); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/my-account" {
			t.Fatalf("form post: %d %q", res.StatusCode, res.Header.Get("Location"))
		}
		if status, me := w.api("belair", "GET", "/api/v1/me", ""); status != http.StatusOK || me["email"] != demoEmail || !w.fresh("belair") {
			t.Fatalf("signed in by passkey: %d %v", status, me)
		}
		_, out = w.api("belair", "GET", "/api/v1/me/passkeys", "")
		used := 0
		for _, p := range out["passkeys"].([]any) {
			if p := p.(map[string]any); p["id"] == id && p["name"] == "Pixel" && p["lastUsedAt"] != nil {
				used++
			}
		}
		if used != 1 {
			t.Fatalf("after the sign-in: %v", out)
		}

		// Another brand's host is another relying party: belair's passkey
		// means nothing there, and another account cannot remove it.
		stranger := w.browserAs("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
		strangerKey := newSoftKey(w, "intact")
		strangerKey.auth, strangerKey.cred = key.auth, key.cred
		if status, out := stranger.passkeySignIn("intact", strangerKey); status != http.StatusBadRequest || out["errorCode"] != "3005" {
			t.Fatalf("belair's passkey on intact: %d %v", status, out)
		}
		stranger.signIn("intact", "demo@intact.example", demoPassword)
		if status, _ := stranger.api("intact", "DELETE", "/api/v1/me/passkeys/"+id, ""); status != http.StatusNotFound {
			t.Fatalf("another account removes it: %d", status)
		}
		if status, _ := w.api("belair", "DELETE", "/api/v1/me/passkeys/"+id, ""); status != http.StatusNoContent {
			t.Fatalf("remove: %d", status)
		}
		if status, _ := w.api("belair", "DELETE", "/api/v1/me/passkeys/"+id, ""); status != http.StatusNotFound {
			t.Fatalf("remove again: %d", status)
		}
		// A removed passkey signs nobody in.
		if status, out := w.passkeySignIn("belair", key); status != http.StatusBadRequest || out["errorCode"] != "3005" {
			t.Fatalf("removed passkey: %d %v", status, out)
		}
	})
}

// TestPasskeySignInObeysTheAccount: a passkey signs in only when a
// password would: not into a locked account, not into a disabled one (the
// block roadblock), not under maintenance (issue 31).
func TestPasskeySignInObeysTheAccount(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		w.signIn("belair", demoEmail, demoPassword)
		key := newSoftKey(w, "belair")
		w.addPasskey("belair", key, "Phone")
		w.api("belair", "POST", "/api/v1/logout", "")

		// Locked by wrong passwords.
		for range 10 {
			w.api("belair", "POST", "/api/v1/accounts/"+w.account+"/authentication", `{"password":"Wrong-Horse-9!"}`)
		}
		if status, out := w.passkeySignIn("belair", key); status != http.StatusBadRequest || out["errorCode"] != "3005" {
			t.Fatalf("locked: %d %v", status, out)
		}
		w.advance("2h")
		if status, out := w.passkeySignIn("belair", key); status != http.StatusOK {
			t.Fatalf("lock over: %d %v", status, out)
		}

		// Disabled by staff.
		if err := w.a.Accounts.Disable(t.Context(), "belair", w.account, "staff:test", "127.0.0.1"); err != nil {
			t.Fatal(err)
		}
		if status, out := w.passkeySignIn("belair", key); status != http.StatusForbidden || out["errorCode"] != "3001" {
			t.Fatalf("disabled: %d %v", status, out)
		}
		if err := w.a.Accounts.Enable(t.Context(), "belair", w.account, "staff:test", "127.0.0.1"); err != nil {
			t.Fatal(err)
		}

		// Under maintenance, neither call is served.
		now := w.a.cfg.clock()()
		if err := maintenance.On(t.Context(), w.a.DB, maintenance.Change{Brand: "belair", At: now, Actor: "cli"}); err != nil {
			t.Fatal(err)
		}
		w.advance("2s")
		if status, out := w.passkeySignIn("belair", key); status != http.StatusServiceUnavailable || out["errorCode"] != "MAINTENANCE" {
			t.Fatalf("maintenance: %d %v", status, out)
		}
	})
}

// TestConsolePasskeys: staff see how many passkeys a customer has and
// remove them all (fresh factor; audited with the staff member as actor).
func TestConsolePasskeys(t *testing.T) {
	eachConsole(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		ctx := t.Context()
		id := accounttest.Insert(t, a.DB, clock.Now(), account.Account{Brand: "belair", Email: "keys@example.com", FirstName: "Kim"}).ID
		for _, k := range []string{"AAAAAAAAAAAAAAAAAAAAAA", "BBBBBBBBBBBBBBBBBBBBBB"} {
			insertPasskeyRow(t, a.DB, id, k, clock.Now().UnixMilli())
		}
		agent := signedInStaff(t, a, clock, "agent.keys@example.com", staff.RoleAgent, []string{"belair"})
		if got := agent.want("GET", "/api/console/v1/customers/"+id, "", 200, ""); got["passkeys"] != float64(2) {
			t.Fatalf("count: %v", got["passkeys"])
		}
		agent.want("POST", "/api/console/v1/customers/"+id+"/passkeys/remove", "", 200, "")
		if got := agent.want("GET", "/api/console/v1/customers/"+id, "", 200, ""); got["passkeys"] != float64(0) {
			t.Fatalf("after the removal: %v", got["passkeys"])
		}
		events, err := audit.ForAccount(ctx, a.DB, "belair", id, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(events, func(e audit.Event) bool {
			return e.Event == audit.PasskeyRemove && e.Detail == "staff_2" && strings.HasPrefix(e.Actor, "staff:")
		}) {
			t.Fatalf("no audit row of the removal: %v", events)
		}
	})
}
