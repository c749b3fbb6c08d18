// Package hub is the live chat's registry of this instance's sockets
// (internal/chat/chatapi serves them): which socket follows which
// conversation and which watch the agents' queue, the per-conversation,
// per-address and per-staff caps, and what wakes them: the chat's
// Notifier after each commit and, every PollInterval, a poll of what
// changed in the database (a lost notification, another instance's
// change); it also ends the abandoned conversations every minute. It reads
// the rows through the chat service (internal/chat), never SQL of its own.
package hub

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"guichet/internal/chat"
	"guichet/internal/fanout"
	"guichet/internal/sockets"
	"guichet/internal/staff"
)

// DefaultPollInterval is the poll's period unless PollInterval says.
const DefaultPollInterval = 2 * time.Second

// Waker is something the hub wakes: a conversation's subscription of a
// socket, or an agent socket's queue.
type Waker interface {
	Wake()
	// Behind tells whether a conversation row at lastSeq and version holds
	// what this Waker has not delivered yet.
	Behind(lastSeq, version int64) bool
}

// Subscription is a conversation's Waker that its socket releases for
// good: once Close ran (under the hub's lock, Release), a delivery still
// running cannot subscribe it again.
type Subscription interface {
	Waker
	Close()
	Closed() bool
}

// AgentQueue is an agent socket's queue Waker: the hub asks it to
// re-check its staff session (a sign-out, a disable, lost wake-ups) and
// hands it the poll's rows of its own conversations.
type AgentQueue interface {
	Waker
	StaffID() string
	Recheck()
	Patch(rows []chat.PollRow)
}

// Hub fans the conversations' rows out to this instance's sockets: woken by
// the Notifier or, every PollInterval, by what changed in the database.
type Hub struct {
	svc          *chat.Service
	PollInterval time.Duration

	mu     sync.Mutex
	convs  map[string]map[Waker]struct{}
	queues map[Waker]struct{}
	socks  *sockets.Registry
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

// New builds the hub of a service and listens to its Notifier.
func New(svc *chat.Service) *Hub {
	ctx, stop := context.WithCancel(context.Background())
	h := &Hub{svc: svc, PollInterval: DefaultPollInterval, convs: map[string]map[Waker]struct{}{},
		queues: map[Waker]struct{}{}, socks: sockets.NewRegistry(ctx), held: map[string]int{}, seen: map[string]seenKey{}, ctx: ctx, stop: stop}
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
	var list []Waker
	if topic == chat.TopicQueue {
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
	var list []AgentQueue
	for w := range h.queues {
		if a, ok := w.(AgentQueue); ok {
			list = append(list, a)
		}
	}
	h.mu.Unlock()
	for _, a := range list {
		// StaffID() takes the socket's lock: asked after h.mu is released.
		if staffID == "" || a.StaffID() == staffID {
			go a.Recheck()
		}
	}
}

// gone tells (under h.mu) whether w is a subscription already released:
// a delivery still running must not add it back.
func gone(w Waker) bool {
	c, ok := w.(Subscription)
	return ok && c.Closed()
}

// Subscribe wakes w at each change of conversation convID.
func (h *Hub) Subscribe(convID string, w Waker) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if gone(w) {
		return
	}
	set := h.convs[convID]
	if set == nil {
		set = map[Waker]struct{}{}
		h.convs[convID] = set
	}
	set[w] = struct{}{}
}

// Unsubscribe stops waking w for convID.
func (h *Hub) Unsubscribe(convID string, w Waker) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if set := h.convs[convID]; set != nil {
		delete(set, w)
		if len(set) == 0 {
			delete(h.convs, convID)
		}
	}
}

// WatchQueue wakes w (on) or no more (off) at each change of the queue.
func (h *Hub) WatchQueue(w Waker, on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if on && !gone(w) {
		h.queues[w] = struct{}{}
	} else {
		delete(h.queues, w)
	}
}

