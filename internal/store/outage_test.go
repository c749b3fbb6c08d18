package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
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

// TestErrorsAreCounted: the database's errors count by operation and class
// (issue 33); a unique violation (a flow's answer) and a statement whose
// context ended (the caller's) do not.
func TestErrorsAreCounted(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		reg := prometheus.NewRegistry()
		db.Metrics = store.NewMetrics(reg)
		execAll(t, db, "CREATE TABLE error_probe (id TEXT PRIMARY KEY)", "INSERT INTO error_probe (id) VALUES ('a')")
		done, cancel := context.WithTimeout(ctx, -time.Second)
		defer cancel()
		_, _ = db.Exec(ctx, "INSERT INTO error_probe (id) VALUES ('a')")
		_, _ = db.Exec(done, "SELECT 1")
		_, _ = db.Exec(ctx, "SELEC 1")
		_, _ = db.Query(ctx, "SELEC 1")
		_ = db.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.Exec(ctx, "SELEC 2")
			return err
		})
		db.Close()
		_, _ = db.Exec(ctx, "SELECT 1")
		_ = db.InTx(ctx, func(*store.Tx) error { return nil })
		_ = db.Ping(ctx)
		for _, c := range []struct {
			op, class string
			want      float64
		}{{"exec", "other", 2}, {"query", "other", 1}, {"exec", "unavailable", 1}, {"begin", "unavailable", 1},
			{"ping", "unavailable", 1}, {"commit", "unavailable", 0}, {"query", "unavailable", 0}} {
			if got := testenv.Metric(t, reg, "guichet_db_errors_total", "op", c.op, "class", c.class); got != c.want {
				t.Errorf("%s %s: %v, want %v", c.op, c.class, got, c.want)
			}
		}
	})
}
