// Package fanout wakes the sockets of every instance after a commit. The
// rows are the truth (chat messages, co-browse events, a session's last
// seq); a wake-up carries only a topic, so a lost one delays what the hubs'
// poll finds and never loses it.
//
// Notifier is the PostgreSQL implementation: Notify wakes this instance's
// listeners at once, in process, and hands the topic to a sender that
// publishes it with pg_notify; one dedicated connection per instance
// LISTENs and wakes the listeners with what the other instances publish.
// After every (re)connect the listeners get TopicAll ("poll now"): what
// was published while the connection was down is read from the rows,
// after the last sequence each socket delivered.
package fanout

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/store"
)

const (
	// DefaultChannel is the channel of a database's public schema.
	DefaultChannel = "guichet_wake"
	// TopicAll is the catch-up wake every listener gets after the
	// listening connection (re)connects: read everything you watch from
	// the last sequence you delivered.
	TopicAll = "*"
	// MaxTopic is the longest topic published: PostgreSQL's payload must
	// be shorter than 8000 bytes. A longer one wakes this instance only
	// (the others find it by their poll).
	MaxTopic = 7999
)

// Options configure a Notifier.
type Options struct {
	// URL is the database's postgres:// URL, for the listening connection.
	URL string
	// Channel is the NOTIFY channel (ChannelFor gives the database's).
	Channel string
	// Dial opens the listening connection (default pgx.Connect on URL).
	Dial func(ctx context.Context) (*pgx.Conn, error)
	// MinBackoff and MaxBackoff bound the wait before a re-dial (doubled
	// after each failure, with jitter); defaults 100 ms and 30 s.
	MinBackoff, MaxBackoff time.Duration
	// Idle is how long the listener waits for a notification before it
	// checks its connection still answers (default 30 s).
	Idle time.Duration
}

// Stats counts what a Notifier did.
type Stats struct {
	// Sent is topics published with pg_notify; Skipped, topics not
	// published (too long, or the publish failed).
	Sent, Skipped int64
	// Received is other instances' notifications delivered to the
	// listeners; Own, this instance's own notifications coming back
	// (ignored: its listeners were woken in process already).
	Received, Own int64
	// Connects counts the listening connection's successful connects
	// (the first one included); Reconnects is Connects - 1.
	Connects int64
}

// Notifier is the PostgreSQL Notifier (chat.Notifier, which co-browse
// uses too). Run runs its listener and sender until ctx is done.
type Notifier struct {
	db   *store.DB
	opts Options

	mu  sync.RWMutex
	fns []func(string)

	// pending is the topics waiting for the sender, in order, once each,
	// and when each was queued (the publish lag).
	pmu      sync.Mutex
	pending  []string
	queuedAt []time.Time
	queued   map[string]bool
	kick     chan struct{}
	lag      prometheus.Histogram

	// own holds the backend PIDs this instance published through, with
	// when (unix ms): a notification from one of them is this
	// instance's own.
	omu sync.Mutex
	own map[uint32]int64

	listenPID                                  atomic.Uint32
	sent, skipped, received, ownSeen, connects atomic.Int64
}

// New builds a Notifier on db (the pool NOTIFY goes through).
func New(db *store.DB, opts Options) (*Notifier, error) {
	if db == nil || db.Dialect != store.Postgres {
		return nil, errors.New("fanout: the PostgreSQL notifier needs a PostgreSQL database")
	}
	if opts.Channel == "" {
		opts.Channel = DefaultChannel
	}
	if opts.Dial == nil {
		url := opts.URL
		opts.Dial = func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, url) }
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 100 * time.Millisecond
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = max(30*time.Second, opts.MinBackoff)
	}
	if opts.Idle <= 0 {
		opts.Idle = 30 * time.Second
	}
	return &Notifier{db: db, opts: opts, queued: map[string]bool{}, kick: make(chan struct{}, 1), own: map[uint32]int64{},
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "guichet", Subsystem: "fanout", Name: "publish_lag_seconds",
			Help: "Time from a Notify to its pg_notify committed, for the other instances (the payload carries only the topic: " +
				"the database's delivery to them is not timed).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}})}, nil
}

