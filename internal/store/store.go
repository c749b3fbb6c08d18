// Package store opens the database (SQLite by default, PostgreSQL for several
// instances), applies the embedded migrations and runs transactions.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"
	_ "modernc.org/sqlite"             // SQLite driver "sqlite"
)

// Dialect names the SQL flavour behind a DB.
type Dialect int

const (
	SQLite Dialect = iota
	Postgres
)

func (d Dialect) String() string {
	if d == Postgres {
		return "postgres"
	}
	return "sqlite"
}

// Config says which database to open.
type Config struct {
	// URL is empty for SQLite in DataDir, or a postgres:// URL.
	URL string
	// DataDir holds the SQLite file.
	DataDir string
}

// DB is an open database with its dialect.
type DB struct {
	SQL     *sql.DB
	Dialect Dialect
	// writeMu serialises this process's SQLite transactions: SQLite has one
	// writer, and waiting here is cheaper and fairer than its busy handler's
	// sleeps when two transactions collide.
	writeMu sync.Mutex
	// stop and stopped run the SQLite checkpointer (nil on PostgreSQL).
	stop, stopped chan struct{}
	closeOnce     sync.Once
	// stmts keeps SQLite statements prepared (see stmtCache).
	stmts stmtCache
	// statements counts the statements run (Statements), transactions the
	// transactions begun (Transactions).
	statements, transactions atomic.Int64
	// Metrics, when set, counts the errors (metrics.go).
	Metrics *Metrics
}

// Statements is how many statements this DB ran, in transactions or not
// (BEGIN and COMMIT aside): tests count a call's round trips with it.
func (db *DB) Statements() int64 { return db.statements.Load() }

// Transactions is how many transactions this DB began (each a BEGIN and a
// COMMIT or ROLLBACK: two more round trips on PostgreSQL), retries
// included.
func (db *DB) Transactions() int64 { return db.transactions.Load() }

// Open opens the database the config names and checks it answers. It does not
// apply migrations: call Migrate.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	if strings.HasPrefix(cfg.URL, "postgres://") || strings.HasPrefix(cfg.URL, "postgresql://") {
		sqlDB, err := sql.Open("pgx", cfg.URL)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		// As many idle connections kept as open ones: a burst past a smaller
		// idle limit closes connections only to dial them again (a new
		// PostgreSQL backend and its statement cache each time), which is
		// where chat's latency tail came from (docs/benchmarks.md).
		sqlDB.SetMaxOpenConns(postgresConns)
		sqlDB.SetMaxIdleConns(postgresConns)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
		db := &DB{SQL: sqlDB, Dialect: Postgres}
		if err := db.Ping(ctx); err != nil {
			sqlDB.Close()
			return nil, err
		}
		return db, nil
	}
	if cfg.URL != "" {
		return nil, fmt.Errorf("GUICHET_DATABASE_URL: %q is not a postgres:// URL (leave it empty for SQLite)", redact(cfg.URL))
	}
	dir := cfg.DataDir
	if dir == "" {
		dir = "data"
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	return OpenSQLiteFile(ctx, filepath.Join(dir, "guichet.db"))
}

// OpenSQLiteFile opens one SQLite file with WAL, a busy timeout and foreign keys.
func OpenSQLiteFile(ctx context.Context, path string) (*DB, error) {
	// wal_autocheckpoint(0): the checkpoint (and its fsync) runs in the
	// background (checkpointer), not inside whichever request commits the
	// thousandth page, where it would stall every request queued behind it.
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)" +
		"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=wal_autocheckpoint(0)" +
		"&_pragma=journal_size_limit(67108864)&_txlock=immediate"
	sqlDB, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	// One writer at a time is SQLite's rule; a small pool lets readers
	// overlap. The connections stay open: each keeps its own page cache and
	// prepared statements.
	sqlDB.SetMaxOpenConns(sqliteConns)
	sqlDB.SetMaxIdleConns(sqliteConns)
	db := &DB{SQL: sqlDB, Dialect: SQLite, stop: make(chan struct{}), stopped: make(chan struct{})}
	db.stmts.on = true
	// Processes opening a new file together race to switch it to WAL, and
	// SQLite refuses that switch at once (busy) instead of waiting: try again.
	// Not Ping's 3 s bound, meant for /readyz: a local file has no network
	// to time out, busy_timeout bounds each wait for a lock, and on a
	// loaded machine opening it took longer (`guichet migrate --status`
	// failed "sqlite unreachable: context deadline exceeded" in CI).
	for attempt := 1; ; attempt++ {
		err := db.ping(ctx)
		if err == nil {
			break
		}
		if !retryable(err) || attempt == 50 || ctx.Err() != nil {
			sqlDB.Close()
			return nil, err
		}
		time.Sleep(10 * time.Millisecond)
	}
	go db.checkpointer(checkpointEvery)
	return db, nil
}

// postgresConns is the size of the PostgreSQL connection pool of one
// instance (max_connections is 100 by default: room for several instances,
// their LISTEN connections and an operator's psql).
const postgresConns = 20

