package registration_test

import (
	"net/http"
	"testing"
	"time"

	"guichet/internal/identity"
	"guichet/internal/notify"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
	"guichet/internal/throttle"
)

// started finds Emma (EMAIL option) and returns the registration id and
// the EMAIL option's id.
func (e *env) started() (id, email string) {
	e.t.Helper()
	id, ids := e.start("REG0001", "Emma", "Courriel")
	return id, ids["EMAIL"]
}

// TestGuards: calls out of order, after the registration closed or
// expired, and past the code's limits are refused (spec §4.2 guards).
func TestGuards(t *testing.T) {
	cases := []testenv.Case[*env]{
		{Name: "a code check before a send", Run: func(t *testing.T, e *env) {
			id, opt := e.started()
			e.value(id, opt, "123456").Expect(t, 409, "REGISTRATION_STATE")
		}},
		{Name: "unknown registration, other brand's", Run: func(t *testing.T, e *env) {
			_, opt := e.started()
			e.send("AAAAAAAAAAAAAAAAAAAAAA", opt).Expect(t, 404, "NOT_FOUND")
			e.create("AAAAAAAAAAAAAAAAAAAAAA", newPassword).Expect(t, 404, "NOT_FOUND")
			e.post("/api/v1/registrations/AAAAAAAAAAAAAAAAAAAAAA/authentication", map[string]string{"password": "x"}).
				Expect(t, 404, "NOT_FOUND")
			e.send("short", opt).Expect(t, 404, "NOT_FOUND")
			var n int
			if err := e.DB.QueryRow(t.Context(), "UPDATE registrations SET brand = 'intact' RETURNING 1").Scan(&n); err != nil {
				t.Fatal(err)
			}
			id, _ := e.started()
			e.send(id, opt).Expect(t, 409, "REGISTRATION_STATE") // an option of the other registration
		}},
		{Name: "expired after 30 minutes", Run: func(t *testing.T, e *env) {
			id, opt := e.started()
			e.send(id, opt).Expect(t, 200, "")
			e.Clock.Advance(identity.TTL)
			e.send(id, opt).Expect(t, 409, "REGISTRATION_STATE")
			e.value(id, opt, e.Mail.Next(t, "emma@example.com").Data[notify.DataCode]).Expect(t, 409, "REGISTRATION_STATE")
		}},
		{Name: "a code expires after 10 minutes", Run: func(t *testing.T, e *env) {
			id, opt := e.started()
			e.send(id, opt).Expect(t, 200, "")
			e.Clock.Advance(identity.CodeTTL)
			e.value(id, opt, e.Mail.Next(t, "emma@example.com").Data[notify.DataCode]).Expect(t, 403, "EXCEEDED_RETRIES_CODE_ACTIVATION")
		}},
		{Name: "5 wrong guesses kill the code", Run: func(t *testing.T, e *env) {
			id, opt := e.started()
			e.send(id, opt).Expect(t, 200, "")
			code := e.Mail.Next(t, "emma@example.com").Data[notify.DataCode]
			wrong := "000000"
			if code == wrong {
				wrong = "111111"
			}
			for left := 4; left >= 1; left-- {
				if got := e.value(id, opt, wrong).Expect(t, 400, "INVALID_ACTIVATION_CODE").JSON(t)["triesLeft"]; got != float64(left) {
					t.Fatalf("triesLeft %v, want %d", got, left)
				}
			}
			e.value(id, opt, wrong).Expect(t, 403, "EXCEEDED_RETRIES_CODE_ACTIVATION")
			e.value(id, opt, code).Expect(t, 403, "EXCEEDED_RETRIES_CODE_ACTIVATION")
			// A resend gives a new code with its own guesses.
			e.proveByCode(id, opt, "emma@example.com", 200)
		}},
		{Name: "5 wrong PINs", Run: func(t *testing.T, e *env) {
			id, ids := e.start("REG0003", "Paula", "Nip")
			for range 4 {
				e.value(id, ids["PIN"], "ZZZZZZZZ").Expect(t, 400, "INVALID_ACTIVATION_CODE")
			}
			e.value(id, ids["PIN"], "ZZZZZZZZ").Expect(t, 403, "EXCEEDED_RETRIES_CODE_ACTIVATION")
			e.value(id, ids["PIN"], pin).Expect(t, 403, "EXCEEDED_RETRIES_CODE_ACTIVATION")
		}},
		{Name: "3 resends at most; an email code's fourth is too many emails", Run: func(t *testing.T, e *env) {
			id, opt := e.started()
			for left := 3; left >= 0; left-- {
				if got := e.send(id, opt).Expect(t, 200, "").JSON(t)["resendsLeft"]; got != float64(left) {
					t.Fatalf("resendsLeft %v, want %d", got, left)
				}
				e.Mail.Next(t, "emma@example.com")
			}
			e.send(id, opt).Expect(t, 403, "EXCEEDED_EMAIL_RESENDS")
			e.Mail.None(t, "emma@example.com")
		}},
		{Name: "an SMS code's fourth resend", Run: func(t *testing.T, e *env) {
			id, ids := e.start("REG0002", "Simon", "Texto")
			e.sendsUntilRefused(id, ids["SMS"], "+15145550101", 4, "EXCEEDED_RESENDS")
		}},
		{Name: "the code to an email typed: three resends, then too many emails", Run: func(t *testing.T, e *env) {
			id, ids := e.start("REG0004", "Alice", "Sansfil")
			_, next := optionsOf(t, e.value(id, ids["ask-email"], "alice@example.com").Expect(t, 240, ""))
			e.Mail.Next(t, "alice@example.com")
			e.sendsUntilRefused(id, next["ask-email-code"], "alice@example.com", 3, "EXCEEDED_EMAIL_RESENDS")
		}},
		{Name: "a malformed code or PIN is not a guess", Run: func(t *testing.T, e *env) {
			id, opt := e.started()
			e.send(id, opt).Expect(t, 200, "")
			for range 6 {
				e.value(id, opt, "12345").Expect(t, 400, "VALIDATION")
			}
			e.value(id, opt, e.Mail.Next(t, "emma@example.com").Data[notify.DataCode]).Expect(t, 200, "")
		}},
		{Name: "nothing after create", Run: func(t *testing.T, e *env) {
			id, opt := e.started()
			e.proveByCode(id, opt, "emma@example.com", 200)
			e.create(id, newPassword).Expect(t, 201, "")
			e.create(id, newPassword).Expect(t, 409, "REGISTRATION_STATE")
			e.send(id, opt).Expect(t, 409, "REGISTRATION_STATE")
		}},
	}
	testenv.RunCases(t, newEnv, cases)
}

