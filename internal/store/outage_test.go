package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

// TestUnavailable: store.Unavailable says yes to the database out of reach
// and no to what a request or its data did, on both databases.
func TestUnavailable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		execAll(t, db, "CREATE TABLE outage_probe (id TEXT PRIMARY KEY)", "INSERT INTO outage_probe (id) VALUES ('a')")
		_, dup := db.Exec(ctx, "INSERT INTO outage_probe (id) VALUES ('a')")
		_, syntax := db.Exec(ctx, "SELEC 1")
		none := db.QueryRow(ctx, "SELECT id FROM outage_probe WHERE id = 'b'").Scan(new(string))
		done, cancel := context.WithTimeout(ctx, -time.Second)
		defer cancel()
		_, deadline := db.Exec(done, "SELECT 1")
		for _, c := range []struct {
			name string
			err  error
		}{{"duplicate key", dup}, {"syntax", syntax}, {"no rows", none}, {"deadline", deadline},
			{"canceled", fmt.Errorf("x: %w", context.Canceled)}, {"other", errors.New("boom")}} {
			if c.err == nil || store.Unavailable(c.err) {
				t.Fatalf("%s: %v counted as an outage (or no error)", c.name, c.err)
			}
		}
		if !store.Unavailable(fmt.Errorf("wrapped: %w", sql.ErrConnDone)) {
			t.Fatal("sql.ErrConnDone is an outage")
		}
		db.Close()
		_, closed := db.Exec(ctx, "SELECT 1")
		if !store.Unavailable(fmt.Errorf("handler: %w", closed)) {
			t.Fatalf("closed pool: %v not an outage", closed)
		}
	})
}
