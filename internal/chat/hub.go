package chat

import (
	"context"

	"github.com/coder/websocket"
	"log/slog"
	"sync"
	"time"
)

// TopicQueue is the Notifier topic of every change the agents' queues and
// figures may show; any other topic is a conversation id.
const TopicQueue = "queue"

// Notifier wakes the sockets after a commit: Notify announces a topic to
// every listener of every instance; it carries no data (the rows do), so a
// lost notification only delays what the poll finds. Issue 19 adds the
// PostgreSQL LISTEN/NOTIFY implementation beside LocalNotifier.
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
	wake()
	// behind tells whether a conversation row at lastSeq and version holds
	// what this waker has not delivered yet.
	behind(lastSeq, version int64) bool
}

// closer is a socket the hub closes on shutdown, or when its client has
// been silent too long.
type closer interface {
	shutdown()
	silent(cutoff int64) bool
	close(code websocket.StatusCode, reason string)
}

// Hub fans the conversations' rows out to this instance's sockets: woken by
// the Notifier or, every PollInterval, by what changed in the database.
type Hub struct {
	svc          *Service
	PollInterval time.Duration

	mu      sync.Mutex
	convs   map[string]map[waker]struct{}
	queues  map[waker]struct{}
	sockets map[closer]struct{}
	closed  bool
	// seen is each recently changed conversation's (last_seq, version) at
	// the last poll, to tell a change of the queue.
	seen map[string][2]int64
	ctx  context.Context
	stop context.CancelFunc
}

// NewHub builds the hub of a service and listens to its Notifier.
func NewHub(svc *Service) *Hub {
	ctx, stop := context.WithCancel(context.Background())
	h := &Hub{svc: svc, PollInterval: DefaultPollInterval, convs: map[string]map[waker]struct{}{},
		queues: map[waker]struct{}{}, sockets: map[closer]struct{}{}, seen: map[string][2]int64{}, ctx: ctx, stop: stop}
	if svc.Notifier != nil {
		svc.Notifier.Listen(h.wake)
	}
	return h
}

// wake is the Notifier's listener.
func (h *Hub) wake(topic string) {
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
		w.wake()
	}
}

func (h *Hub) subscribe(convID string, w waker) {
	h.mu.Lock()
	defer h.mu.Unlock()
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
	if on {
		h.queues[w] = struct{}{}
	} else {
		delete(h.queues, w)
	}
}

// register keeps a socket for shutdown; false when the hub is closing.
func (h *Hub) register(c closer, on bool) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if on && h.closed {
		return false
	}
	if on {
		h.sockets[c] = struct{}{}
	} else {
		delete(h.sockets, c)
	}
	return true
}

// Sockets is how many sockets are open on this instance.
func (h *Hub) Sockets() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sockets)
}

// Shutdown closes every socket with 1012 (service restart: the clients
// reconnect with backoff, to another instance) and stops the poll.
func (h *Hub) Shutdown() {
	h.mu.Lock()
	h.closed = true
	list := make([]closer, 0, len(h.sockets))
	for c := range h.sockets {
		list = append(list, c)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range list {
		wg.Go(c.shutdown)
	}
	wg.Wait()
	h.stop()
}

// Run polls until ctx is done: the conversations changed since the last
// poll (with a margin for transactions still committing and clocks of
// other instances) wake the subscribers that are behind them, and any
// change wakes the queues.
func (h *Hub) Run(ctx context.Context) error {
	t := time.NewTicker(h.PollInterval)
	defer t.Stop()
	reap := time.NewTicker(idleTimeout / 5)
	defer reap.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-h.ctx.Done():
			return nil
		case <-t.C:
			if err := h.poll(ctx); err != nil && ctx.Err() == nil {
				slog.Warn("chat poll", "err", err)
			}
		case now := <-reap.C:
			h.reap(now.Add(-idleTimeout).UnixMilli())
		}
	}
}

// reap closes the sockets whose clients sent nothing (not even their 20 s
// ping) since cutoff: dead clients. One timer for the instance, none per
// socket.
func (h *Hub) reap(cutoff int64) {
	h.mu.Lock()
	var silent []closer
	for c := range h.sockets {
		if c.silent(cutoff) {
			silent = append(silent, c)
		}
	}
	h.mu.Unlock()
	for _, c := range silent {
		go c.close(websocket.StatusGoingAway, "no heartbeat")
	}
}

// pollMargin is how far back each poll looks.
const pollMargin = 10 * time.Second

func (h *Hub) poll(ctx context.Context) error {
	since := h.svc.now().Add(-h.PollInterval - pollMargin).UnixMilli()
	rows, err := h.svc.DB.Query(ctx, "SELECT id, last_seq, version FROM chat_conversations WHERE updated_at >= ?", since)
	if err != nil {
		return err
	}
	type row struct {
		id           string
		seq, version int64
	}
	var changed []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.seq, &r.version); err != nil {
			rows.Close()
			return err
		}
		changed = append(changed, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var wake []waker
	queue := false
	h.mu.Lock()
	next := make(map[string][2]int64, len(changed))
	for _, r := range changed {
		if old, ok := h.seen[r.id]; !ok || old != [2]int64{r.seq, r.version} {
			queue = true
		}
		next[r.id] = [2]int64{r.seq, r.version}
		for w := range h.convs[r.id] {
			if w.behind(r.seq, r.version) {
				wake = append(wake, w)
			}
		}
	}
	h.seen = next
	if queue {
		for w := range h.queues {
			wake = append(wake, w)
		}
	}
	h.mu.Unlock()
	for _, w := range wake {
		w.wake()
	}
	return nil
}

// runner runs a delivery function on wake, at most one at a time per
// socket, once more when woken meanwhile; no goroutine while idle.
type runner struct {
	mu      sync.Mutex
	running bool
	again   bool
	fn      func()
}

func (r *runner) wake() {
	r.mu.Lock()
	if r.running {
		r.again = true
		r.mu.Unlock()
		return
	}
	r.running = true
	r.mu.Unlock()
	go r.loop()
}

func (r *runner) loop() {
	for {
		r.fn()
		r.mu.Lock()
		if !r.again {
			r.running = false
			r.mu.Unlock()
			return
		}
		r.again = false
		r.mu.Unlock()
	}
}