// Release ends a subscription: out of its conversation's and the queue's
// watchers, and marked closed (under h.mu) so that a delivery running
// meanwhile cannot add it back.
func (h *Hub) Release(convID string, c Subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c.Close()
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

// Reserve counts one socket against each key, all or none; false when one
// is at its limit. The release function gives them back.
func (h *Hub) Reserve(keys map[string]int) (func(), bool) {
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

// Registry is the hub's socket registry (chatapi adds its sockets there).
func (h *Hub) Registry() *sockets.Registry { return h.socks }

// Context is the hub's: done when it shuts down (the sockets' reads and
// writes run on it).
func (h *Hub) Context() context.Context { return h.ctx }

// Holds tells whether w watches the queue and whether it follows
// conversation convID (tests: a released subscription is in neither).
func (h *Hub) Holds(convID string, w Waker) (queue, conversation bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, queue = h.queues[w]
	_, conversation = h.convs[convID][w]
	return queue, conversation
}

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
// abandoned conversations; silent sockets are closed (sockets.Registry.Run).
func (h *Hub) Run(ctx context.Context) error {
	return h.socks.Run(ctx, sockets.Every{Interval: h.PollInterval, Do: func(ctx context.Context) {
		if err := h.Poll(ctx); err != nil && ctx.Err() == nil {
			slog.Warn("chat poll", "err", err)
		}
	}}, sockets.Every{Interval: time.Minute, Do: func(ctx context.Context) {
		// Live conversations whose visitor went silent (AbandonAfter) end.
		if n, err := h.svc.EndAbandoned(ctx); err != nil && ctx.Err() == nil {
			slog.Warn("chat abandoned", "err", err)
		} else if n > 0 {
			slog.Info("chat abandoned conversations ended", "count", n)
		}
	}})
}

// Reap closes the sockets silent since cutoff (unix ms) and ticks the
// others (an agent socket re-checks its staff session).
func (h *Hub) Reap(cutoff int64) { h.socks.Reap(cutoff) }

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

// queueKey is what of a conversation the agents' queues show: a change of
// typing or of the visitor's reads is none of theirs.
func queueKey(r chat.PollRow) [4]string {
	return [4]string{r.Status, r.AgentID, itoa(r.LastSeq), itoa(r.AgentReadSeq)}
}

// pollChunk is how many subscribed ids one poll query asks for.
const pollChunk = 500

// Poll wakes the subscribers behind their conversation's row, and the
// queues when a conversation's status, agent, last seq or the agent's
// reads changed. The subscribed conversations are read by id, so a
// change whose notification and time window were both missed (a database
// blip, another instance's clock) is still delivered; the time window
// finds the changes of conversations nobody here subscribes to, for the
// queues.
func (h *Hub) Poll(ctx context.Context) error {
	h.polling.Lock()
	defer h.polling.Unlock()
	changed, err := h.svc.ChangedSince(ctx, h.svc.Clock().Add(-h.PollInterval-pollMargin))
	if err != nil {
		return err
	}
	h.mu.Lock()
	ids := make([]string, 0, len(h.convs))
	for id := range h.convs {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	var subscribed []chat.PollRow
	for len(ids) > 0 {
		n := min(len(ids), pollChunk)
		rows, err := h.svc.PollRows(ctx, ids[:n])
		if err != nil {
			return err
		}
		subscribed = append(subscribed, rows...)
		ids = ids[n:]
	}
	var wake []Waker
	h.mu.Lock()
	queue, holders := queueChanges(h.seen, changed, h.svc.Clock())
	woken := map[Waker]bool{}
	for _, r := range append(changed, subscribed...) {
		for w := range h.convs[r.ID] {
			if !woken[w] && w.Behind(r.LastSeq, r.Version) {
				woken[w] = true
				wake = append(wake, w)
			}
		}
	}
	var watchers []Waker
	if queue || len(holders) > 0 {
		for w := range h.queues {
			watchers = append(watchers, w)
		}
	}
	h.mu.Unlock()
	for _, w := range watchers {
		// StaffID() takes the agent socket's lock, which is taken before
		// h.mu elsewhere (unsubscribe): asked after h.mu is released.
		if queue {
			wake = append(wake, w)
		} else if a, ok := w.(AgentQueue); ok {
			if rows := holders[a.StaffID()]; len(rows) > 0 {
				a.Patch(rows)
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
func queueChanges(seen map[string]seenKey, changed []chat.PollRow, now time.Time) (all bool, holders map[string][]chat.PollRow) {
	holders = map[string][]chat.PollRow{}
	for id, k := range seen {
		if now.Sub(k.at) > seenFor {
			delete(seen, id)
		}
	}
	for _, r := range changed {
		key := queueKey(r)
		old, ok := seen[r.ID]
		if ok && old.key == key {
			continue
		}
		if ok && r.Status == chat.StatusActive && r.AgentID != "" && old.key[0] == key[0] && old.key[1] == key[1] {
			holders[r.AgentID] = append(holders[r.AgentID], r)
		} else {
			all = true
		}
		seen[r.ID] = seenKey{key: key, at: now}
	}
	return all, holders
}

// catchUp is a poll now, and every queue woken: each subscription reads
// its conversation's row and the messages after the last seq it
// delivered, each queue its snapshot.
func (h *Hub) catchUp() {
	if err := h.Poll(h.ctx); err != nil && h.ctx.Err() == nil {
		slog.Warn("chat catch-up poll", "err", err)
	}
	h.mu.Lock()
	list := make([]Waker, 0, len(h.queues))
	for w := range h.queues {
		list = append(list, w)
	}
	h.mu.Unlock()
	for _, w := range list {
		w.Wake()
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
