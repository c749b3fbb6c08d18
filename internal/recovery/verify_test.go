package recovery_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/notify"
	"guichet/internal/recovery"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

func TestWrongCodesUntilTheCodeDies(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create("alex@example.com", nil, "")
		type try struct {
			value      string // "right", "wrong" or a literal
			status     int
			code       string
			wantAction bool
		}
		cases := []struct {
			name  string
			email string
			tries []try
		}{
			{"right code at once", a.Email, []try{{"right", 200, "", true}}},
			{"right code after 4 wrong ones", a.Email, []try{
				{"wrong", 400, "INVALID_ACTIVATION_CODE", false}, {"wrong", 400, "INVALID_ACTIVATION_CODE", false},
				{"wrong", 400, "INVALID_ACTIVATION_CODE", false}, {"wrong", 400, "INVALID_ACTIVATION_CODE", false},
				{"right", 200, "", true},
			}},
			{"fifth wrong code kills it", a.Email, []try{
				{"wrong", 400, "INVALID_ACTIVATION_CODE", false}, {"wrong", 400, "INVALID_ACTIVATION_CODE", false},
				{"wrong", 400, "INVALID_ACTIVATION_CODE", false}, {"wrong", 400, "INVALID_ACTIVATION_CODE", false},
				{"wrong", 403, "EXCEEDED_RETRIES_CODE_ACTIVATION", false},
				{"right", 403, "EXCEEDED_RETRIES_CODE_ACTIVATION", false},
			}},
			{"malformed values are not guesses", a.Email, []try{
				{"wrong", 400, "INVALID_ACTIVATION_CODE", false}, {"wrong", 400, "INVALID_ACTIVATION_CODE", false},
				{"wrong", 400, "INVALID_ACTIVATION_CODE", false}, {"wrong", 400, "INVALID_ACTIVATION_CODE", false},
				{"12a456", 400, "errorCodeFormat", false}, {"12345", 400, "errorCodeRequired", false},
				{"", 400, "errorCodeRequired", false},
				{"right", 200, "", true},
			}},
			{"a used code is spent", a.Email, []try{{"right", 200, "", true}, {"right", 403, "CODE_EXPIRED", false}}},
			{"unknown email: wrong like any other", "nobody@example.com", []try{
				{"123456", 400, "INVALID_ACTIVATION_CODE", false}, {"654321", 400, "INVALID_ACTIVATION_CODE", false},
				{"000000", 400, "INVALID_ACTIVATION_CODE", false}, {"999999", 400, "INVALID_ACTIVATION_CODE", false},
				{"111111", 403, "EXCEEDED_RETRIES_CODE_ACTIVATION", false},
			}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := e.request(c.email)
				code := ""
				if c.email == a.Email {
					code = e.lastCode(a.Email)
				}
				for i, tr := range c.tries {
					value := tr.value
					switch value {
					case "right":
						value = code
					case "wrong":
						value = wrong(code)
					}
					got := e.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": value})
					if got.Status != tr.status || (tr.code != "" && got.Str(t, "errorCode") != tr.code) {
						t.Fatalf("try %d (%s): %d %s, want %d %s", i+1, tr.value, got.Status, got.Body, tr.status, tr.code)
					}
					if tr.wantAction {
						m := got.JSON(t)
						token, _ := m["token"].(string)
						if m["action"] != "reset-password-login" || m["id"] != a.ID || m["ubiDriver"] != false || !idShape.MatchString(token) {
							t.Fatalf("answer %s", got.Body)
						}
					}
				}
			})
		}
	})
}

func TestCodeExpiresAfterTenMinutes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create("alex@example.com", nil, "")
		cases := []afterWait{
			{"at 9:59", 9*time.Minute + 59*time.Second, 200, ""},
			{"at 9:59.999", 10*time.Minute - time.Millisecond, 200, ""},
			{"at 10:00", 10 * time.Minute, 403, "CODE_EXPIRED"},
			{"at 10:01", 10*time.Minute + time.Second, 403, "CODE_EXPIRED"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := e.request(a.Email)
				code := e.lastCode(a.Email)
				e.Clock.Advance(c.after)
				e.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": code}).Expect(t, c.status, c.code)
			})
		}
		t.Run("an expired code can be resent", func(t *testing.T) {
			s := e.request(a.Email)
			e.Clock.Advance(11 * time.Minute)
			next := startedOf(t, e.post(resendPath(s.id, s.validationID), nil))
			e.post(validatePath(next.id, next.validationID), map[string]string{"validationValue": e.lastCode(a.Email)}).Expect(t, 200, "")
		})
	})
}

