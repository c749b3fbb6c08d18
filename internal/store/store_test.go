package store_test

import (
	"database/sql"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/telemetry"
)

func TestMigrateIsIdempotent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		n, err := db.Migrate(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("second Migrate applied %d migrations, want 0", n)
		}
		migs, _ := store.Migrations()
		if count := countRows(t, db, "schema_migrations"); count != len(migs) {
			t.Fatalf("schema_migrations has %d rows, want %d", count, len(migs))
		}
	})
}

func TestInTxCommitsOrRollsBack(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		insert := func(tx *store.Tx, event string) error {
			_, err := tx.Exec(ctx, "INSERT INTO audit_events (at, brand, event, outcome) VALUES (?, ?, ?, ?)", 1, "belair", event, "ok")
			return err
		}
		boom := errors.New("boom")
		err := db.InTx(ctx, func(tx *store.Tx) error {
			if err := insert(tx, "rolled-back"); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx returned %v, want boom", err)
		}
		if err := db.InTx(ctx, func(tx *store.Tx) error { return insert(tx, "kept") }); err != nil {
			t.Fatal(err)
		}
		got := storetest.Strings(t, db, "SELECT event FROM audit_events ORDER BY id")
		if len(got) != 1 || got[0] != "kept" {
			t.Fatalf("rows = %v, want [kept]", got)
		}
	})
}

func TestInTxRollsBackOnPanic(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		func() {
			defer func() { _ = recover() }()
			_ = db.InTx(ctx, func(tx *store.Tx) error {
				_, _ = tx.Exec(ctx, "INSERT INTO audit_events (at, brand, event, outcome) VALUES (?, ?, ?, ?)", 1, "b", "x", "ok")
				panic("mid-transaction")
			})
		}()
		if n := countRows(t, db, "audit_events"); n != 0 {
			t.Fatalf("a panicking transaction left %d rows", n)
		}
	})
}

// TestAfterCommit runs what a transaction deferred once it commits, sees
// what it wrote, and never for a rollback or an attempt InTx retried.
func TestAfterCommit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		var ran []string
		err := db.InTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.Exec(ctx, "INSERT INTO audit_events (at, brand, event, outcome) VALUES (?, ?, ?, ?)", 1, "belair", "kept", "ok"); err != nil {
				return err
			}
			tx.AfterCommit(func() {
				ran = append(ran, "commit: "+storetest.Strings(t, db, "SELECT event FROM audit_events")[0])
			})
			tx.AfterCommit(func() { ran = append(ran, "second") })
			if len(ran) != 0 {
				t.Errorf("AfterCommit ran %v before the commit", ran)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(ran) != 2 || ran[0] != "commit: kept" || ran[1] != "second" {
			t.Fatalf("after commit ran %v, want [commit: kept second]", ran)
		}

		ran = nil
		boom := errors.New("boom")
		err = db.InTx(ctx, func(tx *store.Tx) error {
			tx.AfterCommit(func() { ran = append(ran, "rolled back") })
			return boom
		})
		if !errors.Is(err, boom) || len(ran) != 0 {
			t.Fatalf("rolled back: err %v, ran %v; want boom and nothing run", err, ran)
		}

		var attempts, ranAttempts []int
		err = db.InTx(ctx, func(tx *store.Tx) error {
			n := len(attempts) + 1
			attempts = append(attempts, n)
			tx.AfterCommit(func() { ranAttempts = append(ranAttempts, n) })
			if n == 1 {
				return errors.New("database is locked") // retried
			}
			return nil
		})
		if err != nil || len(attempts) != 2 || len(ranAttempts) != 1 || ranAttempts[0] != 2 {
			t.Fatalf("retried: err %v, attempts %v, ran after %v; want the second attempt's only", err, attempts, ranAttempts)
		}
	})
}

// TestStrings reads a one-column list in the query's order, and an empty
// one as no strings.
func TestStrings(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		execAll(t, db, "CREATE TABLE strings_probe (k TEXT PRIMARY KEY)", "INSERT INTO strings_probe (k) VALUES ('b')",
			"INSERT INTO strings_probe (k) VALUES ('a')")
		for q, want := range map[string]string{
			"SELECT k FROM strings_probe ORDER BY k":    "a,b",
			"SELECT k FROM strings_probe WHERE k = 'z'": "",
		} {
			rows, err := db.Query(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := store.Strings(rows)
			if err != nil || strings.Join(got, ",") != want {
				t.Fatalf("Strings(%s) = %q, %v; want %q", q, got, err, want)
			}
		}
	})
}

func TestUniqueViolationIsRecognised(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		execAll(t, db, "CREATE TABLE uniq_probe (k TEXT PRIMARY KEY)", "INSERT INTO uniq_probe (k) VALUES ('a')")
		_, err := db.Exec(t.Context(), "INSERT INTO uniq_probe (k) VALUES (?)", "a")
		if !store.IsUniqueViolation(err) {
			t.Fatalf("IsUniqueViolation(%v) = false", err)
		}
		if store.IsUniqueViolation(errors.New("other")) {
			t.Fatal("IsUniqueViolation(other) = true")
		}
	})
}

