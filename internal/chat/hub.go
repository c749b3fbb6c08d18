package chat

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"guichet/internal/fanout"
	"guichet/internal/staff"
)

// TopicQueue is the Notifier topic of every change the agents' queues and
// figures may show; any other topic is a conversation id.
const TopicQueue = "queue"

// Notifier wakes the sockets after a commit: Notify announces a topic to
// every listener of every instance; it carries no data (the rows do), so a
// lost notification only delays what the poll finds. LocalNotifier serves
// one instance (SQLite); fanout.Notifier, PostgreSQL's LISTEN/NOTIFY, every
// instance on one database, and sends fanout.TopicAll after its connection
// comes back (the listeners catch up).
type Notifier interface {
	Notify(ctx context.Context, topic string)
	Listen(fn func(topic string))
}

// LocalNotifier is the in-process Notifier: one instance's listeners.
type LocalNotifier struct {
	mu  sync.RWMutex
	fns []func(string)
}

// Notify calls every listener (listeners must not block).
func (n *LocalNotifier) Notify(_ context.Context, topic string) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	for _, fn := range n.fns {
		fn(topic)
	}
}

// Listen adds a listener.
func (n *LocalNotifier) Listen(fn func(string)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.fns = append(n.fns, fn)
}

// waker is something the hub wakes: a conversation's subscription of a
// socket, or an agent socket's queue.
type waker interface {
	Wake()
	// behind tells whether a conversation row at lastSeq and version holds
	// what this waker has not delivered yet.
	behind(lastSeq, version int64) bool
}

// Hub fans the conversations' rows out to this instance's sockets: woken by
// the Notifier or, every PollInterval, by what changed in the database.
type Hub struct {
	svc          *Service
	PollInterval time.Duration

	mu     sync.Mutex
	convs  map[string]map[waker]struct{}
	queues map[waker]struct{}
	socks  *fanout.Sockets
	// held counts the open sockets per conversation and per client
	// address (the caps: MaxSocketsPerConversation, MaxSocketsPerIP).
	held map[string]int
	// seen is each recently changed conversation's queue key (status,
	// agent, last seq, agent's reads), to tell a change of the queue.
	seen map[string]seenKey
	// polling runs one poll at a time (Run's, a catch-up's).
	polling sync.Mutex
	ctx     context.Context
	stop    context.CancelFunc
}

// NewHub builds the hub of a service and listens to its Notifier.
func NewHub(svc *Service) *Hub {
	ctx, stop := context.WithCancel(context.Background())
	h := &Hub{svc: svc, PollInterval: DefaultPollInterval, convs: map[string]map[waker]struct{}{},
		queues: map[waker]struct{}{}, socks: fanout.NewSockets(ctx), held: map[string]int{}, seen: map[string]seenKey{}, ctx: ctx, stop: stop}
	if svc.Notifier != nil {
		svc.Notifier.Listen(h.wake)
	}
	return h
}

// wake is the Notifier's listener. fanout.TopicAll (the Notifier's
// connection came back: wake-ups may have been lost) polls at once and
// wakes the queues.
func (h *Hub) wake(topic string) {
	if topic == fanout.TopicAll {
		go h.catchUp()
		h.recheckAgents("")
		return
	}
	if id, ok := strings.CutPrefix(topic, staff.Topic("")); ok {
		h.recheckAgents(id)
		return
	}
	h.mu.Lock()
	var list []waker
	if topic == TopicQueue {
		for w := range h.queues {
			list = append(list, w)
		}
	} else {
		for w := range h.convs[topic] {
			list = append(list, w)
		}
	}
	h.mu.Unlock()
	for _, w := range list {
		w.Wake()
	}
}

// recheckAgents re-checks at once, each on a goroutine of its own, the
// staff session of every agent socket of staffID ("": every one): a
// sign-out or a disable committed (staff.Topic), or wake-ups may have been
// lost (fanout.TopicAll). The database says whether the session is gone
// (rows first): a socket whose session is gone closes with 4401, the
// member's sockets on other sessions stay open.
func (h *Hub) recheckAgents(staffID string) {
	h.mu.Lock()
	var list []*agentSocket
	for w := range h.queues {
		if a, ok := w.(*agentSocket); ok {
			list = append(list, a)
		}
	}
	h.mu.Unlock()
	for _, a := range list {
		// principal() takes the socket's lock: asked after h.mu is released.
		if staffID == "" || a.principal().ID == staffID {
			go a.recheck(true, false, false)
		}
	}
}

