package smartreg_test

import (
	"net/http"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/identity"
	"guichet/internal/policy"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
	"guichet/internal/throttle"
)

// TestPaths walks every path of the flow to DONE or its roadblock, on both
// databases.
func TestPaths(t *testing.T) {
	paths := []testenv.Case[*env]{
		{Name: "email code, email on file confirmed without a second code, create, account info", Run: func(t *testing.T, e *env) {
			f := e.identified("smr-0001", "EMMA", "courriel")
			s := f.send(f.option("EMAIL")).ok(t, 200, "VERIFY")
			if s.Str(t, "page") != "/create-an-account/verify/code" || s.data(t, "optionName") != "EMAIL" ||
				s.data(t, "maskedValue") != "e•••@e•••.com" || s.data(t, "resendsLeft") != 3.0 {
				t.Fatalf("send: %s", s.Body)
			}
			v := f.verify(e.code("emma@example.com")).ok(t, 200, "CONFIRM_USERNAME")
			if v.data(t, "email") != "emma@example.com" || v.Str(t, "page") != "/create-an-account/verify/email" {
				t.Fatalf("verify: %s", v.Body)
			}
			f.do(http.MethodPost, "/api/v2/verify/email", map[string]any{}).ok(t, 200, "CREATE")
			c := f.create(newPassword).ok(t, 201, "DONE")
			if c.Str(t, "page") != "/create-an-account/confirmation" {
				t.Fatalf("create: %s", c.Body)
			}
			info := f.do(http.MethodGet, "/api/v2/account-info", nil).ok(t, 200, "DONE")
			if info.data(t, "username") != "emma@example.com" {
				t.Fatalf("account-info: %s", info.Body)
			}
			a, err := account.ByEmail(t.Context(), e.DB, "belair", "emma@example.com")
			if err != nil || a.FirstName != "Emma" || a.Language != "fr" {
				t.Fatalf("account %+v %v", a, err)
			}
			linked, _ := policy.ForAccount(t.Context(), e.DB, a.ID)
			if len(linked) != 1 || linked[0].Number != "SMR0001" || linked[0].Role != policy.Holder {
				t.Fatalf("linked %+v", linked)
			}
		}},
		{Name: "SMS code, then the email on file gets a code of its own", Run: func(t *testing.T, e *env) {
			f := e.visitor()
			f.start("").ok(t, 200, "IDENTIFY")
			f.identify("SMR0002", "Simon", "Texto").ok(t, 200, "VERIFY")
			f.send(f.option("SMS")).ok(t, 200, "VERIFY")
			f.verify(e.code("+15145550101")).ok(t, 200, "CONFIRM_USERNAME")
			s := f.do(http.MethodPost, "/api/v2/verify/email", map[string]any{}).ok(t, 200, "VERIFY")
			if s.Str(t, "page") != "/create-an-account/verify/code" || s.data(t, "email") != "simon@example.com" {
				t.Fatalf("verify/email: %s", s.Body)
			}
			f.verify(e.code("simon@example.com")).ok(t, 200, "CREATE")
			f.create(newPassword).ok(t, 201, "DONE")
		}},
		{Name: "PIN, then another username chosen", Run: func(t *testing.T, e *env) {
			f := e.identified("SMR0003", "Paula", "Nip")
			s := f.send(f.option("PIN")).ok(t, 200, "VERIFY")
			if s.data(t, "optionName") != "PIN" || s.data(t, "resendsLeft") != 0.0 {
				t.Fatalf("send PIN: %s", s.Body)
			}
			f.do(http.MethodGet, "/api/v2/verify/resend", nil).refused(t, "STEP_NOT_ALLOWED")
			f.verify("zx98cv7").refused(t, "VALIDATION")
			f.verify("zx98cv76").ok(t, 200, "CONFIRM_USERNAME")
			f.do(http.MethodPost, "/api/v2/choose-username", map[string]string{"email": "PN.Second@Example.com"}).ok(t, 200, "VERIFY")
			f.verify(e.code("PN.Second@Example.com")).ok(t, 200, "CREATE")
			f.create(newPassword).ok(t, 201, "DONE")
			info := f.do(http.MethodGet, "/api/v2/account-info", nil)
			if info.data(t, "username") != "pn.second@example.com" {
				t.Fatalf("account-info: %s", info.Body)
			}
		}},
		{Name: "email on file used by another account: ASK_NEW_USERNAME", Run: func(t *testing.T, e *env) {
			f := e.identified("SMR0005", "Ugo", "Pris")
			f.send(f.option("EMAIL"))
			f.verify(e.code(ownerEmail)).ok(t, 200, "ASK_NEW_USERNAME")
			f.do(http.MethodPost, "/api/v2/verify/email", map[string]any{}).refused(t, "STEP_NOT_ALLOWED")
			f.do(http.MethodPost, "/api/v2/choose-username", map[string]string{"email": ownerEmail}).refused(t, "EMAIL_ALREADY_EXISTS")
			f.do(http.MethodPost, "/api/v2/choose-username", map[string]string{"email": "ugo@example.com"}).ok(t, 200, "VERIFY")
			f.verify(e.code("ugo@example.com")).ok(t, 200, "CREATE")
			f.create(newPassword).ok(t, 201, "DONE")
		}},
		{Name: "nothing on file: no options", Run: func(t *testing.T, e *env) {
			f := e.identified("SMR0004", "Alice", "Sansfil")
			o := f.do(http.MethodGet, "/api/v2/verify/options", nil).ok(t, 200, "VERIFY")
			if opts, _ := o.JSON(t)["options"].([]any); opts == nil || len(opts) != 0 {
				t.Fatalf("options: %s", o.Body)
			}
		}},
		{Name: "insured driver without driver fields: REDIRECT at start", Run: func(t *testing.T, e *env) {
			f := e.visitor()
			f.brand, _ = e.reg.ByID("intact")
			s := f.start("insuredDriver").ok(t, 200, "REDIRECT")
			if s.Str(t, "page") != "/registration/identification" {
				t.Fatalf("start: %s", s.Body)
			}
			f.do(http.MethodGet, "/api/v2/back", nil).ok(t, 200, "ACCOUNT_TYPE_SELECTION")
		}},
		{Name: "a driver identified as policyholder: REDIRECT with the number and postal code", Run: func(t *testing.T, e *env) {
			f := e.visitor()
			f.start("policyHolder")
			r := f.identify("SMR0006", "Nora", "Aucun").ok(t, 200, "REDIRECT")
			if r.data(t, "policyNumber") != "SMR0006" || r.data(t, "postalCode") != postalCode {
				t.Fatalf("identify: %s", r.Body)
			}
		}},
		{Name: "UBI driver whose email is a policyholder's account: REDIRECT (legacy links it)", Run: func(t *testing.T, e *env) {
			f := e.visitor()
			f.start("insuredDriver").ok(t, 200, "IDENTIFY")
			f.do(http.MethodPost, "/api/v2/registration/identify", map[string]string{"policyNumber": "SMR0007",
				"firstName": "Ubald", "lastName": "Conduit", "dateOfBirth": birth, "phone": "514-555-0107"}).ok(t, 200, "REDIRECT")
		}},
		{Name: "brand field list: the driver's fields and answer", Run: func(t *testing.T, e *env) {
			f := e.visitor()
			f.start("insuredDriver").ok(t, 200, "IDENTIFY")
			fields := f.do(http.MethodGet, "/api/v2/registration/fields", nil).ok(t, 200, "IDENTIFY")
			var names []string
			for _, x := range fields.JSON(t)["fields"].([]any) {
				names = append(names, x.(map[string]any)["name"].(string))
			}
			if len(names) != 5 || names[4] != "phone" {
				t.Fatalf("fields: %s", fields.Body)
			}
			f.do(http.MethodPost, "/api/v2/registration/identify", map[string]string{"policyNumber": "SMR0006",
				"firstName": "Nora", "lastName": "Aucun", "dateOfBirth": birth, "phone": "514-555-0106"}).refused(t, "POLICY_NUMBER_NOT_FOUND")
			f.do(http.MethodPost, "/api/v2/registration/identify", map[string]string{"policyNumber": "SMR0006",
				"firstName": "Nora", "lastName": "Aucun", "dateOfBirth": birth, "postalCode": postalCode}).refused(t, "VALIDATION")
		}},
		{Name: "brand field list of a province: email instead of first name and postal code", Run: func(t *testing.T, e *env) {
			e.province = "on"
			f := e.visitor()
			f.start("policyHolder")
			f.do(http.MethodPost, "/api/v2/registration/identify", map[string]string{"policyNumber": "SMR0001",
				"lastName": "Courriel", "dateOfBirth": birth, "email": "EMMA@example.com"}).ok(t, 200, "VERIFY")
		}},
		{Name: "back: code page to options to identification to account type", Run: func(t *testing.T, e *env) {
			f, code := e.toCode("SMR0001", "Emma", "Courriel", "EMAIL", "emma@example.com")
			b := f.do(http.MethodGet, "/api/v2/back", nil).ok(t, 200, "VERIFY")
			if b.Str(t, "page") != "/create-an-account/verify/options" {
				t.Fatalf("back: %s", b.Body)
			}
			f.verify(code).refused(t, "STEP_NOT_ALLOWED") // the code died with the page
			f.do(http.MethodGet, "/api/v2/back", nil).ok(t, 200, "IDENTIFY")
			f.do(http.MethodGet, "/api/v2/verify/options", nil).refused(t, "STEP_NOT_ALLOWED")
			f.do(http.MethodGet, "/api/v2/back", nil).ok(t, 200, "ACCOUNT_TYPE_SELECTION")
			f.do(http.MethodGet, "/api/v2/back", nil).refused(t, "STEP_NOT_ALLOWED")
		}},
	}
	testenv.RunCases(t, newEnv, paths)
}

