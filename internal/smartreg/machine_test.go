package smartreg_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"guichet/internal/smartreg"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

// request is one call as the SPA sends it, with a plausible body.
type request struct {
	method, path string
	body         any
}

var requests = map[string]request{
	smartreg.CallFields: {http.MethodGet, "/api/v2/registration/fields", nil},
	smartreg.CallIdentify: {http.MethodPost, "/api/v2/registration/identify", map[string]string{"policyNumber": "SMR0001",
		"firstName": "Emma", "lastName": "Courriel", "dateOfBirth": birth, "postalCode": postalCode}},
	smartreg.CallOptions:        {http.MethodGet, "/api/v2/verify/options", nil},
	smartreg.CallSend:           {http.MethodPost, "/api/v2/verify/send", map[string]string{"optionId": "AAAAAAAAAAAAAAAAAAAAAA"}},
	smartreg.CallResend:         {http.MethodGet, "/api/v2/verify/resend", nil},
	smartreg.CallVerify:         {http.MethodPost, "/api/v2/registration/verify", map[string]string{"code": "123456"}},
	smartreg.CallConfirmEmail:   {http.MethodPost, "/api/v2/verify/email", map[string]any{}},
	smartreg.CallChooseUsername: {http.MethodPost, "/api/v2/choose-username", map[string]string{"email": "someone.else@example.com"}},
	smartreg.CallCreate: {http.MethodPost, "/api/v2/create", map[string]any{"password": newPassword,
		"passwordConfirmation": newPassword, "termsAccepted": true}},
	smartreg.CallAccountInfo: {http.MethodGet, "/api/v2/account-info", nil},
	smartreg.CallBack:        {http.MethodGet, "/api/v2/back", nil},
}

// TestStateMachine tries every call in every step (and VERIFY's pages):
// an allowed call is served (2xx, or a refusal of its own, never
// STEP_NOT_ALLOWED); any other is STEP_NOT_ALLOWED, with the token of the
// unchanged step.
func TestStateMachine(t *testing.T) {
	states := []struct {
		name, step string
		reach      func(e *env) *flow
		allowed    []string
	}{
		{"account type (after back)", "ACCOUNT_TYPE_SELECTION", func(e *env) *flow {
			f := e.visitor()
			f.start("policyHolder")
			f.do(http.MethodGet, "/api/v2/back", nil).ok(e.t, 200, "ACCOUNT_TYPE_SELECTION")
			return f
		}, nil},
		{"identify", "IDENTIFY", func(e *env) *flow {
			f := e.visitor()
			f.start("policyHolder").ok(e.t, 200, "IDENTIFY")
			return f
		}, []string{"fields", "identify", "back"}},
		{"verify: options", "VERIFY", func(e *env) *flow {
			f := e.visitor()
			f.start("policyHolder")
			f.identify("SMR0002", "Simon", "Texto").ok(e.t, 200, "VERIFY")
			return f
		}, []string{"options", "send", "back"}},
		{"verify: code sent", "VERIFY", func(e *env) *flow {
			f, _ := e.toCode("SMR0002", "Simon", "Texto", "SMS", "")
			return f
		}, []string{"options", "send", "resend", "verify", "back"}},
		{"verify: PIN chosen", "VERIFY", func(e *env) *flow {
			f, _ := e.toCode("SMR0003", "Paula", "Nip", "PIN", "")
			return f
		}, []string{"options", "send", "verify", "back"}},
		{"verify: username code sent", "VERIFY", func(e *env) *flow {
			f := e.toConfirm()
			f.do(http.MethodPost, "/api/v2/choose-username", map[string]string{"email": "emma.new@example.com"}).ok(e.t, 200, "VERIFY")
			return f
		}, []string{"resend", "verify", "back"}},
		{"confirm username", "CONFIRM_USERNAME", func(e *env) *flow { return e.toConfirm() },
			[]string{"confirm-email", "choose-username"}},
		{"ask new username", "ASK_NEW_USERNAME", func(e *env) *flow {
			f, code := e.toCode("SMR0005", "Ugo", "Pris", "EMAIL", ownerEmail)
			f.verify(code).ok(e.t, 200, "ASK_NEW_USERNAME")
			return f
		}, []string{"choose-username"}},
		{"create", "CREATE", func(e *env) *flow { return e.toCreate() }, []string{"create", "back"}},
		{"redirect", "REDIRECT", func(e *env) *flow {
			f := e.visitor()
			f.start("policyHolder")
			f.identify("SMR0006", "Nora", "Aucun").ok(e.t, 200, "REDIRECT")
			return f
		}, []string{"back"}},
		{"done", "DONE", func(e *env) *flow {
			f := e.toCreate()
			f.create(newPassword).ok(e.t, 201, "DONE")
			return f
		}, []string{"account-info"}},
	}
	for _, st := range states {
		t.Run(st.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				e := newEnv(t, db)
				refusedOn := st.reach(e)
				// create last: it spends the person (every reach identifies her).
				calls := slices.DeleteFunc(slices.Clone(smartreg.Calls), func(c string) bool { return c == smartreg.CallCreate })
				for _, name := range append(calls, smartreg.CallCreate) {
					req := requests[name]
					if !slices.Contains(st.allowed, name) {
						a := refusedOn.do(req.method, req.path, req.body).refused(t, "STEP_NOT_ALLOWED")
						if step := claims(t, a.token)["step"]; step != st.step {
							t.Fatalf("%s refused: token step %v, want %s", name, step, st.step)
						}
						continue
					}
					if st.step == "DONE" {
						a := refusedOn.do(req.method, req.path, req.body)
						if a.Status != 200 {
							t.Fatalf("%s: %d %s", name, a.Status, a.Body)
						}
						continue
					}
					e.skip()
					f := st.reach(e)
					a := f.do(req.method, req.path, req.body)
					if a.Status >= 500 || a.Status != 400 && a.Status/100 != 2 || a.Status == 400 && a.Str(t, "error") == "STEP_NOT_ALLOWED" {
						t.Fatalf("%s allowed: %d %s", name, a.Status, a.Body)
					}
					if a.token == "" && a.Str(t, "error") != "EXCEEDED_RETRIES_CODE_ACTIVATION" {
						t.Fatalf("%s: no token: %s", name, a.Body)
					}
				}
			})
		})
	}
}

// claims decodes a token's payload as the SPA does (no verification).
func claims(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q", token)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// skip marks every queued message seen (code looks at later ones only).
func (e *env) skip() { e.Mail.Skip(e.t) }
