package account_test

import (
	"testing"
	"time"
)

func TestPrune(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create(belair, "alex@example.com", nil, "")
		e.post(belair, ip, authPath(a.ID), map[string]string{"password": password})         // a ticket
		e.post(belair, ip, authPath(a.ID), map[string]string{"password": "Wrong-Horse-9!"}) // a failure
		e.post(belair, ip, notifyPath(a.ID), map[string]string{"mediumType": "EMAIL", "notificationType": "RESET_PSW"})
		count := func(table string) int { return e.Count(t, "SELECT COUNT(*) FROM "+table) }
		tables := []string{"login_tickets", "login_failures", "password_reset_tokens", "rate_limits"}
		if n, err := e.service.Prune(t.Context()); err != nil || n != 0 {
			t.Fatalf("Prune of live rows = %d, %v", n, err)
		}
		for _, table := range tables {
			if count(table) == 0 {
				t.Fatalf("%s is empty before the test", table)
			}
		}
		e.Clock.Advance(2 * time.Hour)
		if _, err := e.service.Prune(t.Context()); err != nil {
			t.Fatal(err)
		}
		for _, table := range tables {
			if n := count(table); n != 0 {
				t.Fatalf("%s keeps %d dead rows", table, n)
			}
		}
	})
}
