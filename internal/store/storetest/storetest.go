// Package storetest opens throwaway databases for tests: SQLite always, and
// PostgreSQL when GUICHET_TEST_DATABASE_URL is set. A migrated database is
// a copy of one migrated once (a file for SQLite, a template database for
// PostgreSQL), keyed by store.MigrationsDigest: running the migrations for
// every test was most of the store tests' time.
package storetest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"guichet/internal/store"
)

// EnvURL names the variable holding the PostgreSQL URL for tests.
const EnvURL = "GUICHET_TEST_DATABASE_URL"

// Open returns a migrated SQLite database in t.TempDir(): a copy of the
// process's migrated file (sqliteTemplate).
func Open(t testing.TB) *store.DB {
	t.Helper()
	tmpl, err := sqliteTemplate()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "test.db")
	if err := copyFile(tmpl, path); err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenSQLiteFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var (
	sqliteOnce sync.Once
	sqlitePath string
	sqliteErr  error
)

// sqliteTemplate is the path of a migrated SQLite file, made once per
// process (or found, made by another test process under the same
// migrations digest, in the temporary directory). It is migrated under a
// temporary name and renamed, so no process copies a file another is still
// migrating.
func sqliteTemplate() (string, error) {
	sqliteOnce.Do(func() { sqlitePath, sqliteErr = makeSQLiteTemplate() })
	return sqlitePath, sqliteErr
}

func makeSQLiteTemplate() (string, error) {
	digest, err := store.MigrationsDigest()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(os.TempDir(), "guichet-storetest")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "migrated-"+digest[:16]+".db")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	build, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(build)
	ctx := context.Background()
	db, err := store.OpenSQLiteFile(ctx, filepath.Join(build, "migrated.db"))
	if err != nil {
		return "", err
	}
	_, err = db.Migrate(ctx)
	if err == nil {
		// Everything in the main file: the copies take that file alone.
		_, err = db.SQL.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("migrate the SQLite template: %w", err)
	}
	if err := os.Rename(filepath.Join(build, "migrated.db"), path); err != nil {
		return "", err
	}
	return path, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// OpenPostgres returns a migrated PostgreSQL database of its own (a copy of
// the migrated template: MigratedPostgresURL), dropped when the test ends;
// it skips the test when EnvURL is unset.
func OpenPostgres(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), store.Config{URL: MigratedPostgresURL(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// baseURL is EnvURL; it skips the test when that is unset, or fails it
// when GUICHET_REQUIRE_POSTGRES is set.
func baseURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" && os.Getenv("GUICHET_REQUIRE_POSTGRES") != "" {
		t.Fatalf("GUICHET_REQUIRE_POSTGRES is set but %s is empty: the PostgreSQL tests would be skipped", EnvURL)
	}
	if base == "" {
		t.Skipf("PostgreSQL tests skipped: %s is not set", EnvURL)
	}
	return base
}