// TestErrors brings about every §8.2 error where its situation arises.
func TestErrors(t *testing.T) {
	cases := []testenv.Case[*env]{
		{Name: "VALIDATION: a field breaking its rule, an unknown field, an unknown account type", Run: func(t *testing.T, e *env) {
			f := e.visitor()
			f.start("boss").refused(t, "VALIDATION")
			f.start("policyHolder")
			r := f.do(http.MethodPost, "/api/v2/registration/identify", map[string]string{"policyNumber": "SMR0001",
				"firstName": "Emma", "lastName": "Courriel", "dateOfBirth": "1985-02-30", "postalCode": postalCode}).refused(t, "VALIDATION")
			if r.JSON(t)["fields"].(map[string]any)["dateOfBirth"] != "errorDateOfBirthFormat" || r.token == "" {
				t.Fatalf("identify: %s (token %q)", r.Body, r.token)
			}
			f.do(http.MethodPost, "/api/v2/registration/identify", map[string]string{"policyNumber": "SMR0001",
				"firstName": "Emma", "lastName": "Courriel", "dateOfBirth": birth, "postalCode": postalCode,
				"email": "emma@example.com"}).refused(t, "VALIDATION")
		}},
		{Name: "POLICY_NUMBER_NOT_FOUND twice, then UNABLE_TO_IDENTIFY closes the session", Run: func(t *testing.T, e *env) {
			f := e.visitor()
			f.start("policyHolder")
			f.identify("ZZZ9999", "Emma", "Courriel").refused(t, "POLICY_NUMBER_NOT_FOUND")
			f.identify("SMR0008", "Carl", "Annule").refused(t, "POLICY_NUMBER_NOT_FOUND") // cancelled
			r := f.identify("SMR0001", "Emma", "Autre").refused(t, "UNABLE_TO_IDENTIFY")
			if r.token != "" {
				t.Fatalf("a closed session got a token")
			}
			f.identify("SMR0001", "Emma", "Courriel").refused(t, "invalid-token")
			if m := f.identify("SMR0001", "Emma", "Courriel").Str(t, "message"); m != "state not found in cache" {
				t.Fatalf("message %q", m)
			}
		}},
		{Name: "ACCOUNT_ALREADY_EXISTS at identify: the owner gets the security notice", Run: func(t *testing.T, e *env) {
			f := e.visitor()
			f.start("policyHolder")
			f.do(http.MethodPost, "/api/v2/registration/identify", map[string]string{"policyNumber": "OWN0001",
				"firstName": "Olivia", "lastName": "Owner", "dateOfBirth": "1980-04-12", "postalCode": postalCode}).refused(t, "ACCOUNT_ALREADY_EXISTS")
			if n := e.Count(t, "SELECT COUNT(*) FROM outbox WHERE recipient = ? AND template = 'registration-notice'", ownerEmail); n != 1 {
				t.Fatalf("%d notices", n)
			}
		}},
		{Name: "INVALID_ACTIVATION_CODE with tries left, then EXCEEDED_RETRIES_CODE_ACTIVATION closes", Run: func(t *testing.T, e *env) {
			f, code := e.toCode("SMR0001", "Emma", "Courriel", "EMAIL", "emma@example.com")
			bad := wrong(code)
			for left := 4; left >= 1; left-- {
				r := f.verify(bad).refused(t, "INVALID_ACTIVATION_CODE")
				if r.JSON(t)["triesLeft"] != float64(left) {
					t.Fatalf("triesLeft: %s", r.Body)
				}
			}
			f.verify(bad).refused(t, "EXCEEDED_RETRIES_CODE_ACTIVATION")
			f.verify(bad).refused(t, "invalid-token")
		}},
		{Name: "EXCEEDED_RETRIES_CODE_ACTIVATION: an expired code", Run: func(t *testing.T, e *env) {
			f, code := e.toCode("SMR0001", "Emma", "Courriel", "EMAIL", "emma@example.com")
			e.Clock.Advance(11 * time.Minute)
			f.verify(code).refused(t, "EXCEEDED_RETRIES_CODE_ACTIVATION")
		}},
		{Name: "EXCEEDED_RESENDS after 3 resends", Run: func(t *testing.T, e *env) {
			f, last := e.toCode("SMR0002", "Simon", "Texto", "SMS", "+15145550101")
			for left := 2; left >= 0; left-- {
				r := f.do(http.MethodGet, "/api/v2/verify/resend", nil).ok(t, 200, "VERIFY")
				if r.data(t, "resendsLeft") != float64(left) {
					t.Fatalf("resend: %s", r.Body)
				}
				previous := last
				last = e.code("+15145550101")
				if previous != last {
					f.verify(previous).refused(t, "INVALID_ACTIVATION_CODE") // a resend kills the code before
				}
			}
			f.do(http.MethodGet, "/api/v2/verify/resend", nil).refused(t, "EXCEEDED_RESENDS")
			f.verify(last).ok(t, 200, "CONFIRM_USERNAME") // the last code lives
		}},
		{Name: "EMAIL_ALREADY_EXISTS at choose-username, then re-entry", Run: func(t *testing.T, e *env) {
			f := e.toConfirm()
			r := f.do(http.MethodPost, "/api/v2/choose-username", map[string]string{"email": "OWNER@example.com"}).refused(t, "EMAIL_ALREADY_EXISTS")
			if r.token == "" {
				t.Fatal("no token on a refusal of a live session")
			}
			f.do(http.MethodPost, "/api/v2/choose-username", map[string]string{"email": "emma2@example.com"}).ok(t, 200, "VERIFY")
		}},
		{Name: "PASSWORD_POLICY_VIOLATION and VALIDATION at create", Run: func(t *testing.T, e *env) {
			f := e.toCreate()
			f.create("Emma-Courriel-2026!").ok(t, 400, "")
			r := f.create("xEMMA-2026-Pass!").refused(t, "PASSWORD_POLICY_VIOLATION")
			if r.JSON(t)["fields"].(map[string]any)["password"] != "errorPasswordContainsEmail" {
				t.Fatalf("create: %s", r.Body)
			}
			f.create("short").refused(t, "VALIDATION")
			f.do(http.MethodPost, "/api/v2/create", map[string]any{"password": newPassword,
				"passwordConfirmation": newPassword, "termsAccepted": false}).refused(t, "VALIDATION")
			f.create(newPassword).ok(t, 201, "DONE")
		}},
		{Name: "EMAIL_ALREADY_EXISTS at create: the email was taken meanwhile", Run: func(t *testing.T, e *env) {
			f := e.toCreate()
			e.insertAccount("emma@example.com")
			f.create(newPassword).refused(t, "EMAIL_ALREADY_EXISTS")
			f.do(http.MethodPost, "/api/v2/choose-username", map[string]string{"email": "emma.b@example.com"}).ok(t, 200, "VERIFY")
		}},
		{Name: "ACCOUNT_ALREADY_EXISTS at create: the person got an account in another session", Run: func(t *testing.T, e *env) {
			first := e.toCreate()
			second := e.toConfirm()
			second.do(http.MethodPost, "/api/v2/choose-username", map[string]string{"email": "emma.other@example.com"})
			second.verify(e.code("emma.other@example.com")).ok(t, 200, "CREATE")
			first.create(newPassword).ok(t, 201, "DONE")
			second.create(newPassword).refused(t, "ACCOUNT_ALREADY_EXISTS")
		}},
		{Name: "EMAIL_UPDATE_FAILED: the policy ended under the session", Run: func(t *testing.T, e *env) {
			f := e.toCreate()
			if _, err := e.DB.Exec(t.Context(), "UPDATE policies SET status = 'cancelled' WHERE number = 'SMR0001'"); err != nil {
				t.Fatal(err)
			}
			f.create(newPassword).refused(t, "EMAIL_UPDATE_FAILED")
			if n := e.Count(t, "SELECT COUNT(*) FROM accounts WHERE email = 'emma@example.com'"); n != 0 {
				t.Fatalf("%d accounts", n)
			}
		}},
	}
	testenv.RunCases(t, newEnv, cases)
}