func TestConcurrentWritersAllCommit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for i := 0; i < 20; i++ {
			wg.Go(func() {
				errs <- db.InTx(ctx, func(tx *store.Tx) error {
					_, err := tx.Exec(ctx, "INSERT INTO audit_events (at, brand, event, outcome) VALUES (?, ?, ?, ?)", 1, "b", "c", "ok")
					return err
				})
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if n := countRows(t, db, "audit_events"); n != 20 {
			t.Fatalf("count = %d, want 20", n)
		}
	})
}

// ScanOne runs its statement as a unit of its own: concurrent writers all
// count (SQLite's write lock is taken, PostgreSQL's statement is atomic),
// a failed statement changes nothing, and on PostgreSQL no transaction
// wraps it (two round trips fewer).
func TestScanOneIsAUnitOfItsOwn(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		execAll(t, db, "CREATE TABLE scan_one_probe (k TEXT PRIMARY KEY, n INTEGER NOT NULL)")
		const upsert = `INSERT INTO scan_one_probe (k, n) VALUES (?, 1)
			ON CONFLICT (k) DO UPDATE SET n = scan_one_probe.n + 1 RETURNING n`
		before := db.Transactions()
		var wg sync.WaitGroup
		seen := make(chan int, 20)
		for range 20 {
			wg.Go(func() {
				var n int
				if err := db.ScanOne(ctx, upsert, []any{"a"}, &n); err != nil {
					t.Error(err)
				}
				seen <- n
			})
		}
		wg.Wait()
		close(seen)
		got := map[int]bool{}
		for n := range seen {
			got[n] = true
		}
		if len(got) != 20 || !got[1] || !got[20] {
			t.Fatalf("the 20 upserts returned %v, want each of 1 to 20 once", got)
		}
		wantTx := int64(20)
		if db.Dialect == store.Postgres {
			wantTx = 0
		}
		if n := db.Transactions() - before; n != wantTx {
			t.Fatalf("%s: %d transactions for 20 statements, want %d", db.Dialect, n, wantTx)
		}
		var n int
		err := db.ScanOne(ctx, "INSERT INTO scan_one_probe (k, n) VALUES (?, NULL) RETURNING n", []any{"b"}, &n)
		if err == nil {
			t.Fatal("a NOT NULL violation scanned")
		}
		if rows := countRows(t, db, "scan_one_probe"); rows != 1 {
			t.Fatalf("%d rows after a failed statement, want 1", rows)
		}
	})
}

// On a PostgreSQL server whose transactions are serializable, a statement
// that waited for a row another transaction changed fails with a
// serialization failure (SQLSTATE 40001); ScanOne tries it again as InTx
// does (a review found concurrent rate-limit hits refused without it).
// The conflict is made, not raced for: a transaction holds the row until
// ScanOne's statement waits on its lock (pg_stat_activity says so).
func TestScanOneTriesASerializationFailureAgain(t *testing.T) {
	ctx := t.Context()
	u, err := url.Parse(storetest.MigratedPostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	query := u.Query()
	query.Set("default_transaction_isolation", "serializable")
	u.RawQuery = query.Encode()
	db, err := store.Open(ctx, store.Config{URL: u.String()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var isolation string
	if err := db.QueryRow(ctx, "SHOW default_transaction_isolation").Scan(&isolation); err != nil || isolation != "serializable" {
		t.Fatalf("default_transaction_isolation %q, %v: the test needs serializable", isolation, err)
	}
	execAll(t, db, "CREATE TABLE scan_retry_probe (k TEXT PRIMARY KEY, n INTEGER NOT NULL)",
		"INSERT INTO scan_retry_probe (k, n) VALUES ('a', 1)")
	locked, commit, committed := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		committed <- db.InTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.Exec(ctx, "UPDATE scan_retry_probe SET n = n + 1 WHERE k = 'a'"); err != nil {
				return err
			}
			close(locked)
			<-commit
			return nil
		})
	}()
	<-locked
	before := db.Statements()
	scanned := make(chan error, 1)
	var n int
	go func() {
		scanned <- db.ScanOne(ctx, `INSERT INTO scan_retry_probe (k, n) VALUES (?, 1)
			ON CONFLICT (k) DO UPDATE SET n = scan_retry_probe.n + 1 RETURNING n`, []any{"a"}, &n)
	}()
	var polls int64
	for waiting := 0; waiting == 0; polls++ {
		if polls == 100_000 {
			t.Fatal("ScanOne's statement never waited for the row's lock")
		}
		if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	close(commit)
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	if err := <-scanned; err != nil || n != 3 {
		t.Fatalf("ScanOne after a serialization failure: n = %d, %v; want 3", n, err)
	}
	// Its statement twice, besides the test's own reads of pg_stat_activity.
	if got := db.Statements() - before - polls; got != 2 {
		t.Fatalf("ScanOne ran %d statements, want 2: the failed try and the one after", got)
	}
}

func TestOpenRefusesOtherURLs(t *testing.T) {
	_, err := store.Open(t.Context(), store.Config{URL: "mysql://u:secret@h/db"})
	if err == nil {
		t.Fatal("Open accepted a mysql URL")
	}
	if msg := err.Error(); strings.Contains(msg, "secret") {
		t.Fatalf("error leaks the password: %s", msg)
	}
}

// A burst that takes every pooled connection at once gives them all back
// to the pool: none is closed for an idle limit below the open limit, only
// to be dialled again by the next burst (on PostgreSQL a new backend and an
// empty statement cache each time).
func TestBurstKeepsPooledConnections(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		n := db.SQL.Stats().MaxOpenConnections
		if n <= 0 {
			t.Fatal("the pool has no open limit")
		}
		for burst := 0; burst < 2; burst++ {
			conns := make([]*sql.Conn, n)
			for i := range conns {
				c, err := db.SQL.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.PingContext(ctx); err != nil {
					t.Fatal(err)
				}
				conns[i] = c
			}
			for _, c := range conns {
				c.Close()
			}
		}
		st := db.SQL.Stats()
		if st.MaxIdleClosed != 0 || st.Idle != n {
			t.Fatalf("after two bursts of %d: %d connections closed for the idle limit, %d idle", n, st.MaxIdleClosed, st.Idle)
		}
	})
}

