package account_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/account"
	"guichet/internal/store"
	"guichet/internal/testenv"
	"guichet/internal/throttle"
)

const ip = "198.51.100.7"

func TestFind(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		active := e.create(belair, "Alex.Martin@Example.com", nil, "")
		temp := e.create(belair, "temp@example.com", nil, "Temp-Pass-1")
		locked := e.create(belair, "locked@example.com", func(a *account.Account) { a.Status = account.Locked }, "")
		e.create(intact, "other@example.com", nil, "")

		found := func(name string, body any, id, state string) testenv.Scenario {
			return testenv.Scenario{Name: name, Request: req(belair, ip, "/api/v1/accounts/find", body),
				JSON: map[string]any{"id": id, "status": state}}
		}
		refused := func(name string, body any, status int, code string) testenv.Scenario {
			return testenv.Scenario{Name: name, Request: req(belair, ip, "/api/v1/accounts/find", body), Status: status, Code: code}
		}
		testenv.Run(t, e.mux,
			found("active", map[string]string{"email": "alex.martin@example.com"}, active.ID, "A"),
			found("any case and spaces", map[string]string{"email": "  ALEX.MARTIN@EXAMPLE.COM "}, active.ID, "A"),
			found("temporary password", map[string]string{"email": "temp@example.com"}, temp.ID, "T"),
			found("locked answers like active", map[string]string{"email": "locked@example.com"}, locked.ID, "A"),
			refused("unknown", map[string]string{"email": "nobody@example.com"}, 404, "ACCOUNT_NOT_FOUND"),
			refused("other brand's account", map[string]string{"email": "other@example.com"}, 404, "ACCOUNT_NOT_FOUND"),
			refused("bad email", map[string]string{"email": "not-an-email"}, 400, "errorEmailFormat"),
			refused("empty email", map[string]string{"email": ""}, 400, "errorEmailRequired"),
			refused("unknown field", map[string]string{"email": "temp@example.com", "x": "y"}, 400, "BAD_REQUEST"),
			refused("not JSON", "{", 400, "BAD_REQUEST"),
		)
		if rows := e.auditRows(active.ID); !contains(rows, "login.find ok") {
			t.Fatalf("find not audited: %v", rows)
		}
	})
}

func TestTemporary(t *testing.T) {
	const tempPassword = "Temp-Pass-1"
	type step struct {
		password   string
		wantStatus int
		wantCode   string
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"right at once", []step{{tempPassword, 200, ""}}},
		{"right after two wrong", []step{{"wrong-1", 400, "3005"}, {"wrong-2", 400, "3005"}, {tempPassword, 200, ""}}},
		{"third wrong invalidates", []step{{"wrong-1", 400, "3005"}, {"wrong-2", 400, "3005"},
			{"wrong-3", 409, "TEMPORARY_PASSWORD_INVALID"}, {tempPassword, 409, "TEMPORARY_PASSWORD_INVALID"}}},
		{"a success resets the count", []step{{"wrong-1", 400, "3005"}, {"wrong-2", 400, "3005"}, {tempPassword, 200, ""},
			{"wrong-3", 400, "3005"}, {tempPassword, 200, ""}}},
		{"empty", []step{{"", 400, "errorPasswordRequired"}}},
	}
	each(t, func(t *testing.T, e *env) {
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				a := e.create(belair, fmt.Sprintf("temp%d@example.com", i), nil, tempPassword)
				for n, s := range c.steps {
					got := e.post(belair, ip, tempPath(a.ID), map[string]string{"tempPassword": s.password})
					if got.Status != s.wantStatus || (s.wantCode != "" && got.Code(t) != s.wantCode) {
						t.Fatalf("step %d: %d %s, want %d %s", n+1, got.Status, got.Body, s.wantStatus, s.wantCode)
					}
				}
			})
		}
		t.Run("expired", func(t *testing.T) {
			a := e.create(belair, "expired@example.com", nil, tempPassword)
			e.Clock.Advance(7*24*time.Hour + time.Second)
			e.post(belair, ip, tempPath(a.ID), map[string]string{"tempPassword": tempPassword}).Expect(t, 409, "")
		})
		t.Run("no temporary password held", func(t *testing.T) {
			a := e.create(belair, "active-temp@example.com", nil, "")
			for _, id := range []string{a.ID, "AAAAAAAAAAAAAAAAAAAAAA"} {
				got := e.post(belair, ip, tempPath(id), map[string]string{"tempPassword": password})
				if got.Status != 409 {
					t.Fatalf("%s: %d %s", id, got.Status, got.Body)
				}
			}
		})
	})
}