func TestResetTokenExpiresAfterFifteenMinutes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		cases := []afterWait{
			{"at 14:59", 14*time.Minute + 59*time.Second, 200, ""},
			{"at 15:01", 15*time.Minute + time.Second, 403, "3004"},
		}
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				a := e.create("t"+string(rune('a'+i))+"@example.com", nil, "")
				token := e.verified(a)
				e.Clock.Advance(c.after)
				e.post(passwordPath(a.ID), map[string]string{"password": newPassword, "token": token, "postalCode": postalCode}).
					Expect(t, c.status, c.code)
			})
		}
	})
}

// TestConcurrentSubmitsOfOneCode: 16 submits of the right code at once,
// exactly one gets a token; then 16 password calls with that token at once,
// exactly one sets the password.
func TestConcurrentSubmitsOfOneCode(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create("alex@example.com", nil, "")
		s := e.request(a.Email)
		code := e.lastCode(a.Email)
		const n = 16
		// race submits n at once: exactly one is answered 200, every other
		// 403 with refusedCode; it returns the winner's token.
		race := func(path string, body map[string]string, refusedCode string) (token string) {
			t.Helper()
			answers := testenv.Race(n, func(int) answer { return e.post(path, body) })
			return testenv.Winner(t, answers, 200, func(a answer) bool {
				return a.Status == 403 && a.Code(t) == refusedCode
			}).Str(t, "token")
		}
		token := race(validatePath(s.id, s.validationID), map[string]string{"validationValue": code}, "CODE_EXPIRED")
		if tokens := e.Count(t, "SELECT COUNT(*) FROM recovery_tokens WHERE account_id = ?", a.ID); tokens != 1 {
			t.Fatalf("%d reset tokens issued, want 1", tokens)
		}
		race(passwordPath(a.ID), map[string]string{"password": newPassword, "token": token, "postalCode": postalCode}, "3004")
		if n := len(e.mails(notify.TemplatePasswordChanged, a.Email)); n != 1 {
			t.Fatalf("%d 'password changed' emails, want 1", n)
		}
	})
}

func TestCodesAndTokensBelongToTheirRequest(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		alex := e.create("alex@example.com", nil, "")
		sam := e.create("sam@example.com", nil, "")
		sa := e.request(alex.Email)
		codeA := e.lastCode(alex.Email)
		ss := e.request(sam.Email)
		codeS := e.lastCode(sam.Email)
		code := func(v string) map[string]string { return map[string]string{"validationValue": v} }
		scenarios := []testenv.Scenario{
			scenario("alex's validation under sam's id", validatePath(ss.id, sa.validationID), code(codeA), 403, "CODE_EXPIRED"),
			scenario("sam's validation under alex's id", validatePath(sa.id, ss.validationID), code(codeS), 403, "CODE_EXPIRED"),
			scenario("made-up validation id", validatePath(sa.id, "AAAAAAAAAAAAAAAAAAAAAA"), code(codeA), 403, "CODE_EXPIRED"),
			scenario("oversized ids", validatePath(strings.Repeat("a", 200), strings.Repeat("b", 200)), code(codeA), 404, "NOT_FOUND"),
		}
		if codeA != codeS {
			scenarios = append(scenarios,
				scenario("sam's code in alex's validation", validatePath(sa.id, sa.validationID), code(codeS), 400, "INVALID_ACTIVATION_CODE"))
		}
		scenarios = append(scenarios, testenv.Scenario{Name: "another brand",
			Request: req(intact, "en", validatePath(sa.id, sa.validationID), code(codeA)), Status: 403, Code: "CODE_EXPIRED"})
		testenv.Run(t, e.mux, scenarios...)
		// Each code still works for its own request (the refusals above
		// counted at most one guess).
		tokenA := e.post(validatePath(sa.id, sa.validationID), map[string]string{"validationValue": codeA})
		tokenA.Expect(t, 200, "")
		tokenS := e.post(validatePath(ss.id, ss.validationID), map[string]string{"validationValue": codeS})
		tokenS.Expect(t, 200, "")
		t.Run("alex's token for sam's password", func(t *testing.T) {
			e.post(passwordPath(sam.ID), map[string]string{"password": newPassword, "token": tokenA.Str(t, "token"), "postalCode": postalCode}).
				Expect(t, 403, "3004")
		})
		t.Run("a token on another brand", func(t *testing.T) {
			e.postAs(intact, "en", passwordPath(alex.ID), map[string]string{"password": newPassword, "token": tokenA.Str(t, "token"), "postalCode": postalCode}).
				Expect(t, 403, "3004")
		})
		t.Run("made-up token", func(t *testing.T) {
			e.post(passwordPath(alex.ID), map[string]string{"password": newPassword, "token": "AAAAAAAAAAAAAAAAAAAAAA", "postalCode": postalCode}).
				Expect(t, 403, "3004")
		})
		// The refusals did not spend the tokens.
		e.post(passwordPath(alex.ID), map[string]string{"password": newPassword, "token": tokenA.Str(t, "token"), "postalCode": postalCode}).Expect(t, 200, "")
		e.post(passwordPath(sam.ID), map[string]string{"password": newPassword, "token": tokenS.Str(t, "token"), "postalCode": postalCode}).Expect(t, 200, "")
	})
}

