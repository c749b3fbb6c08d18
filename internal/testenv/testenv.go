// Package testenv is the one test environment of Guichet's Go tests
// (style.md, Go 9): a migrated store on SQLite and PostgreSQL, a test clock,
// the sample brands, a mail catcher on the outbox, a JSON request helper
// with its recorded answer, one HTTP scenario runner (Scenario, Run) in
// the style of pocketbase's tests.ApiScenario, a runner of named cases on
// every database (Case, RunCases) and one of racing requests (Parallel);
// and what tests of secrets and servers share: the audit's rows of an
// account and the check that none holds a secret (Audit, ExpectAudit,
// NoSecretInAudit), the default logger caught in a buffer (CaptureLog), a
// self-signed certificate (SelfSigned) and the gate of the benchmarks
// (Bench).
//
// Only _test.go files import it (TestOnlyTestsImportTestenv checks): it
// fails tests, it never returns errors. It depends on nothing above store
// and api, so the tests of any domain package, in the package or beside it,
// can use it; account fixtures (test hasher parameters, stored accounts)
// are in account/accounttest.
package testenv

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"guichet/internal/brand"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
)

// Env is one test's database and clock; a package's own env embeds it and
// adds its services and routes.
type Env struct {
	DB    *store.DB
	Clock *testclock.Clock
	// Mail catches what the requests queue in the outbox.
	Mail *Mailbox
}

// New returns the environment of a database, with a clock standing now.
func New(db *store.DB) *Env {
	return &Env{DB: db, Clock: testclock.New(), Mail: &Mailbox{DB: db}}
}

// Each runs fn on a fresh environment on SQLite and, when configured, on
// PostgreSQL (storetest.Each), as subtests "sqlite" and "postgres".
func Each(t *testing.T, fn func(t *testing.T, e *Env)) {
	t.Helper()
	storetest.Each(t, func(t *testing.T, db *store.DB) { fn(t, New(db)) })
}

// Count is the answer of a COUNT(*) query (or any query of one integer).
func (e *Env) Count(t testing.TB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := e.DB.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// ExpectCount fails the test unless the query (Count) counts want; failure
// says what a wrong count means.
func (e *Env) ExpectCount(t testing.TB, want int, failure, query string, args ...any) {
	t.Helper()
	if got := e.Count(t, query, args...); got != want {
		t.Fatalf("%s (counted %d, want %d)", failure, got, want)
	}
}

// Audit returns "event outcome" of an account's audit events whose event
// starts with prefix ("" for all), oldest first.
func (e *Env) Audit(t testing.TB, accountID, prefix string) []string {
	t.Helper()
	return Audit(t, e.DB, accountID, prefix)
}

// Audit is Env.Audit on a database of its own (a whole application's).
func Audit(t testing.TB, db *store.DB, accountID, prefix string) []string {
	t.Helper()
	return storetest.Strings(t, db,
		"SELECT event || ' ' || outcome FROM audit_events WHERE account_id = ? AND event LIKE ? ORDER BY id", accountID, prefix+"%")
}

// ExpectAudit fails the test unless the account's audit events under
// prefix (Audit) are want, in order.
func ExpectAudit(t testing.TB, db *store.DB, accountID, prefix string, want ...string) {
	t.Helper()
	if got := Audit(t, db, accountID, prefix); !slices.Equal(got, want) {
		t.Fatalf("audit %v\nwant %v", got, want)
	}
}

// NoSecretInAudit fails the test when an audit row's detail holds one of
// the secrets (a password, a code, a token).
func NoSecretInAudit(t testing.TB, db *store.DB, secrets ...string) {
	t.Helper()
	for _, secret := range secrets {
		if n := storetest.Strings(t, db, "SELECT detail FROM audit_events WHERE detail LIKE ?", "%"+secret+"%"); len(n) != 0 {
			t.Fatalf("a secret in the audit: %v", n)
		}
	}
}

// RepoDir is the repository's root, found from this file: tests of any
// package reach config/, testdata/ and web/ from it.
func RepoDir(t testing.TB) string {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("testenv: cannot locate the repository")
	}
	return filepath.Join(filepath.Dir(here), "..", "..")
}

// Brands loads the sample brand files (config/brands), every configured
// brand, so tests that range over them cover each; a fresh registry each
// call, which the test may change.
func Brands(t testing.TB) *brand.Registry {
	t.Helper()
	reg, err := brand.LoadDir(filepath.Join(RepoDir(t), "config", "brands"))
	if err != nil {
		t.Fatalf("brands: %v", err)
	}
	return reg
}

// Brand is the brand of that id in the registry; the test fails when
// there is none.
func Brand(t testing.TB, reg *brand.Registry, id string) *brand.Brand {
	t.Helper()
	b, ok := reg.ByID(id)
	if !ok {
		t.Fatalf("brand %q not configured", id)
	}
	return b
}

// EachURL runs fn as subtests "sqlite" and "postgres" with the URL of a
// database of their own, for tests that open the store themselves (the
// application, the commands): "" for SQLite (the application's file in its
// data directory), and for PostgreSQL a migrated copy
// (storetest.MigratedPostgresURL) or, when migrated is false, an empty
// schema the test migrates (storetest.PostgresURL); skipped or failed as
// storetest does without GUICHET_TEST_DATABASE_URL.
func EachURL(t *testing.T, migrated bool, fn func(t *testing.T, url string)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, "") })
	t.Run("postgres", func(t *testing.T) {
		if migrated {
			fn(t, storetest.MigratedPostgresURL(t))
		} else {
			fn(t, storetest.PostgresURL(t))
		}
	})
}

// BrandsDir is a brands directory of the test's own: the sample brand
// files (config/brands/*.yaml) and the extra files named from the
// repository's root (testdata/brands/acme.yaml), side by side.
func BrandsDir(t testing.TB, extra ...string) string {
	t.Helper()
	root := RepoDir(t)
	files, err := filepath.Glob(filepath.Join(root, "config", "brands", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample brands: %v", err)
	}
	for _, f := range extra {
		files = append(files, filepath.Join(root, f))
	}
	dir := t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Case is one named test of an environment of type E (a package's env).
type Case[E any] struct {
	Name string
	Run  func(t *testing.T, e E)
}

// RunCases runs each case as a subtest on an environment newEnv makes,
// on every database (EachEnv).
func RunCases[E any](t *testing.T, newEnv func(*testing.T, *store.DB) E, cases []Case[E]) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { EachEnv(t, newEnv, c.Run) })
	}
}

// EachEnv runs fn on a fresh environment newEnv makes (a package's env)
// on SQLite and, when configured, on PostgreSQL (storetest.Each), as
// subtests "sqlite" and "postgres".
func EachEnv[E any](t *testing.T, newEnv func(*testing.T, *store.DB) E, fn func(t *testing.T, e E)) {
	t.Helper()
	storetest.Each(t, func(t *testing.T, db *store.DB) { fn(t, newEnv(t, db)) })
}
