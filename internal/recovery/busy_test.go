package recovery_test

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"guichet/internal/store/storetest"
)

// counted are the tables a password set writes before or after its hash.
var counted = []string{"rate_limits", "recovery_tokens", "accounts", "login_failures", "audit_events", "outbox"}

// Over the hash wait budget, both variants of the password set answer 429
// BUSY with Retry-After before anything is counted: not the rate limits,
// not the token's tries, not the temporary password's.
func TestPasswordSetIsRefusedWhenBusyBeforeAnythingCounts(t *testing.T) {
	const temp = "Temp-Pass-2026"
	each(t, func(t *testing.T, e *env) {
		e.service.Limits.Password = rule("recovery.password", 100)
		e.accounts.Limits.Authenticate = rule("login.password", 100)
		holder := e.create("holder@example.com", nil, "")
		token := e.verified(holder)
		tmp := e.create("tmp@example.com", nil, temp)
		requests := []struct {
			name, id string
			body     map[string]string
		}{
			{"token, wrong postal code", holder.ID, map[string]string{"password": newPassword, "token": token, "postalCode": "H3Z 2Y7"}},
			{"token, right postal code", holder.ID, map[string]string{"password": newPassword, "token": token, "postalCode": postalCode}},
			{"wrong temporary password", tmp.ID, map[string]string{"password": newPassword, "tempPassword": "Wrong-Temp-1"}},
			{"unknown account", "AAAAAAAAAAAAAAAAAAAAAA", map[string]string{"password": newPassword, "tempPassword": temp}},
		}
		// Every expected wait is over a budget of a nanosecond.
		e.accounts.Hasher.WaitBudget = time.Nanosecond
		e.outbox()
		before := storetest.Snapshot(t, e.DB, counted...)
		var first []byte
		for _, r := range requests {
			got := e.post(passwordPath(r.id), r.body)
			got.Expect(t, 429, "BUSY")
			// Seconds from the measured hash time: at least one.
			if n, err := strconv.Atoi(got.Header.Get("Retry-After")); err != nil || n < 1 || got.Str(t, "messageKey") != "error.busy" {
				t.Fatalf("%s: Retry-After %q: %s", r.name, got.Header.Get("Retry-After"), got.Body)
			}
			if first == nil {
				first = got.Body
			} else if !bytes.Equal(got.Body, first) {
				t.Fatalf("%s: %s, not %s", r.name, got.Body, first)
			}
		}
		if after := storetest.Snapshot(t, e.DB, counted...); after != before {
			t.Fatalf("a refused request changed the counters:\nbefore %s\nafter  %s", before, after)
		}
		// With room again, the same requests are checked and counted.
		e.accounts.Hasher.WaitBudget = time.Minute
		e.post(passwordPath(holder.ID), requests[0].body).Expect(t, 400, "1002")
		e.post(passwordPath(tmp.ID), requests[2].body).Expect(t, 400, "3005")
		if storetest.Snapshot(t, e.DB, counted...) == before {
			t.Fatal("admitted wrong answers counted nothing")
		}
	})
}
