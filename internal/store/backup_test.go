package store_test

import (
	"os"
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
