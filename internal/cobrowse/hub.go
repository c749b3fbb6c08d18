package cobrowse

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/fanout"
	"guichet/internal/sockets"
	"guichet/internal/staff"
)

// Socket limits and close codes (docs/cobrowse.md; the timing is
// fanout's: IdleTimeout, WriteTimeout).
const (
	maxBadFrames = 5
	// CloseUnknown: no live session; do not reconnect.
	CloseUnknown websocket.StatusCode = 4404
	// DefaultPollInterval is how often the hub polls and sweeps.
	DefaultPollInterval = 2 * time.Second
)

// Hub fans the sessions' rows out to this instance's sockets, woken by the
// Notifier (topics Topic(id)) or by its poll; the poll also sweeps.
type Hub struct {
	svc          *Service
	PollInterval time.Duration

	mu    sync.Mutex
	subs  map[string]map[*sub]struct{}
	socks *sockets.Registry
	ctx   context.Context
	stop  context.CancelFunc
}

// NewHub builds the hub of a service and listens to its Notifier.
func NewHub(svc *Service) *Hub {
	ctx, stop := context.WithCancel(context.Background())
	h := &Hub{svc: svc, PollInterval: DefaultPollInterval, subs: map[string]map[*sub]struct{}{},
		socks: sockets.NewRegistry(ctx), ctx: ctx, stop: stop}
	if svc.Notifier != nil {
		svc.Notifier.Listen(h.wake)
	}
	return h
}

// wake is the Notifier's listener: a session's topic wakes its
// subscriptions, fanout.TopicAll (wake-ups may have been lost) every
// subscription, which reads its session and the events after its last seq.
func (h *Hub) wake(topic string) {
	if staffID, ok := strings.CutPrefix(topic, staff.Topic("")); ok {
		h.recheckViewers(staffID)
		return
	}
	id, ok := strings.CutPrefix(topic, "cobrowse:")
	all := topic == fanout.TopicAll
	if !ok && !all {
		return
	}
	if all {
		h.recheckViewers("")
	}
	h.mu.Lock()
	var list []*sub
	for s := range h.subs[id] {
		list = append(list, s)
	}
	if all {
		for _, set := range h.subs {
			for s := range set {
				list = append(list, s)
			}
		}
	}
	h.mu.Unlock()
	for _, s := range list {
		s.Wake()
	}
}

// recheckViewers re-runs at once, each on a goroutine of its own, the
// session check of every viewer socket of staffID ("": every one): a
// sign-out or a disable committed (staff.Topic), or wake-ups may have been
// lost (fanout.TopicAll). The database says whether the session is gone
// (rows first): 4401 then, or 4403 for a brand no longer served.
func (h *Hub) recheckViewers(staffID string) {
	h.mu.Lock()
	var list []*sub
	for _, set := range h.subs {
		for s := range set {
			if s.viewer && s.recheck != nil && (staffID == "" || s.staffID == staffID) {
				list = append(list, s)
			}
		}
	}
	h.mu.Unlock()
	for _, s := range list {
		go s.recheck()
	}
}

func (h *Hub) subscribe(s *sub, on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.subs[s.id]
	if on {
		if set == nil {
			set = map[*sub]struct{}{}
			h.subs[s.id] = set
		}
		set[s] = struct{}{}
		return
	}
	delete(set, s)
	if len(set) == 0 {
		delete(h.subs, s.id)
	}
}

// Sockets is how many co-browse sockets are open on this instance.
func (h *Hub) Sockets() int { return h.socks.Len() }

// Registry is the hub's sockets (internal/app gives it their metrics).
func (h *Hub) Registry() *sockets.Registry { return h.socks }

// Shutdown closes every socket with 1012 and stops the poll.
func (h *Hub) Shutdown() {
	h.socks.Shutdown()
	h.stop()
}

// Run polls and sweeps until ctx is done, and closes silent sockets.
func (h *Hub) Run(ctx context.Context) error {
	return h.socks.Run(ctx, sockets.Every{Interval: h.PollInterval, Do: func(ctx context.Context) {
		if _, err := h.svc.Sweep(ctx); err != nil && ctx.Err() == nil {
			slog.Warn("cobrowse sweep", "err", err)
		}
		if err := h.Poll(ctx); err != nil && ctx.Err() == nil {
			slog.Warn("cobrowse poll", "err", err)
		}
	}})
}

// pollChunk is how many subscribed ids one poll query asks for.
const pollChunk = 500