// countRows is the number of rows in a table.
func countRows(t *testing.T, db *store.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(t.Context(), "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// execAll runs each statement on db, failing the test at the first error.
func execAll(t *testing.T, db *store.DB, statements ...string) {
	t.Helper()
	for _, s := range statements {
		if _, err := db.Exec(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStatementSpans: under a recorded span, each statement outside a
// transaction and each transaction is a child span named by its operation
// and first table, with neither the SQL's arguments nor a driver's error
// message; without one, nothing is recorded and nothing allocated.
func TestStatementSpans(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		ctx, parent := tp.Tracer("test").Start(t.Context(), "request")
		const secret = "s3cret-argument"
		insert := "INSERT INTO audit_events (at, brand, event, outcome, detail) VALUES (?, ?, ?, ?, ?)"
		if _, err := db.Exec(ctx, insert, 1, "belair", "span.test", "ok", secret); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM (SELECT id FROM audit_events) AS x WHERE ? <> ''", secret).Scan(&n); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(ctx, "  select detail\n from audit_events where detail = ?", secret)
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
		err = db.InTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.Exec(ctx, "UPDATE audit_events SET outcome = ? WHERE detail = ?", "fail", secret); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations SELECT * FROM schema_migrations WHERE version = (SELECT MIN(version) FROM schema_migrations)")
			return err
		})
		if !store.IsUniqueViolation(err) {
			t.Fatalf("the duplicate migration: %v", err)
		}
		parent.End()
		var got []string
		for _, s := range rec.Ended() {
			if s.Name() == "request" {
				continue
			}
			if s.Parent().SpanID() != parent.SpanContext().SpanID() {
				t.Errorf("%s: not the request's child", s.Name())
			}
			line := s.Name()
			for _, a := range s.Attributes() {
				line += " " + string(a.Key) + "=" + a.Value.String()
			}
			if s.Status().Code == codes.Error {
				line += " error:" + s.Status().Description
			}
			if strings.Contains(line, secret) || strings.Contains(line, "schema_migrations.version") || len(s.Events()) > 0 {
				t.Errorf("a span holds an argument or an error message: %s %v", line, s.Events())
			}
			got = append(got, s.Name())
			if s.Name() == "transaction UPDATE audit_events" && !strings.Contains(line, "guichet.db.statements=2") ||
				!strings.Contains(line, "db.system.name="+map[store.Dialect]string{store.SQLite: "sqlite", store.Postgres: "postgresql"}[db.Dialect]) {
				t.Errorf("span attributes: %s", line)
			}
			if strings.HasPrefix(s.Name(), "transaction") && !strings.Contains(line, "error:unique_violation") {
				t.Errorf("the failed transaction: %s", line)
			}
		}
		want := []string{"INSERT audit_events", "SELECT audit_events", "SELECT audit_events", "transaction UPDATE audit_events"}
		if strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("spans %v, want %v", got, want)
		}

		// Untraced: no span, no allocation for one.
		untraced := t.Context()
		before := len(rec.Ended())
		if allocs := testing.AllocsPerRun(20, func() {
			_, span := telemetry.Child(untraced, "test", "statement")
			span.End()
		}); allocs != 0 {
			t.Errorf("an untraced span allocates %v times", allocs)
		}
		if err := db.QueryRow(untraced, "SELECT COUNT(*) FROM audit_events").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if len(rec.Ended()) != before {
			t.Error("a statement outside a traced request made a span")
		}
	})
}