// ChannelFor is the channel of the schema db's connections use: instances
// on one schema share it, and deployments (or tests) in other schemas of
// the same database do not wake each other.
func ChannelFor(ctx context.Context, db *store.DB) (string, error) {
	var schema string
	if err := db.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return "", fmt.Errorf("fanout channel: %w", err)
	}
	if schema == "public" {
		return DefaultChannel, nil
	}
	return DefaultChannel + "_" + schema, nil
}

// Publish sends one topic to the instances on db's schema from a process
// that runs no Notifier (a command such as guichet staff disable).
func Publish(ctx context.Context, db *store.DB, topic string) error {
	channel, err := ChannelFor(ctx, db)
	if err != nil {
		return err
	}
	_, err = db.SQL.ExecContext(ctx, "SELECT pg_notify($1, $2)", channel, topic)
	return err
}

// Listen adds a listener (listeners must not block).
func (n *Notifier) Listen(fn func(string)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.fns = append(n.fns, fn)
}

func (n *Notifier) wakeLocal(topic string) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	for _, fn := range n.fns {
		fn(topic)
	}
}

// Notify wakes this instance's listeners now and queues the topic for the
// other instances (a topic already waiting is not queued twice). It does
// not wait for the database.
func (n *Notifier) Notify(_ context.Context, topic string) {
	n.wakeLocal(topic)
	if len(topic) > MaxTopic || topic == "" {
		n.skipped.Add(1)
		return
	}
	n.pmu.Lock()
	if !n.queued[topic] {
		n.queued[topic] = true
		n.pending = append(n.pending, topic)
		n.queuedAt = append(n.queuedAt, time.Now())
	}
	n.pmu.Unlock()
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// ListenerPID is the backend PID of the listening connection (0 while it
// is down).
func (n *Notifier) ListenerPID() uint32 { return n.listenPID.Load() }

// Channel is the NOTIFY channel.
func (n *Notifier) Channel() string { return n.opts.Channel }

// Stats returns the counters.
func (n *Notifier) Stats() Stats {
	return Stats{Sent: n.sent.Load(), Skipped: n.skipped.Load(), Received: n.received.Load(), Own: n.ownSeen.Load(),
		Connects: n.connects.Load()}
}

// Register exposes the counters as guichet_fanout_* metrics.
func (n *Notifier) Register(reg prometheus.Registerer) {
	counter := func(name, help string, v func() int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "guichet", Subsystem: "fanout", Name: name, Help: help},
			func() float64 { return float64(v()) })
	}
	reg.MustRegister(
		counter("notifies_sent_total", "Topics published to the other instances with pg_notify.", n.sent.Load),
		counter("notifies_skipped_total", "Topics not published (too long, or the publish failed): the others' poll finds them.", n.skipped.Load),
		counter("notifies_received_total", "Other instances' notifications that woke this instance's sockets.", n.received.Load),
		counter("notifies_own_total", "This instance's own notifications coming back, ignored.", n.ownSeen.Load),
		counter("reconnects_total", "Times the listening connection was re-established.", func() int64 { return max(0, n.connects.Load()-1) }),
		n.lag,
	)
}

// Run listens and publishes until ctx is done, then publishes what is
// still pending (2 s at most).
func (n *Notifier) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { n.listen(ctx) })
	n.publishLoop(ctx)
	wg.Wait()
	return nil
}

func (n *Notifier) take() ([]string, []time.Time) {
	n.pmu.Lock()
	defer n.pmu.Unlock()
	list, at := n.pending, n.queuedAt
	n.pending, n.queuedAt = nil, nil
	clear(n.queued)
	return list, at
}

func (n *Notifier) publishLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			topics, at := n.take()
			n.publish(flush, topics, at)
			cancel()
			return
		case <-n.kick:
			topics, at := n.take()
			n.publish(ctx, topics, at)
		}
	}
}

