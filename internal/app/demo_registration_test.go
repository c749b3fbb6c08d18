package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/policy"
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
// with the option it was given) is web/e2e/registration.test.mjs.
func TestDemoPINOnlyRegistersOnEveryBrand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	a, err := newApp(ctx, Config{Dev: true, DataDir: t.TempDir(), BrandsDir: "../../config/brands"})
	if err != nil {
		t.Fatal(err)
	}
	var workers sync.WaitGroup
	for _, w := range a.workers {
		workers.Go(func() { _ = w(ctx) })
	}
	defer a.DB.Close()
	defer workers.Wait()
	defer cancel()
	srv := httptest.NewServer(a.Handler)
	defer srv.Close()

	brands := a.Brands.All()
	if len(brands) != 5 {
		t.Fatalf("%d brands in config/brands, want the 5 of the spec", len(brands))
	}
	digits := regexp.MustCompile(`\b\d{6}\b`)
	for _, b := range brands {
		t.Run(b.ID, func(t *testing.T) {
			host := b.ID + ".localhost"
			call := func(method, path string, body any) (int, map[string]any, []any) {
				t.Helper()
				raw, _ := json.Marshal(body)
				req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(string(raw)))
				req.Host = host
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
			options := func(step string, body map[string]any) []map[string]any {
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
			methods := func(opts []map[string]any) string {
				var m []string
				for _, o := range opts {
					m = append(m, fmt.Sprint(o["method"]))
				}
				return strings.Join(m, ",")
			}

			status, found, _ := call("POST", "/api/v1/accounts/find", map[string]string{
				"policyNumber": policy.DemoNumber(b, "REG", 9), "firstName": "Pia", "lastName": "Lettre",
				"dateOfBirth": registration.DemoDateOfBirth, "postalCode": account.DemoPostalCode(b.DefaultProvince)})
			if status != 240 {
				t.Fatalf("find: %d %v", status, found)
			}
			id := found["id"].(string)
			opts := options("find", found)
			// The one real option is the PIN ("I can't use any of these" beside it).
			if got := methods(opts); got != "PIN,NONE" {
				t.Fatalf("find: options %s, want PIN,NONE", got)
			}
			validate := func(optionID string, value string) (int, map[string]any) {
				status, body, _ := call("POST", "/api/v1/registrations/"+id+"/validations/"+optionID+"/", map[string]string{"validationValue": value})
				return status, body
			}
			status, next := validate(opts[0]["id"].(string), registration.DemoPIN)
			if status != 240 || methods(options("PIN", next)) != "ask-email" {
				t.Fatalf("PIN: %d %v, want 240 ask-email", status, next)
			}
			email := "pia." + b.ID + "@example.com"
			status, next = validate(options("PIN", next)[0]["id"].(string), email)
			if status != 240 || methods(options("email", next)) != "ask-email-code" {
				t.Fatalf("email: %d %v, want 240 ask-email-code", status, next)
			}
			codeOption := options("email", next)[0]["id"].(string)
			code := ""
			for range 500 { // the worker delivers at once when poked; this only bounds a failure
				_, _, mail := call("GET", "/_dev/mail.json?to="+email+"&limit=1", nil)
				if len(mail) > 0 {
					text, _ := mail[0].(map[string]any)["text"].(string)
					code = digits.FindString(text)
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if code == "" {
				t.Fatalf("no code emailed to %s", email)
			}
			status, verified := validate(codeOption, code)
			if status != 200 || verified["email"] != email {
				t.Fatalf("code: %d %v, want 200 with the email", status, verified)
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
