package recovery_test

import (
	"maps"
	"regexp"
	"strconv"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/notify"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

var sixDigits = regexp.MustCompile(`^[0-9]{6}$`)

func TestRequestAnswersAlikeForKnownAndUnknownEmails(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create("alex@example.com", nil, "")
		e.create("intact-only@example.com", func(a *account.Account) { a.Brand = intact.ID }, "")
		cases := []struct {
			name       string
			email      string
			language   string
			wantID     string // "" : a decoy, not the account's
			wantEmails int
		}{
			{"known email", "alex@example.com", "en", a.ID, 1},
			{"known email, other case and spaces", "  ALEX@Example.com ", "fr", a.ID, 1},
			{"unknown email", "nobody@example.com", "en", "", 0},
			{"email of another brand's account only", "intact-only@example.com", "en", "", 0},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				before := len(e.outbox())
				got := e.postAs(belair, c.language, requestPath, map[string]string{"email": c.email})
				got.Expect(t, 200, "")
				first := startedOf(t, got)
				again := startedOf(t, e.postAs(belair, c.language, requestPath, map[string]string{"email": c.email}))
				if first.id != again.id {
					t.Fatalf("two requests answered two ids (%s, %s): a decoy would show", first.id, again.id)
				}
				if first.validationID == again.validationID {
					t.Fatal("two requests answered the same validation id")
				}
				if c.wantID != "" && first.id != c.wantID {
					t.Fatalf("id %s, want the account's %s", first.id, c.wantID)
				}
				if c.wantID == "" && first.id == a.ID {
					t.Fatal("an unknown email got the account's id")
				}
				sent := e.outbox()[before:]
				if len(sent) != 2*c.wantEmails {
					t.Fatalf("%d emails queued for two requests, want %d", len(sent), 2*c.wantEmails)
				}
				for _, m := range sent {
					if m.Template != notify.TemplateResetCode || m.Recipient != a.Email || m.Language != c.language ||
						!sixDigits.MatchString(m.Data[notify.DataCode]) || m.Data[notify.DataMinutes] != "10" {
						t.Fatalf("queued %+v", m)
					}
					if want := e.Clock.Now().Add(10 * time.Minute).UnixMilli(); m.ExpiresAt != want {
						t.Fatalf("email expires at %d, want with the code at %d", m.ExpiresAt, want)
					}
				}
			})
		}
		t.Run("decoy ids differ per email and brand", func(t *testing.T) {
			x := e.request("x@example.com")
			y := e.request("y@example.com")
			other := startedOf(t, e.postAs(intact, "en", requestPath, map[string]string{"email": "x@example.com"}))
			if x.id == y.id || x.id == other.id {
				t.Fatalf("decoy ids collide: %s %s %s", x.id, y.id, other.id)
			}
		})
		testenv.Run(t, e.mux,
			scenario("malformed email", requestPath, `{"email":"not-an-email"}`, 400, "errorEmailFormat"),
			scenario("empty email", requestPath, `{"email":""}`, 400, "errorEmailRequired"),
			scenario("unknown field", requestPath, `{"email":"alex@example.com","x":1}`, 400, "BAD_REQUEST"),
			scenario("not JSON", requestPath, `email=alex`, 400, "BAD_REQUEST"),
		)
	})
}

