package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"guichet/internal/brand"
	"guichet/internal/devseed"
	"guichet/internal/registration"
)

// TestDemoPINOnlyRegistersOnEveryBrand (issue 28) runs the dev application
// as `guichet serve --dev` builds it and registers the PIN-only demo person
// (docs/registration-demo.md: Pia Lettre, no email and no cell phone on file)
// on every brand through legacy registration, the only way to create an
// account on bna, scotia and servus: identification answers the PIN alone
// (spec §4.2 "exactly one option of PIN goes to validation/pin"), the PIN
// answers ask-email, the email typed gets a code, the code verifies it, the
// account is created and signs in. The browser half (the PIN page submits
// with the option it was given) is web/e2e/registration.mjs (run by registration-en.test.mjs and registration-fr.test.mjs).
func TestDemoPINOnlyRegistersOnEveryBrand(t *testing.T) {
	a, srv := devServer(t)
	brands := a.Brands.All()
	if len(brands) != 5 {
		t.Fatalf("%d brands in config/brands, want the 5 of the spec", len(brands))
	}
	for _, b := range brands {
		t.Run(b.ID, func(t *testing.T) {
			call := apiCaller(t, srv, b)

			status, found, _ := call("POST", "/api/v1/accounts/find", map[string]string{
				"policyNumber": devseed.PolicyNumber(b, "REG", 9), "firstName": "Pia", "lastName": "Lettre",
				"dateOfBirth": devseed.DateOfBirth, "postalCode": devseed.PostalCode(b.DefaultProvince)})
			if status != 240 {
				t.Fatalf("find: %d %v", status, found)
			}
			id := found["id"].(string)
			opts := options(t, "find", found)
			// The one real option is the PIN ("I can't use any of these" beside it).
			if got := methods(opts); got != "PIN,NONE" {
				t.Fatalf("find: options %s, want PIN,NONE", got)
			}
			validate := func(optionID string, value string) (int, map[string]any) {
				status, body, _ := call("POST", "/api/v1/registrations/"+id+"/validations/"+optionID+"/", map[string]string{"validationValue": value})
				return status, body
			}
			status, next := validate(opts[0]["id"].(string), devseed.PIN)
			if status != 240 || methods(options(t, "PIN", next)) != "ask-email" {
				t.Fatalf("PIN: %d %v, want 240 ask-email", status, next)
			}
			email := "pia." + b.ID + "@example.com"
			status, next = validate(options(t, "PIN", next)[0]["id"].(string), email)
			// The email is proven by a code, or on a brand proving it by link
			// (scotia's sample file) by the emailed link's token.
			wantStatus, wantMethod, proof := 240, "ask-email-code", newestCode
			if b.EmailByLink() {
				wantStatus, wantMethod, proof = 202, "ask-email-link", newestLinkToken
			}
			if status != wantStatus || methods(options(t, "email", next)) != wantMethod {
				t.Fatalf("email: %d %v, want %d %s", status, next, wantStatus, wantMethod)
			}
			proofOption := options(t, "email", next)[0]["id"].(string)
			status, verified := validate(proofOption, proof(t, call, email))
			if status != 200 || verified["email"] != email {
				t.Fatalf("%s: %d %v, want 200 with the email", wantMethod, status, verified)
			}
			password := "Fresh-Start-2026#"
			status, created, _ := call("POST", "/api/v1/accounts/"+id+"/create", map[string]any{
				"password": password, "passwordConfirmation": password, "termsAccepted": true})
			if status != 201 || created["email"] != email {
				t.Fatalf("create: %d %v", status, created)
			}
			status, account, _ := call("POST", "/api/v1/accounts/find", map[string]string{"email": email})
			if status != 200 || account["status"] != "A" {
				t.Fatalf("the new account: %d %v", status, account)
			}
			status, auth, _ := call("POST", "/api/v1/accounts/"+account["id"].(string)+"/authentication", map[string]string{"password": password})
			if status != 200 || auth["loginTicket"] == "" {
				t.Fatalf("sign-in with the new account: %d %v", status, auth)
			}
		})
	}
}

