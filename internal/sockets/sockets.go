// Package sockets is the registry of a hub's WebSockets, shared by chat's
// hub (internal/chat/hub) and co-browse's (internal/cobrowse): each socket's
// bounded JSON writes and last heard time, the reap of silent ones, the
// close of every one with 1012 on shutdown, the hub's timers, and the
// upgrade with small buffers (accept.go). LISTEN/NOTIFY, which wakes the
// hubs of every instance, is internal/fanout's.
package sockets

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"go.opentelemetry.io/otel/trace"
)

// Socket timing shared by the hubs (chat, co-browse).
const (
	// IdleTimeout: a socket whose client sent nothing for this long (its
	// pings come every 20 s) is closed by Registry.Reap.
	IdleTimeout = 75 * time.Second
	// WriteTimeout bounds one write to a client.
	WriteTimeout = 10 * time.Second
	// ReapEvery is how often a hub reaps its silent sockets.
	ReapEvery = IdleTimeout / 5
)

// Runner runs Fn on Wake, at most one at a time, once more when woken
// meanwhile; no goroutine while idle (a socket's delivery: it reads the
// rows after what it delivered).
type Runner struct {
	Fn      func()
	mu      sync.Mutex
	running bool
	again   bool
}

// Wake runs Fn now, or once more after the run in progress.
func (r *Runner) Wake() {
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

func (r *Runner) loop() {
	for {
		r.Fn()
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

// Socket is one WebSocket of a hub: JSON writes bounded by WriteTimeout
// on the hub's context, and when its client was last heard.
type Socket struct {
	Conn *websocket.Conn
	// OnTick runs (on a goroutine of its own) at each reap of a socket
	// not silent (nil: nothing).
	OnTick func()
	// Log is the context the session's log lines are written with: the
	// upgrade request's trace and span ids, nothing of its deadline
	// (LogContext). Nil: none.
	Log   context.Context
	ctx   context.Context
	heard atomic.Int64
	kind  string
}

// LogContext is the context a WebSocket session's log lines are written
// with: r's trace ids (under a traced request; telemetry's log handler
// adds them to each line), detached from r, which ends when its handler
// hands the socket to a goroutine of its own.
func LogContext(r *http.Request) context.Context {
	return trace.ContextWithSpanContext(context.Background(), trace.SpanContextFromContext(r.Context()))
}

// LogCtx is s.Log, or the background when none was set.
func (s *Socket) LogCtx() context.Context {
	if s.Log == nil {
		return context.Background()
	}
	return s.Log
}

// Heard records that the client sent something now.
func (s *Socket) Heard() { s.heard.Store(time.Now().UnixMilli()) }

// Send writes v as one JSON text frame; a failed write closes the socket.
func (s *Socket) Send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(s.ctx, WriteTimeout)
	defer cancel()
	if err := s.Conn.Write(ctx, websocket.MessageText, b); err != nil {
		_ = s.Conn.CloseNow()
		return err
	}
	return nil
}

// Registry is a hub's open sockets: refused once it shuts down, every one
// closed with 1012 (service restart: reconnect, to another instance) when
// it does, the silent ones closed by Reap.
type Registry struct {
	ctx    context.Context
	mu     sync.Mutex
	set    map[*Socket]struct{}
	closed bool
	// Metrics, when set (before the first socket), counts the open ones.
	Metrics *Metrics
}

// NewRegistry is the registry of a hub whose context is ctx (the sockets'
// writes end with it).
func NewRegistry(ctx context.Context) *Registry {
	return &Registry{ctx: ctx, set: map[*Socket]struct{}{}}
}

// New is a socket of this hub on conn, of kind (Kind*, the open sockets
// gauge's label), not registered yet (set OnTick, then Add).
func (r *Registry) New(conn *websocket.Conn, kind string) *Socket {
	s := &Socket{Conn: conn, ctx: r.ctx, kind: kind}
	s.Heard()
	return s
}

// Add registers s; when the hub is shutting down it closes s with 1012
// and returns false.
func (r *Registry) Add(s *Socket) bool {
	r.mu.Lock()
	closed := r.closed
	if !closed {
		r.set[s] = struct{}{}
		r.Metrics.add(s.kind, 1)
	}
	r.mu.Unlock()
	if closed {
		_ = s.Conn.Close(websocket.StatusServiceRestart, "server restarting")
	}
	return !closed
}

// Release forgets a socket that ended.
func (r *Registry) Release(s *Socket) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.set[s]; ok {
		delete(r.set, s)
		r.Metrics.add(s.kind, -1)
	}
}

// Len is how many sockets are open.
func (r *Registry) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.set)
}

func (r *Registry) list() []*Socket {
	list := make([]*Socket, 0, len(r.set))
	for s := range r.set {
		list = append(list, s)
	}
	return list
}

// Shutdown refuses new sockets and closes every open one with 1012,
// returning when all are closed.
func (r *Registry) Shutdown() {
	r.mu.Lock()
	r.closed = true
	list := r.list()
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range list {
		wg.Go(func() { _ = s.Conn.Close(websocket.StatusServiceRestart, "server restarting") })
	}
	wg.Wait()
}

// Reap closes the sockets whose clients sent nothing (not even a ping)
// since cutoff (unix ms; a hub passes IdleTimeout ago), dead clients, and
// ticks the others. One timer per hub, none per socket. It returns once
// every tick has run (the ticks run at once, each on its own goroutine), so
// a reap is done when it returns and the next one never overlaps it: a test
// that reaps, moves its clock and reaps again sees each tick at its time.
func (r *Registry) Reap(cutoff int64) {
	r.mu.Lock()
	list := r.list()
	r.mu.Unlock()
	var ticks sync.WaitGroup
	for _, s := range list {
		if s.heard.Load() < cutoff {
			go s.Conn.Close(websocket.StatusGoingAway, "no heartbeat")
		} else if s.OnTick != nil {
			ticks.Go(s.OnTick)
		}
	}
	ticks.Wait()
}

// Every is work a hub does on a timer.
type Every struct {
	Interval time.Duration
	Do       func(ctx context.Context)
}

// Run does each Every's work on its timer, and reaps the silent sockets
// every ReapEvery, until ctx is done (its error) or the hub shuts down
// (nil). Each timer's work runs one at a time.
func (r *Registry) Run(ctx context.Context, work ...Every) error {
	work = append(work, Every{Interval: ReapEvery, Do: func(context.Context) {
		r.Reap(time.Now().Add(-IdleTimeout).UnixMilli())
	}})
	var wg sync.WaitGroup
	for _, w := range work {
		wg.Go(func() {
			t := time.NewTicker(w.Interval)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-r.ctx.Done():
					return
				case <-t.C:
					w.Do(ctx)
				}
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}