// TestRequestKnownAndUnknownDoTheSameWork checks that a request for an
// unknown email costs what one for a known email does, counted instead of
// timed: the same rows written to every table (the rate limits, the reset
// request, its code, the audit), the email only queued in the outbox (never
// sent inside the request), and answers of the same shape.
func TestRequestKnownAndUnknownDoTheSameWork(t *testing.T) {
	tables := []string{"password_resets", "password_reset_codes", "recovery_tokens", "audit_events", "outbox"}
	each(t, func(t *testing.T, e *env) {
		e.service.Limits.Request = rule("recovery.request", 100)
		e.service.Limits.CodesPerAccount = rule("recovery.codes", 100)
		e.create("alex@example.com", nil, "")
		rows := func() map[string]int {
			counts := map[string]int{}
			for _, table := range tables {
				counts[table] = e.Count(t, "SELECT COUNT(*) FROM "+table)
			}
			counts["rate limit hits"] = e.Count(t, "SELECT COALESCE(SUM(hits), 0) FROM rate_limits")
			return counts
		}
		written := map[string]map[string]int{}
		for _, c := range []struct{ name, email string }{{"known", "alex@example.com"}, {"unknown", "nobody@example.com"}} {
			name, email := c.name, c.email
			before := rows()
			got := e.serve(belair, "en", requestPath, map[string]string{"email": email})
			got.Expect(t, 200, "")
			if !idShape.MatchString(got.Str(t, "id")) || !idShape.MatchString(got.Str(t, "validationId")) {
				t.Fatalf("%s: answer %s", name, got.Body)
			}
			after := rows()
			written[name] = map[string]int{}
			for k, n := range after {
				written[name][k] = n - before[k]
			}
		}
		// The known email's code is queued, and only queued.
		queued := e.Count(t, "SELECT COUNT(*) FROM outbox WHERE state = 'queued'")
		other := e.Count(t, "SELECT COUNT(*) FROM outbox WHERE state <> 'queued'")
		if written["known"]["outbox"] != 1 || written["unknown"]["outbox"] != 0 || queued != 1 || other != 0 {
			t.Fatalf("outbox: known wrote %d, unknown %d; %d queued, %d in other states",
				written["known"]["outbox"], written["unknown"]["outbox"], queued, other)
		}
		delete(written["known"], "outbox")
		delete(written["unknown"], "outbox")
		if !maps.Equal(written["known"], written["unknown"]) {
			t.Fatalf("rows written: known %v, unknown %v", written["known"], written["unknown"])
		}
	})
}

func TestNewCodeInvalidatesThePreviousOne(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create("alex@example.com", nil, "")
		first := e.request(a.Email)
		firstCode := e.lastCode(a.Email)
		second := e.request(a.Email)
		secondCode := e.lastCode(a.Email)
		e.post(validatePath(first.id, first.validationID), map[string]string{"validationValue": firstCode}).
			Expect(t, 403, "CODE_EXPIRED")
		if firstCode != secondCode {
			// The old code under the new validation id is just wrong.
			e.post(validatePath(second.id, second.validationID), map[string]string{"validationValue": firstCode}).
				Expect(t, 400, "INVALID_ACTIVATION_CODE")
		}
		got := e.post(validatePath(second.id, second.validationID), map[string]string{"validationValue": secondCode})
		got.Expect(t, 200, "")
		if e.pokes != 2 {
			t.Fatalf("worker poked %d times for 2 emails", e.pokes)
		}
	})
}

func TestResend(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create("alex@example.com", nil, "")
		for _, c := range []struct {
			name  string
			email string
			known bool
		}{
			{"known email", a.Email, true},
			{"unknown email", "nobody@example.com", false},
		} {
			t.Run(c.name, func(t *testing.T) {
				s := e.request(c.email)
				before := len(e.mails(notify.TemplateResetCode, a.Email))
				seen := map[string]bool{s.validationID: true}
				prev := s
				// Spec §9: 4 resends; the fifth lands on the roadblock.
				for i := 1; i <= 5; i++ {
					got := e.post(resendPath(prev.id, prev.validationID), nil)
					if i == 5 {
						got.Expect(t, 409, "RESEND_LIMIT_REACHED")
						break
					}
					got.Expect(t, 200, "")
					next := startedOf(t, got)
					if next.id != s.id || seen[next.validationID] {
						t.Fatalf("resend %d answered %+v after %+v", i, next, prev)
					}
					seen[next.validationID] = true
					prev = next
				}
				sent := len(e.mails(notify.TemplateResetCode, a.Email)) - before
				if want := map[bool]int{true: 4, false: 0}[c.known]; sent != want {
					t.Fatalf("%d codes emailed by 4 resends, want %d", sent, want)
				}
				if !c.known {
					return
				}
				// Only the last code works: the others died with each resend.
				e.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": "123456"}).
					Expect(t, 403, "CODE_EXPIRED")
				e.post(validatePath(prev.id, prev.validationID), map[string]string{"validationValue": e.lastCode(a.Email)}).
					Expect(t, 200, "")
				e.post(resendPath(prev.id, prev.validationID), nil).Expect(t, 409, "RESET_CLOSED")
			})
		}
		t.Run("after the code was used", func(t *testing.T) {
			b := e.create("used@example.com", nil, "")
			s := e.request(b.Email)
			e.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": e.lastCode(b.Email)}).Expect(t, 200, "")
			e.post(resendPath(s.id, s.validationID), nil).Expect(t, 409, "RESET_CLOSED")
		})
		t.Run("unknown ids", func(t *testing.T) {
			s := e.request(a.Email)
			other := e.request("someone@example.com")
			for _, p := range []string{
				resendPath(s.id, "AAAAAAAAAAAAAAAAAAAAAA"),
				resendPath(other.id, s.validationID), // another request's id
			} {
				e.post(p, nil).Expect(t, 404, "RESET_NOT_FOUND")
			}
			e.post(resendPath(s.id, "x"), nil).Expect(t, 404, "NOT_FOUND") // not an id at all
			startedOf(t, e.postAs(belair, "en", resendPath(s.id, s.validationID), nil))
			e.postAs(intact, "en", resendPath(s.id, s.validationID), nil).Expect(t, 404, "RESET_NOT_FOUND")
		})
	})
}

