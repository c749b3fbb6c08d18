package store_test

import (
	"context"
	"crypto/rand"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

// TestBackup copies the SQLite file while a write transaction is open on it,
// as a serving instance has: the copy opens, holds what was committed and not
// what was not; an existing file is never overwritten; PostgreSQL is refused.
func TestBackup(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	db, err := store.Open(ctx, store.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	execAll(t, db, "CREATE TABLE kept (v TEXT NOT NULL)", "INSERT INTO kept (v) VALUES ('committed')")
	dest := filepath.Join(t.TempDir(), "backup.db")
	err = db.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO kept (v) VALUES ('in flight')"); err != nil {
			return err
		}
		return store.Backup(ctx, store.Config{DataDir: dir}, dest)
	})
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(dest); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v, want mode 0600", info, err)
	}

	copied, err := store.OpenSQLiteFile(ctx, dest)
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	values := storetest.Strings(t, copied, "SELECT v FROM kept ORDER BY v")
	if strings.Join(values, ",") != "committed" {
		t.Fatalf("backup holds %q, want the committed row only", values)
	}
	if n, err := copied.Migrate(ctx); err != nil || n != 0 {
		t.Fatalf("backup's schema: %d migrations left to apply (%v)", n, err)
	}

	before, _ := os.ReadFile(dest)
	err = store.Backup(ctx, store.Config{DataDir: dir}, dest)
	if after, _ := os.ReadFile(dest); err == nil || !strings.Contains(err.Error(), "not overwritten") || string(after) != string(before) {
		t.Fatalf("backup onto an existing file: %v (file changed: %v)", err, string(after) != string(before))
	}
	err = store.Backup(ctx, store.Config{URL: "postgres://guichet@db.invalid/guichet"}, filepath.Join(t.TempDir(), "pg"))
	if err == nil || !strings.Contains(err.Error(), "pg_dump") {
		t.Fatalf("backup of PostgreSQL: %v, want a refusal naming pg_dump", err)
	}
	if err := store.Backup(ctx, store.Config{DataDir: t.TempDir()}, filepath.Join(t.TempDir(), "none")); err == nil {
		t.Fatal("backup of a data directory without a database succeeded")
	}
}

// TestPostgresDumpRestore: the PostgreSQL backup README documents
// (pg_dump --format=custom, then pg_restore --no-owner into an empty
// database) gives back every table's rows, the migrations as applied, and
// sequences that go on where they were (a new audit row does not collide).
func TestPostgresDumpRestore(t *testing.T) {
	base := os.Getenv(storetest.EnvURL)
	if base == "" {
		storetest.OpenPostgres(t) // skips, or fails under GUICHET_REQUIRE_POSTGRES
	}
	ctx := t.Context()
	source := storetest.MigratedPostgresURL(t)
	db, err := store.Open(ctx, store.Config{URL: source})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	execAll(t, db,
		"INSERT INTO accounts (id, brand, email, email_normalized, first_name, last_name, created_at, updated_at) VALUES ('a1', 'belair', 'Léa@Example.com', 'léa@example.com', 'Léa', 'Côté', 1, 1)",
		"INSERT INTO policies (id, brand, number, kind, province, created_at) VALUES ('p1', 'belair', 'BEL1', 'home', 'QC', 1)",
		"INSERT INTO account_policies (account_id, policy_id, role) VALUES ('a1', 'p1', 'holder')",
		"INSERT INTO audit_events (at, brand, account_id, event, outcome) VALUES (1, 'belair', 'a1', 'login.authentication', 'ok')",
		"INSERT INTO audit_events (at, brand, account_id, event, outcome) VALUES (2, 'belair', 'a1', 'login.sso', 'ok')")
	tables := storetest.Strings(t, db, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
	if len(tables) < 20 {
		t.Fatalf("%d tables: %v", len(tables), tables)
	}

	dump := filepath.Join(t.TempDir(), "guichet.dump")
	if out, err := exec.CommandContext(ctx, "pg_dump", "--format=custom", "--file="+dump, source).CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, out)
	}
	admin, err := store.Open(ctx, store.Config{URL: base})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := "restore_" + strings.ToLower(rand.Text()[:12])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	if out, err := exec.CommandContext(ctx, "pg_restore", "--no-owner", "--exit-on-error", "--dbname="+u.String(), dump).CombinedOutput(); err != nil {
		t.Fatalf("pg_restore: %v\n%s", err, out)
	}
	restored, err := store.Open(ctx, store.Config{URL: u.String()})
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if got, want := storetest.Snapshot(t, restored, tables...), storetest.Snapshot(t, db, tables...); got != want {
		t.Fatalf("the restored database differs:\n%s\nwant\n%s", got, want)
	}
	if n, err := restored.Migrate(ctx); err != nil || n != 0 {
		t.Fatalf("the restored schema: %d migrations left to apply (%v)", n, err)
	}
	execAll(t, restored, "INSERT INTO audit_events (at, brand, event, outcome) VALUES (3, 'belair', 'login.authentication', 'ok')")
	if ids := storetest.Strings(t, restored, "SELECT CAST(id AS TEXT) FROM audit_events ORDER BY id"); strings.Join(ids, ",") != "1,2,3" {
		t.Fatalf("audit ids after the restore: %v, want the sequence to go on", ids)
	}
}
