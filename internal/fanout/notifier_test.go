package fanout_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/fanout"
	"guichet/internal/fanout/fanouttest"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// topics records what a Notifier's listener was woken with.
type topics struct {
	mu   sync.Mutex
	list []string
}

func (r *topics) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, s)
}

func (r *topics) count(s string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, t := range r.list {
		if t == s {
			n++
		}
	}
	return n
}

func (r *topics) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.list)
}

// TestNotifyReachesTheOtherInstance: a topic notified on A wakes A's
// listeners at once (in process) and B's through PostgreSQL, once each; A's
// own notification coming back is ignored (counted, not delivered); a topic
// too long for a payload wakes A only; every listener got one catch-up
// wake at connect. Each topic published is timed once, from its Notify to
// its pg_notify (the publish lag; the long one is not published).
func TestNotifyReachesTheOtherInstance(t *testing.T) {
	db, url := fanouttest.OpenPostgres(t)
	a := fanouttest.Start(t, db, url, fanout.Options{})
	reg := prometheus.NewRegistry()
	a.Register(reg)
	b := fanouttest.Start(t, fanouttest.Pool(t, url), url, fanout.Options{})
	var atA, atB topics
	a.Listen(atA.add)
	b.Listen(atB.add)
	if !strings.HasPrefix(a.Channel(), fanout.DefaultChannel+"_t_") {
		t.Fatalf("channel %q: a test schema's own", a.Channel())
	}

	a.Notify(context.Background(), "conv-1")
	if atA.count("conv-1") != 1 {
		t.Fatalf("A's listener got %v before Notify returned", atA.all())
	}
	fanouttest.Eventually(t, "B woken", func() bool { return atB.count("conv-1") == 1 })
	fanouttest.Eventually(t, "A's own notification back", func() bool { return a.Stats().Own == 1 })
	long := strings.Repeat("x", fanout.MaxTopic+1)
	a.Notify(context.Background(), long)
	// A marker after it: once B has the marker, B would have had the long
	// topic before it (one connection, in order).
	a.Notify(context.Background(), "marker")
	fanouttest.Eventually(t, "B gets the marker", func() bool { return atB.count("marker") == 1 })
	if atB.count(long) != 0 || atA.count(long) != 1 {
		t.Fatalf("long topic: A %d, B %d; want 1, 0", atA.count(long), atB.count(long))
	}
	fanouttest.Eventually(t, "A's marker back", func() bool { return a.Stats().Own == 2 })
	if got := atA.all(); !slices.Equal(got, []string{"conv-1", long, "marker"}) {
		t.Fatalf("A's listener got %q; its own notifications must not come back", got)
	}
	if got := atB.all(); !slices.Equal(got, []string{"conv-1", "marker"}) {
		t.Fatalf("B's listener got %q", got)
	}
	// A's own notification can come back before its publisher has counted
	// the publish (Sent, then the lag, after pg_notify returns): wait for
	// both publishes' lags, observed after Sent (CI, session 25: Sent 1
	// with Own 2 under load).
	fanouttest.Eventually(t, "both publishes counted", func() bool {
		return testenv.Metric(t, reg, "guichet_fanout_publish_lag_seconds") == 2
	})
	sa, sb := a.Stats(), b.Stats()
	if sa.Sent != 2 || sa.Skipped != 1 || sa.Received != 0 || sb.Received != 2 || sb.Own != 0 || sa.Connects != 1 || sb.Connects != 1 {
		t.Fatalf("stats A %+v, B %+v", sa, sb)
	}
	if n := testenv.Metric(t, reg, "guichet_fanout_publish_lag_seconds"); n != 2 {
		t.Fatalf("publish lags observed %v, want 2", n)
	}
}

// TestListenerReconnectsAndCatchesUp: the listener's backend terminated,
// the Notifier dials again (held by the test until B's notifies during the
// gap are sent): those never arrive as notifications (nobody listened),
// but the listeners get one catch-up wake (TopicAll) after the reconnect,
// and live notifications flow again.
func TestListenerReconnectsAndCatchesUp(t *testing.T) {
	db, url := fanouttest.OpenPostgres(t)
	gate := fanouttest.NewGate(url)
	a := fanouttest.Start(t, db, url, fanout.Options{Dial: gate.Dial})
	b := fanouttest.Start(t, fanouttest.Pool(t, url), url, fanout.Options{})
	var atA topics
	a.Listen(atA.add)
	b.Notify(context.Background(), "before")
	fanouttest.Eventually(t, "A woken", func() bool { return atA.count("before") == 1 })

	old := fanouttest.Kill(t, db, a)
	<-gate.Dialing // A lost its connection and dials again
	b.Notify(context.Background(), "during")
	fanouttest.Eventually(t, "B sent it", func() bool { return b.Stats().Sent == 2 })
	gate.Release()
	fanouttest.Eventually(t, "A reconnected", func() bool { return a.ListenerPID() != 0 && a.ListenerPID() != old })
	b.Notify(context.Background(), "after")
	fanouttest.Eventually(t, "A woken after", func() bool { return atA.count("after") == 1 })
	if got := atA.all(); !slices.Equal(got, []string{"before", fanout.TopicAll, "after"}) {
		t.Fatalf("A's listener got %q; want before, the catch-up, after", got)
	}
	if s := a.Stats(); s.Connects != 2 || s.Received != 2 {
		t.Fatalf("A %+v: 2 connects, 2 received", s)
	}
}

// TestNotifierNeedsPostgres: SQLite keeps chat's LocalNotifier.
func TestNotifierNeedsPostgres(t *testing.T) {
	if _, err := fanout.New(storetest.Open(t), fanout.Options{}); err == nil {
		t.Fatal("a PostgreSQL notifier on SQLite")
	}
}

// TestListenerRedialsAfterFailedConnects: a database refusing the first
// three connects (restarting) is dialled again, with backoff, until one
// succeeds; the listeners then get one catch-up wake and notifications.
func TestListenerRedialsAfterFailedConnects(t *testing.T) {
	db, url := fanouttest.OpenPostgres(t)
	var mu sync.Mutex
	dials := 0
	var atA topics
	channel, err := fanout.ChannelFor(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	a, err := fanout.New(fanouttest.Pool(t, url), fanout.Options{URL: url, Channel: channel, MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond,
		Dial: func(ctx context.Context) (*pgx.Conn, error) {
			mu.Lock()
			dials++
			n := dials
			mu.Unlock()
			if n <= 3 {
				return nil, errors.New("the database system is starting up")
			}
			return pgx.Connect(ctx, url)
		}})
	if err != nil {
		t.Fatal(err)
	}
	a.Listen(atA.add)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.Run(ctx)
	}()
	defer func() { cancel(); <-done }()
	fanouttest.Eventually(t, "connected", func() bool { return a.ListenerPID() != 0 })
	b := fanouttest.Start(t, db, url, fanout.Options{})
	b.Notify(context.Background(), "hello")
	fanouttest.Eventually(t, "woken", func() bool { return atA.count("hello") == 1 })
	mu.Lock()
	defer mu.Unlock()
	if s := a.Stats(); dials != 4 || s.Connects != 1 || !slices.Equal(atA.all(), []string{fanout.TopicAll, "hello"}) {
		t.Fatalf("%d dials, %+v, woken with %q", dials, s, atA.all())
	}
}