// toConfirm brings a visitor (Emma, EMAIL code) to CONFIRM_USERNAME.
func (e *env) toConfirm() *flow {
	e.t.Helper()
	f, code := e.toCode("SMR0001", "Emma", "Courriel", "EMAIL", "emma@example.com")
	f.verify(code).ok(e.t, 200, "CONFIRM_USERNAME")
	return f
}

// identified is a visitor started as a policyholder and identified as
// the person of the policy (VERIFY).
func (e *env) identified(number, first, last string) *flow {
	e.t.Helper()
	f := e.visitor()
	f.start("policyHolder").ok(e.t, 200, "IDENTIFY")
	f.identify(number, first, last).ok(e.t, 200, "VERIFY")
	return f
}

// toCode brings a policyholder to the code page of option (EMAIL, SMS or
// PIN) and returns the code sent to `to` ("" for the PIN).
func (e *env) toCode(number, first, last, option, to string) (*flow, string) {
	e.t.Helper()
	f := e.identified(number, first, last)
	f.send(f.option(option)).ok(e.t, 200, "VERIFY")
	if to == "" {
		return f, ""
	}
	return f, e.code(to)
}

// toCreate brings a visitor (Emma) to CREATE with her email on file.
func (e *env) toCreate() *flow {
	e.t.Helper()
	f := e.toConfirm()
	f.do(http.MethodPost, "/api/v2/verify/email", map[string]any{}).ok(e.t, 200, "CREATE")
	return f
}