func TestAuthentication(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		active := e.create(belair, "alex@example.com", nil, "")
		locked := e.create(belair, "locked@example.com", func(a *account.Account) { a.Status = account.Locked }, "")
		temp := e.create(belair, "temp@example.com", nil, "Temp-Pass-1")
		other := e.create(intact, "alex@example.com", nil, "")

		signedIn := func(name, id string, body map[string]string) testenv.Scenario {
			return testenv.Scenario{Name: name, Request: req(belair, ip, authPath(id), body),
				After: func(t testing.TB, got testenv.Answer) {
					if got.Status != 200 {
						return // the runner said so
					}
					ticket, _ := got.JSON(t)["loginTicket"].(string)
					if len(ticket) < 22 {
						t.Fatalf("login ticket %q is shorter than 128 bits", ticket)
					}
				}}
		}
		refused := func(name, id string, body map[string]string, code string) testenv.Scenario {
			return testenv.Scenario{Name: name, Request: req(belair, ip, authPath(id), body), Status: 400, Code: code}
		}
		testenv.Run(t, e.mux,
			signedIn("right password", active.ID, map[string]string{"password": password}),
			signedIn("leading spaces are not part of a password", active.ID, map[string]string{"password": "  " + password}),
			refused("wrong password", active.ID, map[string]string{"password": "Wrong-Horse-9!"}, "3005"),
			refused("locked, right password", locked.ID, map[string]string{"password": password}, "3005"),
			refused("temporary account", temp.ID, map[string]string{"password": "Temp-Pass-1"}, "3005"),
			refused("unknown account", "AAAAAAAAAAAAAAAAAAAAAA", map[string]string{"password": password}, "3005"),
			refused("other brand's account", other.ID, map[string]string{"password": password}, "3005"),
			signedIn("security answers right", active.ID, map[string]string{"password": password, "dateOfBirth": "1980-04-12", "postalCode": "h2x1y4"}),
			refused("wrong postal code", active.ID, map[string]string{"password": password, "postalCode": "H2X 1Y5"}, "1002"),
			refused("wrong date of birth", active.ID, map[string]string{"password": password, "dateOfBirth": "1981-04-12"}, "1002"),
			refused("bad date of birth", active.ID, map[string]string{"password": password, "dateOfBirth": "12/04/1980"}, "errorDateOfBirthFormat"),
			refused("bad postal code", active.ID, map[string]string{"password": password, "postalCode": "12345"}, "errorPostalCodeFormat"),
			refused("empty password", active.ID, map[string]string{"password": ""}, "errorPasswordRequired"),
		)

		t.Run("locked, unknown and wrong answer the same bytes", func(t *testing.T) {
			wrong := e.post(belair, ip, authPath(active.ID), map[string]string{"password": "Wrong-Horse-9!"})
			for _, id := range []string{locked.ID, "AAAAAAAAAAAAAAAAAAAAAA", temp.ID} {
				got := e.post(belair, ip, authPath(id), map[string]string{"password": password})
				if got.Status != wrong.Status || !bytes.Equal(got.Body, wrong.Body) {
					t.Fatalf("%s answered %d %s; a wrong password answers %d %s", id, got.Status, got.Body, wrong.Status, wrong.Body)
				}
			}
		})

		t.Run("audited without the password", func(t *testing.T) {
			rows := e.auditRows(active.ID)
			for _, want := range []string{"login.authentication ok", "login.authentication wrong_password", "login.authentication wrong_security_answers"} {
				if !contains(rows, want) {
					t.Fatalf("audit lacks %q: %v", want, rows)
				}
			}
			if rows := e.auditRows(locked.ID); !contains(rows, "login.authentication locked") {
				t.Fatalf("locked attempt not audited: %v", rows)
			}
			var n int
			err := e.DB.QueryRow(t.Context(), `SELECT COUNT(*) FROM audit_events WHERE detail LIKE ? OR event LIKE ?
				OR outcome LIKE ? OR ip LIKE ?`, "%Horse%", "%Horse%", "%Horse%", "%Horse%").Scan(&n)
			if err != nil || n != 0 {
				t.Fatalf("a password reached the audit trail (%d rows, %v)", n, err)
			}
			var at int64
			var brandID, gotIP string
			err = e.DB.QueryRow(t.Context(), "SELECT at, brand, ip FROM audit_events WHERE account_id = ? ORDER BY id LIMIT 1", active.ID).
				Scan(&at, &brandID, &gotIP)
			if err != nil || brandID != "belair" || gotIP != ip || at != e.Clock.Now().UnixMilli() {
				t.Fatalf("audit row: at %d brand %q ip %q err %v", at, brandID, gotIP, err)
			}
		})
	})
}

