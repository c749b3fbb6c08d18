// Package storetest opens throwaway databases for tests: SQLite always, and
// PostgreSQL (in a fresh schema) when GUICHET_TEST_DATABASE_URL is set.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"guichet/internal/store"
)

// EnvURL names the variable holding the PostgreSQL URL for tests.
const EnvURL = "GUICHET_TEST_DATABASE_URL"

// Open returns a migrated SQLite database in t.TempDir().
func Open(t testing.TB) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.OpenSQLiteFile(ctx, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

// OpenPostgres returns a migrated PostgreSQL database in a schema of its own,
// dropped when the test ends; it skips the test when EnvURL is unset.
func OpenPostgres(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), store.Config{URL: PostgresURL(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// PostgresURL creates a fresh schema on the server of EnvURL and returns a
// URL whose connections use it (search_path); the schema is dropped when the
// test ends, after the cleanups registered later (which close the pools).
// It skips or fails the test as OpenPostgres does.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" && os.Getenv("GUICHET_REQUIRE_POSTGRES") != "" {
		t.Fatalf("GUICHET_REQUIRE_POSTGRES is set but %s is empty: the PostgreSQL tests would be skipped", EnvURL)
	}
	if base == "" {
		t.Skipf("PostgreSQL tests skipped: %s is not set", EnvURL)
	}
	ctx := context.Background()
	admin, err := store.Open(ctx, store.Config{URL: base})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if a, err := store.Open(context.Background(), store.Config{URL: base}); err == nil {
			_, _ = a.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			a.Close()
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Each runs fn against SQLite and, when configured, PostgreSQL, as subtests
// named "sqlite" and "postgres".
func Each(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, Open(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, OpenPostgres(t)) })
}

// Snapshot returns every row of the tables, in a form two snapshots can be
// compared in: tests that something moved no counter compare one taken
// before with one taken after.
func Snapshot(t testing.TB, db *store.DB, tables ...string) string {
	t.Helper()
	var b strings.Builder
	for _, table := range tables {
		rows, err := db.Query(context.Background(), "SELECT * FROM "+table+" ORDER BY 1")
		if err != nil {
			t.Fatal(err)
		}
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		values := make([]any, len(cols))
		for i := range values {
			values[i] = new(any)
		}
		fmt.Fprintf(&b, "%s %v\n", table, cols)
		for rows.Next() {
			if err := rows.Scan(values...); err != nil {
				t.Fatal(err)
			}
			for _, v := range values {
				fmt.Fprintf(&b, " %v", *v.(*any))
			}
			b.WriteByte('\n')
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return b.String()
}