// publish sends the topics (queued at at) in one statement, through a
// pooled connection whose backend PID is remembered first (its
// notifications are ours).
func (n *Notifier) publish(ctx context.Context, topics []string, at []time.Time) {
	if len(topics) == 0 {
		return
	}
	err := func() error {
		conn, err := n.db.SQL.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		if err := conn.Raw(func(dc any) error {
			c, ok := dc.(*stdlib.Conn)
			if !ok {
				return fmt.Errorf("fanout: %T is not a pgx connection", dc)
			}
			n.markOwn(c.Conn().PgConn().PID())
			return nil
		}); err != nil {
			return err
		}
		_, err = conn.ExecContext(ctx, "SELECT pg_notify($1, t) FROM unnest($2::text[]) AS t", n.opts.Channel, topics)
		return err
	}()
	if err != nil {
		n.skipped.Add(int64(len(topics)))
		if ctx.Err() == nil {
			slog.Warn("fanout publish", "topics", len(topics), "err", err)
		}
		return
	}
	n.sent.Add(int64(len(topics)))
	done := time.Now()
	for _, t := range at {
		n.lag.Observe(done.Sub(t).Seconds())
	}
}

// ownFor is how long a PID we published through counts as ours: long
// past a notification's way back, short enough that another backend
// reusing the PID is not mistaken for long (which would only delay its
// wake-ups to the poll).
const ownFor = time.Minute

func (n *Notifier) markOwn(pid uint32) {
	now := time.Now().UnixMilli()
	n.omu.Lock()
	defer n.omu.Unlock()
	n.own[pid] = now
	for p, at := range n.own {
		if now-at > ownFor.Milliseconds() {
			delete(n.own, p)
		}
	}
}

func (n *Notifier) isOwn(pid uint32) bool {
	n.omu.Lock()
	defer n.omu.Unlock()
	_, ok := n.own[pid]
	return ok
}

// dialTimeout bounds one connect of the listener (dial, LISTEN).
const dialTimeout = 10 * time.Second

// listen keeps one connection LISTENing: re-dialled after a loss with
// backoff and jitter; after each connect, the listeners catch up.
func (n *Notifier) listen(ctx context.Context) {
	delay := n.opts.MinBackoff
	for ctx.Err() == nil {
		conn, err := n.connect(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			slog.Warn("fanout listener: connect failed", "err", err, "retry_in", delay.String())
			sleep(ctx, jitter(delay))
			delay = min(2*delay, n.opts.MaxBackoff)
			continue
		}
		n.connects.Add(1)
		n.listenPID.Store(conn.PgConn().PID())
		n.wakeLocal(TopicAll)
		up := time.Now()
		err = n.receive(ctx, conn)
		n.listenPID.Store(0)
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		_ = conn.Close(closeCtx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		// A connection that lived long starts the backoff afresh; one
		// lost at once (a database restarting) keeps doubling it.
		if time.Since(up) > n.opts.MaxBackoff {
			delay = n.opts.MinBackoff
		}
		slog.Warn("fanout listener: connection lost", "err", err, "retry_in", delay.String())
		sleep(ctx, jitter(delay))
		delay = min(2*delay, n.opts.MaxBackoff)
	}
}

func (n *Notifier) connect(ctx context.Context) (*pgx.Conn, error) {
	// A database that does not answer (a cut network) fails the attempt
	// after dialTimeout, and the backoff goes on.
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	conn, err := n.opts.Dial(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{n.opts.Channel}.Sanitize()); err != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return conn, nil
}

// receive wakes the listeners with each other instance's notification
// until the connection fails (an idle one is pinged every Idle).
func (n *Notifier) receive(ctx context.Context, conn *pgx.Conn) error {
	for {
		wait, cancel := context.WithTimeout(ctx, n.opts.Idle)
		nt, err := conn.WaitForNotification(wait)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if pgconn.Timeout(err) && !conn.IsClosed() {
				ping, cancel := context.WithTimeout(ctx, 5*time.Second)
				err = conn.Ping(ping)
				cancel()
				if err == nil {
					continue
				}
			}
			return err
		}
		if nt.Channel != n.opts.Channel {
			continue
		}
		if n.isOwn(nt.PID) {
			n.ownSeen.Add(1)
			continue
		}
		n.received.Add(1)
		n.wakeLocal(nt.Payload)
	}
}

// jitter is d/2 plus a random part of d/2.
func jitter(d time.Duration) time.Duration {
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