func TestLockout(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.service.Limits.Authenticate = throttle.Rule{} // this test is about the account, not the IP
		a := e.create(belair, "alex@example.com", nil, "")
		wrong := map[string]string{"password": "Wrong-Horse-9!"}
		right := map[string]string{"password": password}
		signIn := func() int { return e.post(belair, ip, authPath(a.ID), right).Status }
		failTimes := func(n int) {
			t.Helper()
			for range n {
				e.post(belair, ip, authPath(a.ID), wrong).Expect(t, 400, "")
				e.Clock.Advance(time.Second)
			}
		}

		// Nine failures, then the right password: no lock.
		failTimes(9)
		if s := signIn(); s != 200 {
			t.Fatalf("after 9 failures the right password answered %d", s)
		}
		// A success clears the count: nine more do not lock either.
		failTimes(9)
		if s := signIn(); s != 200 {
			t.Fatalf("the count was not cleared by a success: %d", s)
		}
		// Failures spread over more than 15 minutes do not add up.
		failTimes(9)
		e.Clock.Advance(15 * time.Minute)
		failTimes(9)
		if s := signIn(); s != 200 {
			t.Fatalf("failures outside the window locked the account: %d", s)
		}

		// Rising waits: each lock after 10 failures lasts longer, the last repeats.
		for i, wait := range []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, time.Hour} {
			failTimes(10)
			e.Clock.Advance(wait - 2*time.Second) // failTimes advanced 1 s after the 10th
			if s := signIn(); s != 400 {
				t.Fatalf("lock %d: the right password answered %d before %v", i+1, s, wait)
			}
			e.Clock.Advance(2 * time.Second)
			if i == 4 { // earlier locks end without a success, keeping the streak
				if s := signIn(); s != 200 {
					t.Fatalf("lock %d did not end after %v: %d", i+1, wait, s)
				}
			}
		}
		// The success cleared the streak: the next lock is 1 minute again.
		failTimes(10)
		e.Clock.Advance(time.Minute)
		if s := signIn(); s != 200 {
			t.Fatalf("after a success the next lock was not 1 minute: %d", s)
		}
		if rows := e.auditRows(a.ID); !contains(rows, "login.authentication locked") {
			t.Fatalf("lockout not audited: %v", rows)
		}
	})
}

func TestRateLimitPerIP(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.service.Limits.Find = throttle.Rule{Scope: "login.find", Limit: 3, Window: time.Minute}
		e.service.Limits.Authenticate = throttle.Rule{Scope: "login.password", Limit: 3, Window: time.Minute}
		a := e.create(belair, "alex@example.com", nil, "")
		cases := []struct {
			name string
			path string
			body map[string]string
		}{
			{"find", "/api/v1/accounts/find", map[string]string{"email": "alex@example.com"}},
			{"authentication", authPath(a.ID), map[string]string{"password": password}},
			{"temporary", tempPath(a.ID), map[string]string{"tempPassword": password}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				e.Clock.Advance(2 * time.Minute) // fresh windows
				attacker, neighbour := "203.0.113.1", "203.0.113.2"
				for i := range 3 {
					if got := e.post(belair, attacker, c.path, c.body); got.Status == 429 {
						t.Fatalf("request %d limited too early", i+1)
					}
				}
				got := e.post(belair, attacker, c.path, c.body)
				if got.Status != 429 || got.Code(t) != "RATE_LIMITED" {
					t.Fatalf("4th request: %d %s, want 429 RATE_LIMITED", got.Status, got.Body)
				}
				// The SPA tells the visitor how long to wait: the header says
				// when a request is allowed again (at most two windows).
				wait, err := strconv.Atoi(got.Header.Get("Retry-After"))
				if err != nil || wait < 1 || wait > 120 {
					t.Fatalf("Retry-After %q, want 1 to 120 seconds", got.Header.Get("Retry-After"))
				}
				if got := e.post(belair, neighbour, c.path, c.body); got.Status == 429 {
					t.Fatal("another IP was limited")
				}
				e.Clock.Advance(time.Duration(wait) * time.Second)
				if got := e.post(belair, attacker, c.path, c.body); got.Status == 429 {
					t.Fatalf("still limited after Retry-After (%d s)", wait)
				}
			})
		}
		var n int
		if err := e.DB.QueryRow(t.Context(), "SELECT COUNT(*) FROM audit_events WHERE outcome = 'rate_limited' AND ip = ?", "203.0.113.1").Scan(&n); err != nil || n < 3 {
			t.Fatalf("rate limiting not audited: %d %v", n, err)
		}
	})
}

