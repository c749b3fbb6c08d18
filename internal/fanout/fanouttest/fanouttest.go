// Package fanouttest runs PostgreSQL notifiers for tests: several
// "instances" on one database schema, each with its own Notifier, as
// several processes would have; and what the tests of the hubs' routes
// share (Front, Site, WS). Only _test.go files import it (testenv's
// TestOnlyTestsImportTestenv checks).
package fanouttest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"guichet/internal/fanout"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

// OpenPostgres is a migrated PostgreSQL database in a fresh schema and the
// URL of that schema; it skips the test when GUICHET_TEST_DATABASE_URL is
// unset (and fails when GUICHET_REQUIRE_POSTGRES is set), as storetest does.
func OpenPostgres(t testing.TB) (*store.DB, string) {
	t.Helper()
	url := storetest.PostgresURL(t)
	db := Pool(t, url)
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, url
}

// Pool opens another connection pool on url (closed when the test ends):
// each instance has its own, as separate processes do (a Notifier tells
// its own notifications by its pool's backends).
func Pool(t testing.TB, url string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), store.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Start runs a Notifier on db (its listener on url, the schema's channel)
// until the test ends, and returns once its listener is connected.
func Start(t testing.TB, db *store.DB, url string, opts fanout.Options) *fanout.Notifier {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	channel, err := fanout.ChannelFor(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	opts.URL, opts.Channel = url, channel
	n, err := fanout.New(db, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = n.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	Eventually(t, "the listener connected", func() bool { return n.ListenerPID() != 0 })
	return n
}

// Kill terminates the backend of n's listening connection (as a database
// restart or a network cut would end it) and returns its PID.
func Kill(t testing.TB, db *store.DB, n *fanout.Notifier) uint32 {
	t.Helper()
	pid := n.ListenerPID()
	if pid == 0 {
		t.Fatal("the listener is not connected")
	}
	var ok bool
	if err := db.QueryRow(context.Background(), "SELECT pg_terminate_backend(?)", int64(pid)).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend(%d): %v %v", pid, ok, err)
	}
	return pid
}

// Eventually waits for cond, a state another goroutine reaches (a count,
// a connection); 10 s without it fails the test.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for range 2000 {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("never: %s", what)
}

// Gate holds a Notifier's re-dials: the first dial goes through, each
// later one signals Dialing and waits for Release, so a test acts while
// the listener is down.
type Gate struct {
	URL     string
	Dialing chan struct{}
	release chan struct{}
	mu      sync.Mutex
	dials   int
}

// NewGate is a gate on the database at url.
func NewGate(url string) *Gate {
	return &Gate{URL: url, Dialing: make(chan struct{}, 16), release: make(chan struct{})}
}

// Dial is the Options.Dial of the gated Notifier.
func (g *Gate) Dial(ctx context.Context) (*pgx.Conn, error) {
	g.mu.Lock()
	g.dials++
	n := g.dials
	g.mu.Unlock()
	if n > 1 {
		g.Dialing <- struct{}{}
		select {
		case <-g.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return pgx.Connect(ctx, g.URL)
}

// Release lets the held dial (and every later one) through.
func (g *Gate) Release() { close(g.release) }

// Spy listens on a channel with a connection of its own: what was
// published, whoever listens or not.
type Spy struct {
	t    testing.TB
	conn *pgx.Conn
}

// NewSpy listens on channel (closed when the test ends).
func NewSpy(t testing.TB, url, channel string) *Spy {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(context.Background(), "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	return &Spy{t: t, conn: conn}
}

// Until returns the payloads published up to and including payload (10 s
// without it fails the test).
func (s *Spy) Until(payload string) []string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []string
	for {
		n, err := s.conn.WaitForNotification(ctx)
		if err != nil {
			s.t.Fatalf("spy: %v after %q", err, got)
		}
		got = append(got, n.Payload)
		if n.Payload == payload {
			return got
		}
	}
}