func TestResetLinkIsExchangedOnce(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create("ubi@example.com", func(a *account.Account) { a.UBIDriver = true }, "")
		ctx := t.Context()
		if err := e.accounts.Notify(ctx, account.NotifyRequest{Brand: belair.ID, AccountID: a.ID, Type: account.NotifyResetPassword,
			IP: ip, BaseURL: "https://belair.example"}); err != nil {
			t.Fatal(err)
		}
		links := e.mails(notify.TemplateResetLink, a.Email)
		if len(links) != 1 {
			t.Fatalf("%d reset links", len(links))
		}
		u, err := url.Parse(links[0].Data[notify.DataLink])
		if err != nil {
			t.Fatal(err)
		}
		link := u.Query().Get("token")
		e.postAs(intact, "en", linkPath, map[string]string{"token": link}).Expect(t, 403, "3004")
		e.post(linkPath, map[string]string{"token": "nope"}).Expect(t, 403, "3004")
		got := e.post(linkPath, map[string]string{"token": link})
		got.Expect(t, 200, "")
		m := got.JSON(t)
		if m["id"] != a.ID || m["action"] != recovery.ActionResetPassword || m["ubiDriver"] != true {
			t.Fatalf("answer %s", got.Body)
		}
		e.post(linkPath, map[string]string{"token": link}).Expect(t, 403, "3004")
		e.post(passwordPath(a.ID), map[string]string{"password": newPassword, "token": got.Str(t, "token"), "cellPhone": "514-555-0123"}).
			Expect(t, 200, "")
		if !e.passwordWorks(a, newPassword) {
			t.Fatal("the new password does not work")
		}
	})
}

func TestSecretIsSharedByInstances(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		one := newEnv(t, db)
		two := newEnv(t, db) // a second instance on the same database
		a := one.create("alex@example.com", nil, "")
		if x, y := one.request("nobody@example.com"), two.request("nobody@example.com"); x.id != y.id {
			t.Fatalf("instances answer different decoy ids: %s, %s", x.id, y.id)
		}
		s := one.request(a.Email)
		two.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": one.lastCode(a.Email)}).Expect(t, 200, "")
	})
}

func TestPrune(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create("alex@example.com", nil, "")
		e.verified(a)
		e.request("nobody@example.com")
		ctx := t.Context()
		n, err := e.service.Prune(ctx)
		if err != nil || n != 0 {
			t.Fatalf("pruned %d (%v) of live rows", n, err)
		}
		e.Clock.Advance(26 * time.Hour)
		// 2 requests, their 2 codes and the token.
		if n, err := e.service.Prune(ctx); err != nil || n != 5 {
			t.Fatalf("pruned %d (%v), want 5", n, err)
		}
	})
}