func TestRehashOnLogin(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create(belair, "alex@example.com", nil, "")
		// The service now hashes with other parameters than the stored hash.
		e.service.Hasher = account.NewHasher(account.Params{Memory: 128, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32})
		stored := func() string {
			var h string
			if err := e.DB.QueryRow(t.Context(), "SELECT password_hash FROM accounts WHERE id = ?", a.ID).Scan(&h); err != nil {
				t.Fatal(err)
			}
			return h
		}
		if got := e.post(belair, ip, authPath(a.ID), map[string]string{"password": "Wrong-Horse-9!"}); got.Status != 400 {
			t.Fatalf("wrong password: %d", got.Status)
		}
		if !strings.Contains(stored(), "m=64,t=1,p=1") {
			t.Fatalf("a failed login re-hashed: %s", stored())
		}
		e.post(belair, ip, authPath(a.ID), map[string]string{"password": password}).Expect(t, 200, "")
		if !strings.HasPrefix(stored(), "$argon2id$v=19$m=128,t=2,p=1$") {
			t.Fatalf("not re-hashed with the new parameters: %s", stored())
		}
		if got := e.post(belair, ip, authPath(a.ID), map[string]string{"password": password}); got.Status != 200 {
			t.Fatalf("the re-hashed password does not sign in: %d", got.Status)
		}
	})
}

func TestConsumeTicket(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create(belair, "Alex@example.com", nil, "")
		ticket := func() string {
			got := e.post(belair, ip, authPath(a.ID), map[string]string{"password": password})
			if got.Status != 200 {
				t.Fatalf("authentication: %d", got.Status)
			}
			return got.JSON(t)["loginTicket"].(string)
		}
		consume := func(brandID, username, tk string) error {
			return e.DB.InTx(t.Context(), func(tx *store.Tx) error {
				_, err := account.ConsumeTicket(t.Context(), tx, brandID, username, tk, e.Clock.Now())
				return err
			})
		}
		cases := []struct {
			name    string
			run     func() error
			wantErr error
		}{
			{"valid, username in any case", func() error { return consume("belair", "alex@EXAMPLE.com", ticket()) }, nil},
			{"used twice", func() error {
				tk := ticket()
				if err := consume("belair", "alex@example.com", tk); err != nil {
					return err
				}
				return consume("belair", "alex@example.com", tk)
			}, account.ErrTicketInvalid},
			{"expired", func() error {
				tk := ticket()
				e.Clock.Advance(account.TicketTTL)
				return consume("belair", "alex@example.com", tk)
			}, account.ErrTicketInvalid},
			{"another username", func() error { return consume("belair", "bob@example.com", ticket()) }, account.ErrTicketInvalid},
			{"another brand", func() error { return consume("intact", "alex@example.com", ticket()) }, account.ErrTicketInvalid},
			{"unknown", func() error { return consume("belair", "alex@example.com", "made-up") }, account.ErrTicketInvalid},
			{"account locked since", func() error {
				tk := ticket()
				if err := e.DB.InTx(t.Context(), func(tx *store.Tx) error {
					return account.Lock(t.Context(), tx, a.ID, e.Clock.Now().Add(time.Minute), e.Clock.Now())
				}); err != nil {
					return err
				}
				return consume("belair", "alex@example.com", tk)
			}, account.ErrTicketInvalid},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if err := c.run(); err != c.wantErr {
					t.Fatalf("got %v, want %v", err, c.wantErr)
				}
			})
		}
		var n int
		if err := e.DB.QueryRow(t.Context(), "SELECT COUNT(*) FROM login_tickets WHERE token_hash LIKE '%-%'").Scan(&n); err != nil || n != 0 {
			t.Fatalf("tickets are not stored as hex hashes: %d %v", n, err)
		}
	})
}