// Poll wakes the subscriptions behind their session's row (what a lost
// notification left behind). It reads the sessions this instance
// subscribes to by id, so a change whose notification was lost is found
// however long ago it was committed, whatever the clocks of the instances.
func (h *Hub) Poll(ctx context.Context) error {
	h.mu.Lock()
	ids := make([]any, 0, len(h.subs))
	for id := range h.subs {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	for len(ids) > 0 {
		n := min(len(ids), pollChunk)
		if err := h.pollIDs(ctx, ids[:n]); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

func (h *Hub) pollIDs(ctx context.Context, ids []any) error {
	rows, err := h.svc.DB.Query(ctx, "SELECT id, last_seq, version FROM cobrowse_sessions WHERE id IN ("+
		strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")+")", ids...)
	if err != nil {
		return err
	}
	var wake []*sub
	h.mu.Lock()
	for rows.Next() {
		var id string
		var seq, version int64
		if err := rows.Scan(&id, &seq, &version); err != nil {
			break
		}
		for s := range h.subs[id] {
			if seq > s.lastSeq.Load() || version > s.version.Load() {
				wake = append(wake, s)
			}
		}
	}
	h.mu.Unlock()
	rows.Close()
	for _, s := range wake {
		s.Wake()
	}
	return rows.Err()
}

// socket is one WebSocket (visitor's or viewer's) and how many bad frames
// in a row it sent.
type socket struct {
	*sockets.Socket
	hub *Hub
	bad int
}

// clientFrame is any frame a client sends; data stays raw (opaque).
type clientFrame struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

type errorFrame struct {
	Type      string `json:"type"`
	ErrorCode string `json:"errorCode"`
}

// StateFrame is a session's status as both sides see it.
type StateFrame struct {
	Type      string `json:"type"`
	Status    string `json:"status"`
	AgentName string `json:"agentName,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// EventFrame is a stored frame as the other side receives it.
type EventFrame struct {
	Type string          `json:"type"`
	Seq  int64           `json:"seq"`
	Data json.RawMessage `json:"data"`
}

// readLoop reads frames until the socket closes or sends too many bad
// frames in a row (a refused frame answers an error frame; RATE_LIMITED
// ones do not count as bad).
func (s *socket) readLoop(handle func(clientFrame) error) {
	for {
		s.Heard()
		typ, data, err := s.Conn.Read(s.hub.ctx)
		if err != nil {
			return
		}
		var f clientFrame
		if typ != websocket.MessageText || json.Unmarshal(data, &f) != nil || f.Type == "" {
			if code, _ := errorCode(ErrBadFrame); s.badFrame(code) {
				return
			}
			continue
		}
		if err := handle(f); err != nil {
			code, ok := errorCode(err)
			if !ok {
				code = "TECHNICAL"
				slog.ErrorContext(s.LogCtx(), "cobrowse frame", "type", f.Type, "err", err)
			}
			if code == errRateLimited.Code {
				_ = s.Send(errorFrame{Type: "error", ErrorCode: code})
				continue
			}
			if s.badFrame(code) {
				return
			}
			continue
		}
		s.bad = 0
	}
}

func (s *socket) badFrame(code string) bool {
	s.bad++
	if s.bad >= maxBadFrames {
		_ = s.Conn.Close(websocket.StatusPolicyViolation, "too many bad frames")
		return true
	}
	_ = s.Send(errorFrame{Type: "error", ErrorCode: code})
	return false
}

// bucket is a token bucket on the service's clock: rate a second, burst
// twice as many.
type bucket struct {
	now    func() time.Time
	rate   float64
	tokens float64
	last   time.Time
}

func newBucket(now func() time.Time, rate int) *bucket {
	return &bucket{now: now, rate: float64(rate), tokens: float64(2 * rate), last: now()}
}

func (b *bucket) take() bool {
	t := b.now()
	b.tokens = min(2*b.rate, b.tokens+t.Sub(b.last).Seconds()*b.rate)
	b.last = t
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// admit checks a frame's data before it is stored: present, at most max
// bytes, and within the bucket's rate.
func (b *bucket) admit(data json.RawMessage, max int) error {
	if len(data) == 0 {
		return ErrBadFrame
	}
	if len(data) > max {
		return ErrTooLarge
	}
	if !b.take() {
		return ErrRateLimited
	}
	return nil
}

// sub delivers one session's rows to a socket: the state when the row's
// version moved, then the other side's events after the last seq, and to
// the visitor a snapshot request per viewer join.
type sub struct {
	sock    *socket
	id      string
	viewer  bool
	lastSeq atomic.Int64
	version atomic.Int64
	state   StateFrame
	sent    bool
	snaps   int64
	// staffID and recheck (a viewer's): whose socket, and its session's
	// check, which closes the socket when the session is gone.
	staffID string
	recheck func()
	sockets.Runner
}

func (s *sub) deliver() {
	svc := s.sock.hub.svc
	ctx := s.sock.hub.ctx
	sess, err := svc.Get(ctx, s.id)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			_ = s.sock.Conn.Close(CloseUnknown, "no session")
		}
		return
	}
	st := StateFrame{Type: "state", Status: sess.Status, AgentName: sess.AgentName, Reason: sess.EndReason}
	if sess.Status == StatusDeclined {
		st.Status = StatusEnded
	}
	if !s.sent || st != s.state {
		if s.sock.Send(st) != nil {
			return
		}
		s.state, s.sent = st, true
	}
	if st.Status == StatusEnded {
		s.version.Store(sess.Version)
		_ = s.sock.Conn.Close(websocket.StatusNormalClosure, "session ended")
		return
	}
	if !s.viewer && sess.SnapshotReq > s.snaps && sess.Status == StatusActive {
		if s.sock.Send(map[string]string{"type": "snapshot"}) != nil {
			return
		}
		s.snaps = sess.SnapshotReq
	}
	sender, typ := SenderVisitor, "event"
	if !s.viewer {
		sender, typ = SenderAgent, "pointer"
	}
	for {
		evs, err := svc.Events(ctx, s.id, sender, s.lastSeq.Load(), 200)
		if err != nil {
			return
		}
		for _, e := range evs {
			if s.sock.Send(EventFrame{Type: typ, Seq: e.Seq, Data: json.RawMessage(e.Data)}) != nil {
				return
			}
			s.lastSeq.Store(e.Seq)
		}
		if len(evs) < 200 {
			break
		}
	}
	if sess.LastSeq > s.lastSeq.Load() {
		s.lastSeq.Store(sess.LastSeq)
	}
	s.version.Store(sess.Version)
}

// serve runs a socket on a session: subscription, frames until it closes.
func (h *Hub) serve(sock *socket, sb *sub, handle func(clientFrame) error, onClose func()) {
	if !h.socks.Add(sock.Socket) {
		return
	}
	defer h.socks.Release(sock.Socket)
	sb.version.Store(-1)
	h.subscribe(sb, true)
	defer h.subscribe(sb, false)
	sb.Wake()
	sock.readLoop(handle)
	if onClose != nil {
		onClose()
	}
}

// serveVisitor runs the visitor's socket on session id.
func (h *Hub) serveVisitor(conn *websocket.Conn, sess Session, log context.Context) {
	svc := h.svc
	sock := &socket{Socket: h.socks.New(conn, sockets.KindCobrowseVisitor), hub: h}
	sock.Log = log
	sb := &sub{sock: sock, id: sess.ID}
	sb.Fn = sb.deliver
	// The visitor wants the agent's pointer from now on, not its past.
	sb.lastSeq.Store(sess.LastSeq)
	_ = svc.VisitorHere(h.ctx, sess.ID)
	events := newBucket(svc.now, EventRate)
	h.serve(sock, sb, func(f clientFrame) error {
		ctx := h.ctx
		switch f.Type {
		case "event":
			if err := events.admit(f.Data, MaxEventBytes); err != nil {
				return err
			}
			_, err := svc.AppendEvent(ctx, sess.ID, SenderVisitor, f.Data)
			return err
		case "ping":
			if err := svc.VisitorHere(ctx, sess.ID); err != nil {
				return err
			}
			return sock.Send(map[string]string{"type": "pong"})
		case "end":
			_, err := svc.End(ctx, Actor{}, sess.ID, ReasonVisitor)
			return err
		}
		return ErrBadFrame
	}, func() { _ = svc.VisitorLeft(context.WithoutCancel(h.ctx), sess.ID) })
}

// recheck re-runs a viewer's session check: 4401 when the session or the
// account is gone (or another staff member's), 4403 when the brand is no
// longer served, 0 to go on (a database error too: the next ping retries).
func recheck(ctx, log context.Context, check func(context.Context) (staff.Principal, error), staffID, brand string) websocket.StatusCode {
	if check == nil {
		return 0
	}
	p, err := check(ctx)
	switch {
	case errors.Is(err, staff.ErrNoSession), err == nil && p.ID != staffID:
		return CloseSignedOut
	case err != nil:
		slog.WarnContext(log, "cobrowse viewer session check", "err", err)
		return 0
	case !p.Serves(brand):
		return CloseForbidden
	}
	return 0
}

// serveViewer runs the agent's viewer socket on session id (after).
func (h *Hub) serveViewer(conn *websocket.Conn, sess Session, who Actor, after int64, check func(context.Context) (staff.Principal, error), log context.Context) {
	svc := h.svc
	sock := &socket{Socket: h.socks.New(conn, sockets.KindCobrowseViewer), hub: h}
	sock.Log = log
	sb := &sub{sock: sock, id: sess.ID, viewer: true, staffID: who.Staff.ID}
	sb.Fn = sb.deliver
	sb.lastSeq.Store(after)
	closeWith := func(code websocket.StatusCode) { _ = conn.Close(code, refusalReason[code]) }
	sb.recheck = func() {
		if code := recheck(h.ctx, log, check, who.Staff.ID, sess.Brand); code != 0 {
			closeWith(code)
		}
	}
	pointers := newBucket(svc.now, PointerRate)
	h.serve(sock, sb, func(f clientFrame) error {
		ctx := h.ctx
		switch f.Type {
		case "pointer":
			if err := pointers.admit(f.Data, MaxPointer); err != nil {
				return err
			}
			_, err := svc.AppendPointer(ctx, sess.ID, who.Staff, f.Data)
			if errors.Is(err, staff.ErrSignInRequired) {
				closeWith(CloseSignedOut)
				return nil
			}
			return err
		case "ping":
			if code := recheck(ctx, log, check, who.Staff.ID, sess.Brand); code != 0 {
				closeWith(code)
				return nil
			}
			return sock.Send(map[string]string{"type": "pong"})
		case "end":
			_, err := svc.End(ctx, who, sess.ID, ReasonAgent)
			return err
		}
		return ErrBadFrame
	}, nil)
}