// gone tells (under h.mu) whether w is a subscription already released:
// a delivery still running must not add it back.
func gone(w waker) bool {
	c, ok := w.(*convSub)
	return ok && c.closed.Load()
}

func (h *Hub) subscribe(convID string, w waker) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if gone(w) {
		return
	}
	set := h.convs[convID]
	if set == nil {
		set = map[waker]struct{}{}
		h.convs[convID] = set
	}
	set[w] = struct{}{}
}

func (h *Hub) unsubscribe(convID string, w waker) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if set := h.convs[convID]; set != nil {
		delete(set, w)
		if len(set) == 0 {
			delete(h.convs, convID)
		}
	}
}

func (h *Hub) watchQueue(w waker, on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if on && !gone(w) {
		h.queues[w] = struct{}{}
	} else {
		delete(h.queues, w)
	}
}

// release ends a subscription: out of its conversation's and the queue's
// watchers, and marked closed (under h.mu) so that a delivery running
// meanwhile cannot add it back.
func (h *Hub) release(convID string, c *convSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c.closed.Store(true)
	if set := h.convs[convID]; set != nil {
		delete(set, c)
		if len(set) == 0 {
			delete(h.convs, convID)
		}
	}
	delete(h.queues, c)
}

// Socket caps of one instance: a visitor's conversation and a client
// address open at most this many sockets (more: 429 RATE_LIMITED before
// the upgrade).
const (
	MaxSocketsPerConversation = 4
	MaxSocketsPerIP           = 50
	MaxSocketsPerStaff        = 10
)

// reserve counts one socket against each key, all or none; false when one
// is at its limit. The release function gives them back.
func (h *Hub) reserve(keys map[string]int) (func(), bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, limit := range keys {
		if h.held[k] >= limit {
			return nil, false
		}
	}
	for k := range keys {
		h.held[k]++
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			for k := range keys {
				if h.held[k]--; h.held[k] <= 0 {
					delete(h.held, k)
				}
			}
		})
	}, true
}

// Sockets is how many sockets are open on this instance.
func (h *Hub) Sockets() int { return h.socks.Len() }

// Shutdown closes every socket with 1012 (service restart: the clients
// reconnect with backoff, to another instance) and stops the poll.
func (h *Hub) Shutdown() {
	h.socks.Shutdown()
	h.stop()
}

// Run polls until ctx is done or the hub shuts down: the conversations
// changed since the last poll (with a margin for transactions still
// committing and clocks of other instances) wake the subscribers that are
// behind them, and any change wakes the queues; every minute it ends the
// abandoned conversations; silent sockets are closed (fanout.Sockets.Run).
func (h *Hub) Run(ctx context.Context) error {
	return h.socks.Run(ctx, fanout.Every{Interval: h.PollInterval, Do: func(ctx context.Context) {
		if err := h.poll(ctx); err != nil && ctx.Err() == nil {
			slog.Warn("chat poll", "err", err)
		}
	}}, fanout.Every{Interval: time.Minute, Do: func(ctx context.Context) {
		// Live conversations whose visitor went silent (AbandonAfter) end.
		if n, err := h.svc.EndAbandoned(ctx); err != nil && ctx.Err() == nil {
			slog.Warn("chat abandoned", "err", err)
		} else if n > 0 {
			slog.Info("chat abandoned conversations ended", "count", n)
		}
	}})
}

// reap closes the sockets silent since cutoff (unix ms) and ticks the
// others (an agent socket re-checks its staff session).
func (h *Hub) reap(cutoff int64) { h.socks.Reap(cutoff) }

// pollMargin is how far back each poll looks.
const pollMargin = 10 * time.Second

// seenFor is how long a poll remembers a conversation's queue key after
// its last change: a conversation unknown to the poll wakes every queue,
// so this bounds only the cost (a conversation silent longer than this
// wakes every queue with its next change), never what the queues show.
const seenFor = 10 * time.Minute

// seenKey is a conversation's queue key and when a poll last found it
// changed.
type seenKey struct {
	key [4]string
	at  time.Time
}

// pollRow is what a poll reads of a conversation.
type pollRow struct {
	id, status, agent  string
	seq, version, read int64
}

// queueKey is what of a conversation the agents' queues show: a change of
// typing or of the visitor's reads is none of theirs.
func (r pollRow) queueKey() [4]string {
	return [4]string{r.status, r.agent, itoa(r.seq), itoa(r.read)}
}