func TestRateLimits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Run("requests per IP", func(t *testing.T) {
			e := newEnv(t, db)
			e.service.Limits.Request = rule("test.request", 3)
			for range 3 {
				e.request("nobody@example.com")
			}
			got := e.post(requestPath, map[string]string{"email": "nobody@example.com"})
			got.Expect(t, 429, "RATE_LIMITED")
			expectRetryAfter(t, e, got, func() answer { return e.post(requestPath, map[string]string{"email": "nobody@example.com"}) })
		})
		t.Run("codes per account", func(t *testing.T) {
			e := newEnv(t, db)
			e.service.Limits.CodesPerAccount = rule("test.codes", 2)
			a := e.create("capped@example.com", nil, "")
			e.request(a.Email)
			s := e.request(a.Email)
			over := e.request(a.Email) // answered alike, nothing sent
			if n := len(e.mails(notify.TemplateResetCode, a.Email)); n != 2 {
				t.Fatalf("%d codes emailed, want 2", n)
			}
			if over.id != a.ID {
				t.Fatalf("id %s over the cap", over.id)
			}
			// The email cap is not a way around "a new code kills the
			// previous one": nothing sent, and nothing older works.
			e.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": e.lastCode(a.Email)}).
				Expect(t, 403, "CODE_EXPIRED")
		})
		t.Run("wrong codes per account across codes", func(t *testing.T) {
			e := newEnv(t, db)
			e.service.Limits.GuessesPerAccount = 7
			a := e.create("guesser@example.com", nil, "")
			s := e.request(a.Email)
			code := e.lastCode(a.Email)
			for range 5 {
				e.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": wrong(code)})
			}
			s = e.request(a.Email)
			code = e.lastCode(a.Email)
			for range 2 {
				e.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": wrong(code)}).
					Expect(t, 400, "INVALID_ACTIVATION_CODE")
			}
			e.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": code}).
				Expect(t, 403, "EXCEEDED_RETRIES_CODE_ACTIVATION")
			e.Clock.Advance(24*time.Hour + time.Minute)
			s = e.request(a.Email)
			e.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": e.lastCode(a.Email)}).Expect(t, 200, "")
		})
		t.Run("code checks per IP", func(t *testing.T) {
			e := newEnv(t, db)
			e.service.Limits.Verify = rule("test.verify", 2)
			s := e.request("nobody@example.com")
			for range 2 {
				e.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": "123456"}).Expect(t, 400, "INVALID_ACTIVATION_CODE")
			}
			got := e.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": "123456"})
			got.Expect(t, 429, "RATE_LIMITED")
			expectRetryAfter(t, e, got, func() answer {
				return e.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": "123456"})
			})
		})
	})
}

// expectRetryAfter checks that a 429 tells how long to wait (the SPA says it
// in minutes) and that retry, sent after that wait, is no longer limited.
func expectRetryAfter(t *testing.T, e *env, limited answer, retry func() answer) {
	t.Helper()
	wait, err := strconv.Atoi(limited.Header.Get("Retry-After"))
	if err != nil || wait < 1 || wait > 2*3600 {
		t.Fatalf("Retry-After %q, want 1 s to two windows", limited.Header.Get("Retry-After"))
	}
	e.Clock.Advance(time.Duration(wait) * time.Second)
	if got := retry(); got.Status == 429 {
		t.Fatalf("still limited after Retry-After (%d s)", wait)
	}
}
