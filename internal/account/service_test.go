package account_test

import (
	"context"
	"testing"
	"time"

	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

func TestPrune(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		a := e.create(belair, "alex@example.com", nil, "")
		e.post(belair, ip, authPath(a.ID), map[string]string{"password": password})         // a ticket
		e.post(belair, ip, authPath(a.ID), map[string]string{"password": "Wrong-Horse-9!"}) // a failure
		e.post(belair, ip, notifyPath(a.ID), map[string]string{"mediumType": "EMAIL", "notificationType": "RESET_PSW"})
		count := func(table string) int {
			var n int
			if err := db.QueryRow(context.Background(), "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		tables := []string{"login_tickets", "login_failures", "password_reset_tokens", "rate_limits"}
		if n, err := e.service.Prune(context.Background()); err != nil || n != 0 {
			t.Fatalf("Prune of live rows = %d, %v", n, err)
		}
		for _, table := range tables {
			if count(table) == 0 {
				t.Fatalf("%s is empty before the test", table)
			}
		}
		e.Clock.Advance(2 * time.Hour)
		if _, err := e.service.Prune(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, table := range tables {
			if n := count(table); n != 0 {
				t.Fatalf("%s keeps %d dead rows", table, n)
			}
		}
	})
}