func (e *env) insertAccount(email string) {
	e.t.Helper()
	err := e.DB.InTx(e.t.Context(), func(tx *store.Tx) error {
		_, err := account.Insert(e.t.Context(), tx, account.Account{Brand: "belair", Email: email}, "", e.Clock.Now())
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// TestConcurrentCreates: of the creates of one session sent at once,
// exactly one makes the account.
func TestConcurrentCreates(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		f := e.toCreate()
		got := testenv.Parallel(6, func() testenv.Answer {
			g := &flow{e: e, mux: e.mux, brand: e.belair, token: f.token}
			return g.create(newPassword).Answer
		})
		if got[201] != 1 || got[400] != 5 || e.Count(t, "SELECT COUNT(*) FROM accounts WHERE email = 'emma@example.com'") != 1 {
			t.Fatalf("statuses %v, want one 201 and the others 400", got)
		}
	})
}

// TestConcurrentSessionsOfOnePerson: two sessions of one person, each with
// its own username, create at once: one account, the other session
// ACCOUNT_ALREADY_EXISTS.
func TestConcurrentSessionsOfOnePerson(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		first := e.toCreate()
		second := e.toConfirm()
		second.do(http.MethodPost, "/api/v2/choose-username", map[string]string{"email": "emma.two@example.com"})
		second.verify(e.code("emma.two@example.com")).ok(t, 200, "CREATE")
		flows := []*flow{first, second}
		answers := testenv.Race(len(flows), func(i int) testenv.Answer { return flows[i].create(newPassword).Answer })
		testenv.Winner(t, answers, 201, func(a testenv.Answer) bool {
			return a.Status == 400 && a.Str(t, "error") == "ACCOUNT_ALREADY_EXISTS"
		})
		if n := e.Count(t, "SELECT COUNT(*) FROM accounts WHERE email IN ('emma@example.com', 'emma.two@example.com')"); n != 1 {
			t.Fatalf("%d accounts created", n)
		}
	})
}