// TestDemoUBILinkBySpecPath (issue 28): the legacy UBI link posts to spec
// §7's POST api/v1/accounts/{id}/authentication with the registration id
// (the UBI demo driver, REG-0007 Ubald Conduit, without an email token: the
// password alone), which the same path tells from a sign-in by the id: a
// registration's links the policy and answers {email}; the account's signs in
// and answers {loginTicket}.
func TestDemoUBILinkBySpecPath(t *testing.T) {
	a, srv := devServer(t)
	b, _ := a.Brands.ByID("bna")
	call := apiCaller(t, srv, b)
	status, found, _ := call("POST", "/api/v1/accounts/find", map[string]string{
		"policyNumber": devseed.PolicyNumber(b, "REG", 7), "firstName": "Ubald", "lastName": "Conduit",
		"dateOfBirth": devseed.DateOfBirth, "postalCode": devseed.PostalCode(b.DefaultProvince)})
	if status != 240 || found["ubiMatchPH"] != true {
		t.Fatalf("find: %d %v", status, found)
	}
	id := found["id"].(string)
	var sms string
	for _, o := range options(t, "find", found) {
		if o["method"] == "SMS" {
			sms = o["id"].(string)
		}
	}
	validations := "/api/v1/registrations/" + id + "/validations/" + sms + "/"
	if status, sent, _ := call("POST", validations, map[string]string{}); status != 200 {
		t.Fatalf("send the SMS code: %d %v", status, sent)
	}
	status, next, _ := call("POST", validations, map[string]string{"validationValue": newestCode(t, call, "+15145550107")})
	if status != 240 || methods(options(t, "code", next)) != "ask-password" {
		t.Fatalf("code: %d %v, want 240 ask-password", status, next)
	}
	link := "/api/v1/accounts/" + id + "/authentication"
	if status, wrong, _ := call("POST", link, map[string]string{"password": "Not-The-Password-1!"}); status != 400 || wrong["errorCode"] != "3005" {
		t.Fatalf("link with a wrong password: %d %v, want 400 3005", status, wrong)
	}
	status, linked, _ := call("POST", link, map[string]string{"password": "Guichet-Demo-2026!"})
	if status != 200 || linked["email"] != "demo@bna.example" || linked["loginTicket"] != nil {
		t.Fatalf("link: %d %v, want 200 {email}", status, linked)
	}
	// Linked: the registration is closed, the same call is out of order.
	if status, again, _ := call("POST", link, map[string]string{"password": "Guichet-Demo-2026!"}); status != 409 || again["errorCode"] != "REGISTRATION_STATE" {
		t.Fatalf("link again: %d %v, want 409 REGISTRATION_STATE", status, again)
	}
	// The account's id on the same path is the sign-in.
	status, owner, _ := call("POST", "/api/v1/accounts/find", map[string]string{"email": "demo@bna.example"})
	if status != 200 {
		t.Fatalf("find the account: %d %v", status, owner)
	}
	status, signIn, _ := call("POST", "/api/v1/accounts/"+owner["id"].(string)+"/authentication", map[string]string{"password": "Guichet-Demo-2026!"})
	if status != 200 || signIn["loginTicket"] == nil || signIn["email"] != nil {
		t.Fatalf("sign-in: %d %v, want 200 {loginTicket}", status, signIn)
	}
}

// devServer runs the dev application (`guichet serve --dev`: every brand of
// config/brands, the demo data) with its workers (the outbox fills the dev
// mailbox).
func devServer(t *testing.T) (*App, *httptest.Server) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	a, err := newApp(ctx, Config{Dev: true, DataDir: t.TempDir(), BrandsDir: "../../config/brands"})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var workers sync.WaitGroup
	for _, w := range a.workers {
		workers.Go(func() { _ = w(ctx) })
	}
	srv := httptest.NewServer(a.Handler)
	t.Cleanup(func() {
		srv.Close()
		cancel()
		workers.Wait()
		a.DB.Close()
	})
	return a, srv
}

type caller func(method, path string, body any) (int, map[string]any, []any)

// apiCaller calls the API of the brand's dev host in its default province,
// in English; the answer as an object or a list.
func apiCaller(t *testing.T, srv *httptest.Server, b *brand.Brand) caller {
	return func(method, path string, body any) (int, map[string]any, []any) {
		t.Helper()
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(string(raw)))
		req.Host = b.ID + ".localhost"
		req.Header.Set("api-key", b.APIKey)
		req.Header.Set("province", strings.ToUpper(b.DefaultProvince))
		req.Header.Set("language", "en")
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out any
		_ = json.NewDecoder(res.Body).Decode(&out)
		obj, _ := out.(map[string]any)
		list, _ := out.([]any)
		return res.StatusCode, obj, list
	}
}

// options are the twoFactorValidations of an answer (at least one).
func options(t *testing.T, step string, body map[string]any) []map[string]any {
	t.Helper()
	raw, _ := body["twoFactorValidations"].([]any)
	var out []map[string]any
	for _, o := range raw {
		m, _ := o.(map[string]any)
		out = append(out, m)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no option in %v", step, body)
	}
	return out
}

func methods(opts []map[string]any) string {
	var m []string
	for _, o := range opts {
		m = append(m, fmt.Sprint(o["method"]))
	}
	return strings.Join(m, ",")
}

var sixDigits = regexp.MustCompile(`\b\d{6}\b`)

// newestMailText is the text of the newest dev mailbox message to an
// address (an email or +1 and a cell phone), once there is one.
func newestMailText(t *testing.T, call caller, to string) string {
	t.Helper()
	for range 500 { // the worker delivers at once when poked; this only bounds a failure
		_, _, mail := call("GET", "/_dev/mail.json?to="+url.QueryEscape(to)+"&limit=1", nil)
		if len(mail) > 0 {
			text, _ := mail[0].(map[string]any)["text"].(string)
			return text
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no message to %s", to)
	return ""
}

// newestLinkToken is the token of the newest registration email-proof link
// (/registration/confirm-email?…&token=) in the dev mailbox to an address.
func newestLinkToken(t *testing.T, call caller, to string) string {
	t.Helper()
	if m := confirmLinkURL.FindString(newestMailText(t, call, to)); m != "" {
		if u, err := url.Parse(m); err == nil && u.Query().Get("token") != "" {
			return u.Query().Get("token")
		}
	}
	t.Fatalf("no confirmation link in the message to %s", to)
	return ""
}

var confirmLinkURL = regexp.MustCompile(`https?://\S+` + regexp.QuoteMeta(registration.LinkPath) + `\?\S+`)

// newestCode is the 6-digit code of the newest dev mailbox message to an
// address.
func newestCode(t *testing.T, call caller, to string) string {
	t.Helper()
	if code := sixDigits.FindString(newestMailText(t, call, to)); code != "" {
		return code
	}
	t.Fatalf("no code in the message to %s", to)
	return ""
}