func (h *Hub) scanPoll(ctx context.Context, where string, args ...any) ([]pollRow, error) {
	rows, err := h.svc.DB.Query(ctx, "SELECT id, status, agent_id, last_seq, version, agent_read_seq FROM chat_conversations WHERE "+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pollRow
	for rows.Next() {
		var r pollRow
		if err := rows.Scan(&r.id, &r.status, &r.agent, &r.seq, &r.version, &r.read); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// pollChunk is how many subscribed ids one poll query asks for.
const pollChunk = 500

// poll wakes the subscribers behind their conversation's row, and the
// queues when a conversation's status, agent, last seq or the agent's
// reads changed. The subscribed conversations are read by id, so a
// change whose notification and time window were both missed (a database
// blip, another instance's clock) is still delivered; the time window
// finds the changes of conversations nobody here subscribes to, for the
// queues.
func (h *Hub) poll(ctx context.Context) error {
	h.polling.Lock()
	defer h.polling.Unlock()
	since := h.svc.now().Add(-h.PollInterval - pollMargin).UnixMilli()
	changed, err := h.scanPoll(ctx, "updated_at >= ?", since)
	if err != nil {
		return err
	}
	h.mu.Lock()
	ids := make([]any, 0, len(h.convs))
	for id := range h.convs {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	var subscribed []pollRow
	for len(ids) > 0 {
		n := min(len(ids), pollChunk)
		rows, err := h.scanPoll(ctx, "id IN ("+strings.TrimSuffix(strings.Repeat("?, ", n), ", ")+")", ids[:n]...)
		if err != nil {
			return err
		}
		subscribed = append(subscribed, rows...)
		ids = ids[n:]
	}
	var wake []waker
	h.mu.Lock()
	queue, holders := queueChanges(h.seen, changed, h.svc.now())
	woken := map[waker]bool{}
	for _, r := range append(changed, subscribed...) {
		for w := range h.convs[r.id] {
			if !woken[w] && w.behind(r.seq, r.version) {
				woken[w] = true
				wake = append(wake, w)
			}
		}
	}
	var watchers []waker
	if queue || len(holders) > 0 {
		for w := range h.queues {
			watchers = append(watchers, w)
		}
	}
	h.mu.Unlock()
	for _, w := range watchers {
		// principal() takes the agent socket's lock, which is taken before
		// h.mu elsewhere (unsubscribe): asked after h.mu is released.
		if queue {
			wake = append(wake, w)
		} else if a, ok := w.(*agentSocket); ok {
			if rows := holders[a.principal().ID]; len(rows) > 0 {
				a.patch(rows)
			}
		}
	}
	for _, w := range wake {
		w.Wake()
	}
	return nil
}

// queueChanges compares a poll's rows with the queue keys seen before and
// records the new ones in seen (forgetting those unchanged for seenFor):
// every queue socket is to wake (all) when a conversation's status or
// agent changed, on any change of one that is not active with an agent
// (waiting, offline: everyone's lists, the visitors' positions, the
// figures), and on any change of a conversation the poll does not know
// (its earlier state is unknown: it may have left the waiting list on
// another instance); only its holder's (holders) when a known active
// conversation got messages or reads (their own list's unread counts):
// 250 messages a second across 500 conversations must not re-read 167
// agents' queues every poll (the latency bench of docs/benchmarks.md):
// holders has each agent's rows, which patch their socket's list.
func queueChanges(seen map[string]seenKey, changed []pollRow, now time.Time) (all bool, holders map[string][]pollRow) {
	holders = map[string][]pollRow{}
	for id, k := range seen {
		if now.Sub(k.at) > seenFor {
			delete(seen, id)
		}
	}
	for _, r := range changed {
		key := r.queueKey()
		old, ok := seen[r.id]
		if ok && old.key == key {
			continue
		}
		if ok && r.status == StatusActive && r.agent != "" && old.key[0] == key[0] && old.key[1] == key[1] {
			holders[r.agent] = append(holders[r.agent], r)
		} else {
			all = true
		}
		seen[r.id] = seenKey{key: key, at: now}
	}
	return all, holders
}

// catchUp is a poll now, and every queue woken: each subscription reads
// its conversation's row and the messages after the last seq it
// delivered, each queue its snapshot.
func (h *Hub) catchUp() {
	if err := h.poll(h.ctx); err != nil && h.ctx.Err() == nil {
		slog.Warn("chat catch-up poll", "err", err)
	}
	h.mu.Lock()
	list := make([]waker, 0, len(h.queues))
	for w := range h.queues {
		list = append(list, w)
	}
	h.mu.Unlock()
	for _, w := range list {
		w.Wake()
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
