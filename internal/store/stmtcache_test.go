package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

func openSQLite(t *testing.T) *DB {
	t.Helper()
	db, err := OpenSQLiteFile(t.Context(), filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return db
}

func (c *stmtCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

const (
	insertEvent = "INSERT INTO audit_events (at, brand, event, outcome) VALUES (?, ?, ?, ?)"
	countEvents = "SELECT COUNT(*) FROM audit_events"
)

// A cached statement runs on the transaction's connection: it sees the
// transaction's writes and is undone with it.
func TestCachedStatementsRunInTheirTransaction(t *testing.T) {
	db := openSQLite(t)
	ctx := t.Context()
	count := func(tx *Tx) (n int) {
		if err := tx.QueryRow(ctx, countEvents).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := range 3 { // the first round prepares, the others use the cache
		boom := errors.New("boom")
		err := db.InTx(ctx, func(tx *Tx) error {
			before := count(tx)
			if _, err := tx.Exec(ctx, insertEvent, 1, "belair", "rolled-back", "ok"); err != nil {
				return err
			}
			if count(tx) != before+1 {
				t.Errorf("round %d: the transaction does not see its own insert", i)
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if err := db.InTx(ctx, func(tx *Tx) error {
			_, err := tx.Exec(ctx, insertEvent, 1, "belair", "kept", "ok")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRow(ctx, countEvents).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != i+1 {
			t.Fatalf("round %d: %d events, want %d (the rolled-back insert stayed?)", i, n, i+1)
		}
		if db.stmts.get(insertEvent) == nil || db.stmts.get(countEvents) == nil {
			t.Fatalf("round %d: the statements were not cached", i)
		}
	}
}

func TestFailingQueriesAreNotCached(t *testing.T) {
	db := openSQLite(t)
	ctx := t.Context()
	for range 2 {
		if _, err := db.Exec(ctx, "SELEC 1"); err == nil {
			t.Fatal("a syntax error ran")
		}
		err := db.InTx(ctx, func(tx *Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO no_such_table VALUES (1)")
			return err
		})
		if err == nil {
			t.Fatal("an insert into a missing table ran")
		}
	}
	if db.stmts.get("SELEC 1") != nil || db.stmts.get("INSERT INTO no_such_table VALUES (1)") != nil {
		t.Fatal("a query that does not prepare was cached")
	}
}

func TestStatementCacheIsBounded(t *testing.T) {
	db := openSQLite(t)
	ctx := t.Context()
	for i := range maxCachedStmts + 20 {
		var n int
		if err := db.QueryRow(ctx, fmt.Sprintf("SELECT %d", i)).Scan(&n); err != nil || n != i {
			t.Fatalf("SELECT %d gave %d, %v", i, n, err)
		}
	}
	if got := db.stmts.size(); got != maxCachedStmts {
		t.Fatalf("%d statements cached, want the bound %d", got, maxCachedStmts)
	}
}

func TestPostgresHasNoStatementCache(t *testing.T) {
	if (&DB{Dialect: Postgres}).stmts.on {
		t.Fatal("the cache is on for PostgreSQL, whose driver caches statements itself")
	}
}

func TestClosedDBAnswersWithAnError(t *testing.T) {
	db := openSQLite(t)
	ctx := t.Context()
	if _, err := db.Exec(ctx, insertEvent, 1, "belair", "before", "ok"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := db.Exec(ctx, insertEvent, 1, "belair", "after", "ok"); err == nil {
		t.Fatal("a closed database took a write")
	}
	if err := db.InTx(ctx, func(tx *Tx) error { return nil }); err == nil {
		t.Fatal("a closed database began a transaction")
	}
}
