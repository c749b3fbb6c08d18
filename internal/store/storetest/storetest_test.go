package storetest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"guichet/internal/store"
)

// schemaQueries describe a database's schema, one sorted list per query
// (names and definitions; PostgreSQL's schema names left out, the copies
// live in databases of their own and the migrated ones in a schema).
var schemaQueries = map[store.Dialect][]string{
	store.SQLite: {
		`SELECT type || ' ' || name || ' ' || tbl_name || ' ' || COALESCE(sql, '') FROM sqlite_master ORDER BY 1`,
		`SELECT version || ' ' || name FROM schema_migrations ORDER BY version`,
	},
	store.Postgres: {
		`SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || COALESCE(column_default, '')
		   FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY 1`,
		`SELECT tablename || ' ' || indexname || ' ' || replace(indexdef, current_schema() || '.', '')
		   FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1`,
		`SELECT conrelid::regclass::text || ' ' || conname || ' ' || contype::text || ' ' || pg_get_constraintdef(oid)
		   FROM pg_constraint WHERE connamespace = current_schema()::regnamespace ORDER BY 1`,
		`SELECT sequence_name || ' ' || data_type FROM information_schema.sequences WHERE sequence_schema = current_schema() ORDER BY 1`,
		`SELECT event_object_table || ' ' || trigger_name || ' ' || action_statement
		   FROM information_schema.triggers WHERE trigger_schema = current_schema() ORDER BY 1`,
		`SELECT version || ' ' || name FROM schema_migrations ORDER BY version`,
	},
}

func schema(t *testing.T, db *store.DB) string {
	t.Helper()
	var b strings.Builder
	unqualified := strings.NewReplacer(current(t, db)+".", "")
	for i, q := range schemaQueries[db.Dialect] {
		lines := Strings(t, db, q)
		if len(lines) == 0 && i == 0 {
			t.Fatalf("no tables: %s", q)
		}
		for _, line := range lines {
			unqualified.WriteString(&b, line+"\n")
		}
		fmt.Fprintf(&b, "-- %d\n", len(lines))
	}
	return b.String()
}

// current is the schema the PostgreSQL connections use ("" on SQLite).
func current(t *testing.T, db *store.DB) string {
	if db.Dialect != store.Postgres {
		return "\x00"
	}
	var s string
	if err := db.QueryRow(context.Background(), "SELECT current_schema()").Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// A copied database is what running the migrations on an empty one makes:
// same tables, columns, indexes, constraints and recorded migrations; and
// each copy is a database of its own.
func TestCopiesAreMigratedSchemas(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		empty func(t *testing.T) *store.DB
		copy  func(t testing.TB) *store.DB
	}{
		{"sqlite", func(t *testing.T) *store.DB {
			db, err := store.OpenSQLiteFile(ctx, filepath.Join(t.TempDir(), "fresh.db"))
			if err != nil {
				t.Fatal(err)
			}
			return db
		}, Open},
		{"postgres", func(t *testing.T) *store.DB {
			db, err := store.Open(ctx, store.Config{URL: PostgresURL(t)})
			if err != nil {
				t.Fatal(err)
			}
			return db
		}, OpenPostgres},
	} {
		t.Run(c.name, func(t *testing.T) {
			fresh := c.empty(t)
			defer fresh.Close()
			if n, err := fresh.Migrate(ctx); err != nil || n == 0 {
				t.Fatalf("migrate an empty database: %d, %v", n, err)
			}
			copied := c.copy(t)
			if n, err := copied.Migrate(ctx); err != nil || n != 0 {
				t.Fatalf("the copy had %d migrations to apply (%v), want none", n, err)
			}
			if got, want := schema(t, copied), schema(t, fresh); got != want {
				t.Fatalf("copied schema differs from a migrated one:\n%s\nwant\n%s", got, want)
			}
			if _, err := copied.Exec(ctx, "CREATE TABLE only_here (x INTEGER)"); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(schema(t, c.copy(t)), "only_here") {
				t.Fatal("a table made in one copy shows in the next")
			}
		})
	}
}