// TestLimits: the legacy registration's throttles hold for smart
// registration (429 RATE_LIMITED with Retry-After, the v1 Error shape), in
// the scopes the two flows share.
func TestLimits(t *testing.T) {
	rule := func(scope string) throttle.Rule { return throttle.Rule{Scope: scope, Limit: 1, Window: time.Hour} }
	cases := []struct {
		name string
		set  func(l *identity.Limits)
		run  func(t *testing.T, e *env) answer
	}{
		{"session starts per address", func(l *identity.Limits) { l.Calls = rule("registration.calls") }, func(t *testing.T, e *env) answer {
			e.visitor().start("policyHolder").ok(t, 200, "IDENTIFY")
			return e.visitor().start("policyHolder")
		}},
		{"identifications per address", func(l *identity.Limits) { l.FindPerIP = rule("registration.find.ip") }, func(t *testing.T, e *env) answer {
			f := e.visitor()
			f.start("policyHolder")
			f.identify("ZZZ9999", "Emma", "Courriel").refused(t, "POLICY_NUMBER_NOT_FOUND")
			return f.identify("SMR0001", "Emma", "Courriel")
		}},
		{"identifications per policy number", func(l *identity.Limits) { l.FindPerPolicy = rule("registration.find.policy") }, func(t *testing.T, e *env) answer {
			f := e.visitor()
			f.start("policyHolder")
			f.identify("SMR0001", "Emma", "Autre").refused(t, "POLICY_NUMBER_NOT_FOUND")
			return f.identify("smr-0001", "Emma", "Courriel")
		}},
		{"codes per person", func(l *identity.Limits) { l.SendsPerPerson = rule("registration.codes") }, func(t *testing.T, e *env) answer {
			f, _ := e.toCode("SMR0002", "Simon", "Texto", "SMS", "+15145550101")
			return f.do(http.MethodGet, "/api/v2/verify/resend", nil)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				e := newEnv(t, db)
				c.set(&e.svc.Limits)
				a := c.run(t, e)
				if a.Status != http.StatusTooManyRequests || a.Str(t, "errorCode") != "RATE_LIMITED" {
					t.Fatalf("%d %s", a.Status, a.Body)
				}
			})
		})
	}
}