// sqliteConns is the size of the SQLite connection pool.
const sqliteConns = 4

// checkpointEvery is how often the SQLite write-ahead log is copied back
// into the database file.
const checkpointEvery = 500 * time.Millisecond

// checkpointer copies the SQLite write-ahead log into the database file
// without blocking readers or writers (PASSIVE), until Close.
func (db *DB) checkpointer(every time.Duration) {
	defer close(db.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-db.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, _ = db.SQL.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
			cancel()
		}
	}
}

// Ping checks the database answers within 3 s (used by /readyz).
func (db *DB) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	return db.ping(ctx)
}

// ping checks the database answers within ctx.
func (db *DB) ping(ctx context.Context) error {
	if err := db.SQL.PingContext(ctx); err != nil {
		db.failed(ctx, "ping", err)
		return fmt.Errorf("%s unreachable: %w", db.Dialect, err)
	}
	return nil
}

// Close stops the SQLite checkpointer and closes the pool (closing the last
// SQLite connection checkpoints what is left).
func (db *DB) Close() error {
	if db.stop != nil {
		db.closeOnce.Do(func() {
			close(db.stop)
			<-db.stopped
		})
	}
	db.stmts.close()
	return db.SQL.Close()
}

// Rebind turns ? placeholders into $1..$n on PostgreSQL. Question marks inside
// single-quoted literals are left alone.
func (db *DB) Rebind(q string) string { return rebind(db.Dialect, q) }

func rebind(d Dialect, q string) string {
	if d != Postgres || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	n, quoted := 0, false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			quoted = !quoted
			b.WriteByte(c)
		case c == '?' && !quoted:
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Exec runs a statement outside a transaction.
func (db *DB) Exec(ctx context.Context, q string, args ...any) (_ sql.Result, err error) {
	defer func() { db.failed(ctx, "exec", err) }()
	ctx, span := db.statementSpan(ctx, q)
	defer func() { endSpan(span, err) }()
	db.statements.Add(1)
	if s := db.stmts.prepared(ctx, db.SQL, q); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return db.SQL.ExecContext(ctx, db.Rebind(q), args...)
}

// QueryRow runs a query returning one row.
func (db *DB) QueryRow(ctx context.Context, q string, args ...any) (row *sql.Row) {
	ctx, span := db.statementSpan(ctx, q)
	defer func() { endSpan(span, row.Err()) }()
	db.statements.Add(1)
	if s := db.stmts.prepared(ctx, db.SQL, q); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return db.SQL.QueryRowContext(ctx, db.Rebind(q), args...)
}

// Collect reads every row of a list query with scan and closes rows; the
// first error of scan or of the rows is returned.
func Collect[T any](rows *sql.Rows, scan func(*sql.Rows) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Placeholders is "?, ?, …" for n values: an IN list (Rebind turns them
// into PostgreSQL's $n).
func Placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// Strings is Collect for a one-column list of text (ids, brands).
func Strings(rows *sql.Rows) ([]string, error) {
	return Collect(rows, func(r *sql.Rows) (string, error) {
		var s string
		err := r.Scan(&s)
		return s, err
	})
}

// Query runs a query (its span ends once the query has answered, before
// the rows are read).
func (db *DB) Query(ctx context.Context, q string, args ...any) (_ *sql.Rows, err error) {
	defer func() { db.failed(ctx, "query", err) }()
	ctx, span := db.statementSpan(ctx, q)
	defer func() { endSpan(span, err) }()
	db.statements.Add(1)
	if s := db.stmts.prepared(ctx, db.SQL, q); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return db.SQL.QueryContext(ctx, db.Rebind(q), args...)
}

// Tx is a transaction whose statements are rebound for the dialect.
type Tx struct {
	tx      *sql.Tx
	Dialect Dialect
	db      *DB
	// unprepared are the statements run here that the cache did not hold
	// yet; they are prepared once the transaction ends (not during it, when
	// preparing would need a second connection).
	unprepared []string
	// afterCommit are the functions AfterCommit deferred until the
	// transaction commits.
	afterCommit []func()
	// first and count are the first statement run and how many ran, which
	// name the transaction's span (trace.go).
	first string
	count int
}

// AfterCommit runs f once the transaction has committed (not when it rolls
// back; an attempt InTx retries forgets what it deferred): a wake-up that
// must not run before what it announces is visible, such as the notify
// worker's after a message is queued.
func (t *Tx) AfterCommit(f func()) { t.afterCommit = append(t.afterCommit, f) }

// stmt returns the cached statement for q bound to the transaction, or nil.
func (t *Tx) stmt(ctx context.Context, q string) *sql.Stmt {
	t.db.statements.Add(1)
	if t.count++; t.first == "" {
		t.first = q
	}
	if !t.db.stmts.on {
		return nil
	}
	if s := t.db.stmts.get(q); s != nil {
		return t.tx.StmtContext(ctx, s)
	}
	t.unprepared = append(t.unprepared, q)
	return nil
}

// Exec runs a statement in the transaction.
func (t *Tx) Exec(ctx context.Context, q string, args ...any) (_ sql.Result, err error) {
	defer func() { t.db.failed(ctx, "exec", err) }()
	if s := t.stmt(ctx, q); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, rebind(t.Dialect, q), args...)
}

// QueryRow runs a one-row query in the transaction.
func (t *Tx) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	if s := t.stmt(ctx, q); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, rebind(t.Dialect, q), args...)
}

