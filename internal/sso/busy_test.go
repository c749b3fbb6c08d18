package sso_test

import (
	"testing"
	"time"

	"guichet/internal/store/storetest"
)

// While the hashers are over their wait budget, a form post with a ticket
// still signs in (it hashes nothing); one that needs the password check is
// shed to the technical roadblock (spec §8.5 has no "busy"), counting
// nothing.
func TestLoginFormWhileBusy(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create(belair, "alex@example.com", nil)
		ticket := e.ticket("belair.example", a.ID)
		e.accounts.Hasher.WaitBudget = time.Nanosecond // every expected wait is over it
		before := storetest.Snapshot(t, e.DB, "rate_limits", "login_failures", "accounts", "audit_events")
		if res := e.login("belair.example", form("alex@example.com", "Wrong-Horse-9!", "")); res.Header.Get("Location") != "/webseal.do?error=0x38cf04d7" {
			t.Fatalf("password form post while busy: %d to %s", res.Status, res.Header.Get("Location"))
		}
		if after := storetest.Snapshot(t, e.DB, "rate_limits", "login_failures", "accounts", "audit_events"); after != before {
			t.Fatalf("a shed form post counted something:\nbefore %s\nafter  %s", before, after)
		}
		if res := e.login("belair.example", form("alex@example.com", "", ticket)); res.Header.Get("Location") != "/my-account" {
			t.Fatalf("ticket form post while busy: %d to %s", res.Status, res.Header.Get("Location"))
		}
	})
}