// Every sign-in counts once under its method and audit outcome, a refusal
// for a busy hasher under the hash's shed counter (and as no sign-in), and
// every hash that ran once in the hash wait histogram (issue 33).
func TestSignInMetrics(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		reg := prometheus.NewRegistry()
		m := account.NewMetrics(reg)
		e.service.Metrics, e.service.Hasher.Metrics = m, m
		e.service.Limits.Authenticate = throttle.Rule{Scope: "login.password", Limit: 2, Window: time.Minute}
		active := e.create(belair, "alex@example.com", nil, "")
		locked := e.create(belair, "locked@example.com", func(a *account.Account) { a.Status = account.Locked }, "")
		disabled := e.create(belair, "gone@example.com", nil, "")
		if err := e.service.Disable(t.Context(), belair.ID, disabled.ID, "staff:jdoe", ""); err != nil {
			t.Fatal(err)
		}
		temp := e.create(belair, "temp@example.com", nil, "Temp-Pass-1")
		hashes := account.LogHashes(e.service.Hasher)
		for i, c := range []struct {
			path   string
			body   map[string]string
			status int
			from   string
		}{
			{authPath(active.ID), map[string]string{"password": password}, 200, "203.0.113.1"},
			{authPath(active.ID), map[string]string{"password": "Wrong-Horse-9!"}, 400, "203.0.113.2"},
			{authPath("AAAAAAAAAAAAAAAAAAAAAA"), map[string]string{"password": password}, 400, "203.0.113.3"},
			{authPath(locked.ID), map[string]string{"password": password}, 400, "203.0.113.4"},
			{authPath(disabled.ID), map[string]string{"password": password}, 403, "203.0.113.5"},
			{tempPath(temp.ID), map[string]string{"tempPassword": "Wrong-Temp-1"}, 400, "203.0.113.6"},
			{authPath(active.ID), map[string]string{"password": password}, 200, "203.0.113.7"},
			{authPath(active.ID), map[string]string{"password": password}, 200, "203.0.113.7"},
			{authPath(active.ID), map[string]string{"password": password}, 429, "203.0.113.7"},
		} {
			if got := e.post(belair, c.from, c.path, c.body); got.Status != c.status {
				t.Fatalf("attempt %d: %d %s, want %d", i+1, got.Status, got.Body, c.status)
			}
		}
		release := account.SaturateHashers(t, e.service.Hasher)
		e.post(belair, "203.0.113.8", authPath(active.ID), map[string]string{"password": password}).Expect(t, 429, "BUSY")
		release()
		for _, c := range []struct {
			method, outcome string
			want            float64
		}{
			{"password", "ok", 3}, {"password", "wrong_password", 2}, {"password", "locked", 1},
			{"password", "disabled", 1}, {"password", "rate_limited", 1}, {"temporary", "wrong_temporary", 1},
		} {
			if got := testenv.Metric(t, reg, "guichet_sign_ins_total", "method", c.method, "outcome", c.outcome); got != c.want {
				t.Errorf("sign-ins %s %s: %v, want %v", c.method, c.outcome, got, c.want)
			}
		}
		if got := testenv.Metric(t, reg, "guichet_hash_shed_total"); got != 1 {
			t.Errorf("shed: %v, want 1", got)
		}
		// Eight checks, and the unknown account's dummy hash made once.
		ran := len(hashes.Take())
		if got := testenv.Metric(t, reg, "guichet_hash_wait_seconds"); ran != 9 || got != float64(ran) {
			t.Errorf("hash waits observed: %v; %d hashes ran, want 9", got, ran)
		}
	})
}