// MigratedPostgresURL returns the URL of a database of its own on the
// server of EnvURL, a copy of the migrated template (CREATE DATABASE …
// TEMPLATE, postgresTemplate) made while the previous test ran
// (prefetch); the database is dropped after the test ends (dropLater),
// after the cleanups registered later (which close the pools). It skips
// or fails the test as OpenPostgres does.
func MigratedPostgresURL(t testing.TB) string {
	t.Helper()
	base := baseURL(t)
	prefetchOnce.Do(func() { go prefetch(base) })
	c := <-copies
	if c.err != nil {
		t.Fatal(c.err)
	}
	t.Cleanup(func() { dropLater(base, c.name) })
	u, err := databaseURL(base, c.name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// copyResult is a copy of the template made ahead, or why none could be.
type copyResult struct {
	name string
	err  error
}

var (
	prefetchOnce sync.Once
	copies       = make(chan copyResult)
)

// prefetch makes the next copy of the template and waits until a test
// takes it, for as long as the process runs: creating a database is
// seconds on a busy machine, taken off the tests' time. The copy ready at
// exit is left behind (dropStale drops it later).
func prefetch(base string) {
	for {
		name, err := createCopy(base)
		copies <- copyResult{name, err}
	}
}

// createCopy creates a copy of the migrated template, named
// t_<unix time>_<pid>_<host>_<random> (dropStale reads the name).
func createCopy(base string) (string, error) {
	tmpl, err := postgresTemplate(base)
	if err != nil {
		return "", err
	}
	ctx := context.Background()
	admin, err := store.Open(ctx, store.Config{URL: base})
	if err != nil {
		return "", err
	}
	defer admin.Close()
	name := fmt.Sprintf("t_%d_%d_%s_%s", time.Now().Unix(), os.Getpid(), hostTag(), randomHex())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+tmpl); err != nil {
		return "", err
	}
	return name, nil
}

// hostTag tells this machine's test databases from others' on a shared
// server (process ids are per machine).
func hostTag() string {
	h, _ := os.Hostname()
	sum := sha256.Sum256([]byte(h))
	return hex.EncodeToString(sum[:4])
}

// DROP DATABASE makes the server checkpoint (write every dirty page and
// sync), seconds on a busy machine: a test's database is dropped in the
// background while the next tests run, one drop at a time, and a test
// ends only once at most maxDrops wait, so a process that exits leaves
// that few behind. dropStale drops those later.
const maxDrops = 2

var (
	dropSlots = make(chan struct{}, maxDrops)
	dropMu    sync.Mutex
)

func dropLater(base, name string) {
	dropSlots <- struct{}{}
	go func() {
		defer func() { <-dropSlots }()
		dropMu.Lock()
		defer dropMu.Unlock()
		dropDatabase(base, name)
	}()
}

func dropDatabase(base, name string) {
	if a, err := store.Open(context.Background(), store.Config{URL: base}); err == nil {
		_, _ = a.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		a.Close()
	}
}

// staleAfter is the age past which a test database is another machine's
// leftover: longer than any go test -timeout.
const staleAfter = time.Hour

// dropStale drops, in the background, the test databases left by the
// processes of this machine that have ended, and any older than
// staleAfter.
func dropStale(ctx context.Context, conn *sql.Conn, base string) error {
	rows, err := conn.QueryContext(ctx, `SELECT datname FROM pg_database WHERE datname ~ '^t_[0-9]+_[0-9]+_[0-9a-f]+_[0-9a-f]+$'`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var stale []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		parts := strings.Split(name, "_") // t, time, pid, host, random
		created, err1 := strconv.ParseInt(parts[1], 10, 64)
		pid, err2 := strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil {
			continue
		}
		ended := parts[3] == hostTag() && pid != os.Getpid() && !running(pid)
		if ended || time.Since(time.Unix(created, 0)) > staleAfter {
			stale = append(stale, name)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, name := range stale {
		go dropLater(base, name)
	}
	return nil
}

// running tells whether a process of this machine is still there.
func running(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

var (
	postgresOnce sync.Once
	postgresTmpl string
	postgresErr  error
)

// templateLock is the advisory lock key under which test processes make
// the migrated template (several test binaries run at once on one server).
const templateLock = 7_211_043

// postgresTemplate is the name of the migrated template database of the
// current migrations ("guichet_tmpl_" and the digest's start), made once:
// under an advisory lock, by the first test process that finds it missing,
// migrated under a building name and renamed when complete, so no process
// copies a half-migrated template. Nothing stays connected to it: CREATE
// DATABASE … TEMPLATE refuses a template that has connections.
func postgresTemplate(base string) (string, error) {
	postgresOnce.Do(func() { postgresTmpl, postgresErr = makePostgresTemplate(base) })
	return postgresTmpl, postgresErr
}

func makePostgresTemplate(base string) (string, error) {
	digest, err := store.MigrationsDigest()
	if err != nil {
		return "", err
	}
	name := "guichet_tmpl_" + digest[:16]
	ctx := context.Background()
	admin, err := store.Open(ctx, store.Config{URL: base})
	if err != nil {
		return "", err
	}
	defer admin.Close()
	conn, err := admin.SQL.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", templateLock); err != nil {
		return "", err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", templateLock) //nolint:errcheck
	if err := dropStale(ctx, conn, base); err != nil {
		return "", err
	}
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		return "", err
	}
	if n == 1 {
		return name, nil
	}
	// A process that died while building left this one; nobody else
	// builds while we hold the lock.
	building := name + "_building"
	if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+building); err != nil {
		return "", err
	}
	u, err := databaseURL(base, building)
	if err != nil {
		return "", err
	}
	db, err := store.Open(ctx, store.Config{URL: u})
	if err != nil {
		return "", err
	}
	_, err = db.Migrate(ctx)
	db.Close()
	if err != nil {
		return "", fmt.Errorf("migrate the PostgreSQL template: %w", err)
	}
	// The rename waits for the closed pool's backends to end, as CREATE
	// DATABASE … TEMPLATE would.
	if _, err := conn.ExecContext(ctx, "ALTER DATABASE "+building+" RENAME TO "+name); err != nil {
		return "", err
	}
	return name, nil
}

// databaseURL is base with its database (the URL's path) replaced by name
// and no search_path.
func databaseURL(base, name string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	q := u.Query()
	q.Del("search_path")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func randomHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// PostgresURL creates a fresh, empty schema on the server of EnvURL (for
// tests of migrating; the others want MigratedPostgresURL) and returns a
// URL whose connections use it (search_path); the schema is dropped when
// the test ends, after the cleanups registered later (which close the
// pools). It skips or fails the test as OpenPostgres does.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := baseURL(t)
	ctx := context.Background()
	admin, err := store.Open(ctx, store.Config{URL: base})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	schema := "t_" + randomHex()
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

// Strings returns the query's rows, each of one text column, in order.
func Strings(t testing.TB, db *store.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	out, err := store.Strings(rows)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
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