// TestConcurrentCreatesMakeOneAccount: 16 creates of one registration at
// once give one account; the others are refused.
func TestConcurrentCreatesMakeOneAccount(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		id, opt := e.started()
		e.proveByCode(id, opt, "emma@example.com", 200)
		got := testenv.Parallel(16, func() testenv.Answer { return e.create(id, newPassword) })
		if got[http.StatusCreated] != 1 || got[http.StatusConflict] != 15 {
			t.Fatalf("statuses %v", got)
		}
		var n int
		if err := db.QueryRow(t.Context(), "SELECT COUNT(*) FROM accounts WHERE email = 'emma@example.com'").Scan(&n); err != nil || n != 1 {
			t.Fatalf("%d accounts (%v)", n, err)
		}
		e.linked("emma@example.com")
		e.Mail.Next(t, "emma@example.com") // one welcome email
	})
}

// TestConcurrentRightCodesSucceedOnce: 16 submits of the right code at
// once: one verifies, the others are refused (single use).
func TestConcurrentRightCodesSucceedOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		id, opt := e.started()
		e.send(id, opt).Expect(t, 200, "")
		code := e.Mail.Next(t, "emma@example.com").Data[notify.DataCode]
		got := testenv.Parallel(16, func() testenv.Answer { return e.value(id, opt, code) })
		if got[http.StatusOK] != 1 || got[http.StatusConflict] != 15 {
			t.Fatalf("statuses %v", got)
		}
	})
}

// TestLimits: identification per client address and per policy number,
// codes per person; refusals are 429 with Retry-After and audited.
func TestLimits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		e.svc.Limits.FindPerPolicy = throttle.Rule{Scope: "registration.find.policy", Limit: 2, Window: time.Hour}
		e.find("REG0001", "Emma", "Courriel").Expect(t, 240, "")
		e.find("REG-0001", "Someone", "Else").Expect(t, 404, "")
		a := e.find("reg0001", "Emma", "Courriel").Expect(t, 429, "RATE_LIMITED")
		if a.Header.Get("Retry-After") == "" {
			t.Fatal("no Retry-After")
		}
		e.find("REG0002", "Simon", "Texto").Expect(t, 240, "")

		e.svc.Limits.FindPerIP = throttle.Rule{Scope: "registration.find.ip", Limit: 1, Window: 10 * time.Minute}
		e.find("REG0003", "Paula", "Nip").Expect(t, 240, "")
		e.find("REG0004", "Alice", "Sansfil").Expect(t, 429, "RATE_LIMITED")
		e.svc.Limits.FindPerIP = throttle.Rule{}

		e.svc.Limits.SendsPerPerson = throttle.Rule{Scope: "registration.codes", Limit: 1, Window: time.Hour}
		id, ids := e.start("REG0002", "Simon", "Texto")
		e.send(id, ids["SMS"]).Expect(t, 200, "")
		e.send(id, ids["EMAIL"]).Expect(t, 429, "RATE_LIMITED")

		var n int
		if err := db.QueryRow(t.Context(),
			"SELECT COUNT(*) FROM audit_events WHERE event LIKE 'registration.%' AND outcome = 'rate_limited'").Scan(&n); err != nil || n != 3 {
			t.Fatalf("%d rate_limited audit rows (%v)", n, err)
		}
	})
}

// TestPrune deletes registrations a day after they expired, not before.
func TestPrune(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		e.started()
		e.Clock.Advance(identity.TTL + 23*time.Hour)
		if n, err := e.svc.Prune(t.Context()); err != nil || n != 0 {
			t.Fatalf("Prune = %d, %v", n, err)
		}
		e.Clock.Advance(time.Hour)
		if n, err := e.svc.Prune(t.Context()); err != nil || n != 1 {
			t.Fatalf("Prune = %d, %v", n, err)
		}
	})
}