// Query runs a query in the transaction.
func (t *Tx) Query(ctx context.Context, q string, args ...any) (_ *sql.Rows, err error) {
	defer func() { t.db.failed(ctx, "query", err) }()
	if s := t.stmt(ctx, q); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, rebind(t.Dialect, q), args...)
}

// txAttempts is how many times InTx tries a transaction.
const txAttempts = 4

// InTx runs fn in a transaction: committed when fn returns nil, rolled back
// otherwise (and on panic, which is re-raised). A PostgreSQL serialization
// failure or an SQLite busy error is retried a few times.
func (db *DB) InTx(ctx context.Context, fn func(*Tx) error) (err error) {
	tx := &Tx{Dialect: db.Dialect, db: db}
	ctx, span := db.txSpan(ctx)
	attempts := 0
	defer func() { endTx(span, tx, max(attempts, 1), err) }()
	// Statements the cache did not hold are prepared once the transaction
	// has ended and released the SQLite write lock.
	defer func() { db.stmts.prepareAll(tx.unprepared, db.SQL) }()
	err = retry(ctx, func() error {
		attempts++
		tx.afterCommit = nil
		return db.inTxOnce(ctx, tx, fn)
	})
	if err != nil {
		return err
	}
	for _, f := range tx.afterCommit {
		f()
	}
	return nil
}

// retry runs try up to txAttempts times while it fails with a
// serialization failure, a deadlock or SQLite's busy (retryable), waiting a
// little longer before each new try, and returns its last error.
func retry(ctx context.Context, try func() error) error {
	for attempt := 1; ; attempt++ {
		err := try()
		if err == nil || !retryable(err) || ctx.Err() != nil || attempt == txAttempts {
			return err
		}
		time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
	}
}

// ScanOne runs the one statement q (a write, with RETURNING) as a unit of
// its own and scans its row into dest: on PostgreSQL alone, since one
// statement is atomic by itself and a BEGIN and a COMMIT would be two
// round trips more (issue 34: a sign-in's rate limit); on SQLite in InTx,
// where every write takes the process's write lock first.
// Like InTx it tries again a few times after a serialization failure or a
// deadlock (a server whose default isolation is serializable), and counts
// a failure in guichet_db_errors_total.
func (db *DB) ScanOne(ctx context.Context, q string, args []any, dest ...any) (err error) {
	if db.Dialect != Postgres {
		return db.InTx(ctx, func(tx *Tx) error { return tx.QueryRow(ctx, q, args...).Scan(dest...) })
	}
	err = retry(ctx, func() error { return db.QueryRow(ctx, q, args...).Scan(dest...) })
	if !errors.Is(err, sql.ErrNoRows) {
		db.failed(ctx, "query", err)
	}
	return err
}

// Affected runs the write statement q in a transaction of its own and
// returns how many rows it changed.
func (db *DB) Affected(ctx context.Context, q string, args ...any) (int64, error) {
	var n int64
	err := db.InTx(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, q, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

func (db *DB) inTxOnce(ctx context.Context, tx *Tx, fn func(*Tx) error) (err error) {
	if db.Dialect == SQLite {
		db.writeMu.Lock()
		defer db.writeMu.Unlock()
	}
	db.transactions.Add(1)
	sqlTx, err := db.SQL.BeginTx(ctx, nil)
	if err != nil {
		db.failed(ctx, "begin", err)
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
	}()
	tx.tx = sqlTx
	if err := fn(tx); err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		db.failed(ctx, "commit", err)
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func retryable(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLSTATE 40001") || strings.Contains(msg, "SQLSTATE 40P01") ||
		strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
}

// DeleteExpired deletes the rows of table (a constant of the caller) whose
// expires_at (unix milliseconds) is at or before `before`, and returns how
// many went: the janitor's prunes.
func (db *DB) DeleteExpired(ctx context.Context, table string, before time.Time) (int64, error) {
	res, err := db.Exec(ctx, "DELETE FROM "+table+" WHERE expires_at <= ?", before.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("prune %s: %w", table, err)
	}
	return res.RowsAffected()
}

// IsUniqueViolation tells whether err comes from a unique constraint.
func IsUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "SQLSTATE 23505") || strings.Contains(msg, "UNIQUE constraint failed")
}

// ErrNotFound is returned by lookups that find no row.
var ErrNotFound = errors.New("not found")

// NotFound maps sql.ErrNoRows to ErrNotFound, keeping other errors.
func NotFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

func redact(u string) string {
	if i := strings.Index(u, "@"); i >= 0 {
		if j := strings.Index(u, "://"); j >= 0 && j < i {
			return u[:j+3] + "…" + u[i:]
		}
	}
	return u
}
