package chat

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/api"
	"guichet/internal/chat/bot"
	"guichet/internal/fanout"
	"guichet/internal/staff"
)

// Frames of both sockets (chat.md "Visitor WebSocket", "Agent side").

// MessageFrame is one stored message as the sockets send it.
type MessageFrame struct {
	Type           string      `json:"type"`
	ConversationID string      `json:"conversationId,omitempty"`
	Seq            int64       `json:"seq"`
	Sender         string      `json:"sender"`
	Body           string      `json:"body"`
	At             string      `json:"at"`
	ClientID       string      `json:"clientId,omitempty"`
	AgentName      string      `json:"agentName,omitempty"`
	Reply          *bot.Reply  `json:"reply,omitempty"`
	System         *SystemNote `json:"system,omitempty"`
}

// SystemNote is a system message: an i18n key and the name it names.
type SystemNote struct {
	Key  string `json:"key"`
	Name string `json:"name,omitempty"`
}

// StateFrame is a conversation's status as the visitor sees it.
type StateFrame struct {
	Type           string  `json:"type"`
	ConversationID string  `json:"conversationId,omitempty"`
	Status         string  `json:"status"`
	QueuePosition  *int    `json:"queuePosition"`
	AgentName      *string `json:"agentName"`
}

type typingFrame struct {
	Type           string `json:"type"`
	ConversationID string `json:"conversationId,omitempty"`
	On             bool   `json:"on"`
}

type readFrame struct {
	Type           string `json:"type"`
	ConversationID string `json:"conversationId,omitempty"`
	Seq            int64  `json:"seq"`
}

type errorFrame struct {
	Type           string `json:"type"`
	ErrorCode      string `json:"errorCode"`
	ClientID       string `json:"clientId,omitempty"`
	ConversationID string `json:"conversationId,omitempty"`
}

// clientFrame is any frame a client sends.
type clientFrame struct {
	Type           string `json:"type"`
	ClientID       string `json:"clientId"`
	Body           string `json:"body"`
	On             bool   `json:"on"`
	Seq            int64  `json:"seq"`
	ConversationID string `json:"conversationId"`
	After          int64  `json:"after"`
}

// Frame of a stored message.
func Frame(m Message, convID string) MessageFrame {
	f := MessageFrame{Type: "message", ConversationID: convID, Seq: m.Seq, Sender: m.Sender, Body: m.Body,
		At: rfc3339(m.At), ClientID: m.ClientID, AgentName: m.AgentName, Reply: m.Reply}
	if m.Sender == SenderSystem {
		f.Body = ""
		f.System = &SystemNote{Key: m.SystemKey, Name: m.SystemName}
	}
	return f
}

// Socket limits and close codes (the timing is fanout's: IdleTimeout,
// WriteTimeout).
const (
	// maxBadFrames in a row close the socket with 1008.
	maxBadFrames = 5
	// CloseUnknown: the conversation is unknown or ended; do not reconnect.
	CloseUnknown websocket.StatusCode = 4404
	// CloseSignedOut: the agent's staff session ended (signed out, expired,
	// idle, account disabled); sign in again before reconnecting.
	CloseSignedOut websocket.StatusCode = 4401
	// recheckEvery is how often at most an agent socket goes without
	// re-checking its staff session (also on each ping).
	recheckEvery = 60 * time.Second
	// typingEvery: a socket writes its side's typing state at most once
	// per this (the last state wins).
	typingEvery = time.Second
	// agentBeatEvery: an agent socket's pings write the heartbeat at most
	// once per this.
	agentBeatEvery = 15 * time.Second
	// visitorSeenEvery: the visitor's heartbeat is written at most once per
	// this.
	visitorSeenEvery = 30 * time.Second
)

// socket is one WebSocket of the hub (its writes serialised by the
// library) and how many bad frames in a row it sent.
type socket struct {
	*fanout.Socket
	hub *Hub
	bad int
}

// readLoop reads frames until the socket closes, idles too long or sends
// too many bad frames in a row.
func (s *socket) readLoop(handle func(clientFrame) error) {
	for {
		s.Heard()
		typ, data, err := s.Conn.Read(s.hub.ctx)
		if err != nil {
			if s.hub.ctx.Err() == nil {
				_ = s.Conn.Close(websocket.StatusNormalClosure, "")
			}
			return
		}
		var f clientFrame
		if typ != websocket.MessageText || json.Unmarshal(data, &f) != nil || f.Type == "" {
			if s.badFrame("", "INVALID_FRAME", "") {
				return
			}
			continue
		}
		if err := handle(f); err != nil {
			code := "INVALID_FRAME"
			var apiErr *api.Error
			if errors.As(err, &apiErr) {
				code = apiErr.Code
			} else {
				slog.Error("chat frame", "type", f.Type, "err", err)
				code = "TECHNICAL"
			}
			if s.badFrame(f.ClientID, code, f.ConversationID) {
				return
			}
			continue
		}
		s.bad = 0
	}
}

// badFrame answers an error frame; true when the socket was closed for
// sending too many in a row.
func (s *socket) badFrame(clientID, code, convID string) bool {
	s.bad++
	if s.bad >= maxBadFrames {
		_ = s.Conn.Close(websocket.StatusPolicyViolation, "too many bad frames")
		return true
	}
	_ = s.Send(errorFrame{Type: "error", ErrorCode: code, ClientID: clientID, ConversationID: convID})
	return false
}

var errBadFrame = api.NewError(400, "INVALID_FRAME", "chat.error.invalidFrame")

// convSub delivers one conversation's rows to a socket: state, typing and
// read receipts when the row's version moved, then every message after
// the last seq delivered, in order.
type convSub struct {
	fanout.Runner
	sock    *socket
	convID  string
	agent   bool // the agent's side: visitor typing and reads, conversationId on frames
	lastSeq atomic.Int64
	version atomic.Int64
	// closed: released by its socket (set under the hub's mu); a delivery
	// running then stops and adds nothing back.
	closed atomic.Bool
	// access is the agent's right to read the conversation as it is now
	// (canRead), checked on every delivery: a conversation accepted by or
	// transferred to someone else stops streaming. revoked is then called
	// once (nil for the visitor's side).
	access  func(Conversation) error
	revoked func(error)
	// failures in a row of the database reads (the retry's backoff).
	failures int
	// What was sent last (deliver runs one at a time).
	state   StateFrame
	sentAny bool
	typing  bool
	read    int64
	// ended is called once the conversation has ended and every message
	// went out (the visitor's socket closes).
	ended func()
}

func newConvSub(sock *socket, convID string, after int64, agent bool) *convSub {
	c := &convSub{sock: sock, convID: convID, agent: agent}
	c.lastSeq.Store(after)
	c.version.Store(-1)
	c.Fn = c.deliver
	return c
}

func (c *convSub) behind(seq, version int64) bool {
	return seq > c.lastSeq.Load() || version > c.version.Load()
}

func (c *convSub) tag() string {
	if c.agent {
		return c.convID
	}
	return ""
}

// retry wakes the subscription again after a failed read, with backoff
// (0.25 s doubling to 30 s), so a database blip delays a delivery but
// never drops it.
func (c *convSub) retry() {
	if c.closed.Load() || c.sock.hub.ctx.Err() != nil {
		return
	}
	c.failures++
	time.AfterFunc(min(250*time.Millisecond<<min(c.failures-1, 7), 30*time.Second), c.Wake)
}

// deliverBatch is how many messages one read of a delivery brings.
const deliverBatch = 200

func (c *convSub) deliver() {
	if c.closed.Load() {
		return
	}
	svc := c.sock.hub.svc
	ctx := c.sock.hub.ctx
	conv, msgs, err := getWithMessages(ctx, svc.DB, c.convID, c.lastSeq.Load(), deliverBatch)
	if err != nil {
		if errors.Is(err, ErrNotFound) && !c.agent {
			_ = c.sock.Conn.Close(CloseUnknown, "conversation unknown")
		} else if !errors.Is(err, ErrNotFound) {
			c.retry()
		}
		return
	}
	if c.access != nil {
		if err := c.access(conv); err != nil {
			c.closed.Store(true)
			c.revoked(err)
			return
		}
	}
	state := StateFrame{Type: "state", ConversationID: c.tag(), Status: conv.Status}
	if conv.Status == StatusWaiting && conv.Kind == KindLive {
		pos, err := svc.queuePosition(ctx, conv)
		if err != nil {
			c.retry()
			return
		}
		state.QueuePosition = &pos
	}
	if conv.Status == StatusActive {
		name := conv.AgentName
		state.AgentName = &name
	}
	if !c.agent {
		c.sock.hub.watchQueue(c, conv.Status == StatusWaiting)
	}
	if !c.sentAny || !sameState(state, c.state) {
		if c.send(state) != nil {
			return
		}
		c.state, c.sentAny = state, true
	}
	typing, read := conv.AgentTyping, conv.AgentReadSeq
	if c.agent {
		typing, read = conv.VisitorTyping, conv.VisitorReadSeq
	}
	if typing != c.typing {
		if c.send(typingFrame{Type: "typing", ConversationID: c.tag(), On: typing}) != nil {
			return
		}
		c.typing = typing
	}
	if read > c.read {
		if c.send(readFrame{Type: "read", ConversationID: c.tag(), Seq: read}) != nil {
			return
		}
		c.read = read
	}
	for {
		for _, m := range msgs {
			if c.send(Frame(m, c.tag())) != nil {
				return
			}
			c.lastSeq.Store(m.Seq)
		}
		if len(msgs) < deliverBatch || c.lastSeq.Load() >= conv.LastSeq {
			break
		}
		if msgs, err = svc.Messages(ctx, c.convID, c.lastSeq.Load(), deliverBatch); err != nil {
			c.retry()
			return
		}
	}
	c.failures = 0
	c.version.Store(conv.Version)
	if conv.Status == StatusEnded && c.ended != nil {
		c.ended()
	}
}

func (c *convSub) send(v any) error { return c.sock.Send(v) }

func sameState(a, b StateFrame) bool {
	eqInt := a.QueuePosition == nil && b.QueuePosition == nil ||
		a.QueuePosition != nil && b.QueuePosition != nil && *a.QueuePosition == *b.QueuePosition
	eqStr := a.AgentName == nil && b.AgentName == nil || a.AgentName != nil && b.AgentName != nil && *a.AgentName == *b.AgentName
	return a.Status == b.Status && eqInt && eqStr
}

// queuePosition is 1 + the live conversations of the same brand and
// language waiting longer.
func (s *Service) queuePosition(ctx context.Context, c Conversation) (int, error) {
	var n int
	err := s.DB.QueryRow(ctx, `SELECT COUNT(*) FROM chat_conversations WHERE status = 'waiting' AND kind = 'live'
		AND brand = ? AND language = ? AND (waiting_since < ? OR waiting_since = ? AND id < ?)`,
		c.Brand, c.Language, c.WaitingSince, c.WaitingSince, c.ID).Scan(&n)
	return n + 1, err
}

// typingGate writes one side's typing state of a conversation at most
// once per typingEvery: a change within it is kept and written when the
// interval ends (the last state wins), so a flood of typing frames is one
// write and one wake per second. The database writes only a change.
type typingGate struct {
	mu    sync.Mutex
	now   func() time.Time
	write func(on bool)
	last  time.Time
	want  bool
	timer *time.Timer
	done  bool
}

func (g *typingGate) set(on bool) {
	g.mu.Lock()
	g.want = on
	if g.timer != nil || g.done {
		g.mu.Unlock()
		return
	}
	if wait := typingEvery - g.now().Sub(g.last); !g.last.IsZero() && wait > 0 {
		g.timer = time.AfterFunc(wait, g.flush)
		g.mu.Unlock()
		return
	}
	g.last = g.now()
	g.mu.Unlock()
	g.write(on)
}

func (g *typingGate) flush() {
	g.mu.Lock()
	g.timer = nil
	if g.done {
		g.mu.Unlock()
		return
	}
	on := g.want
	g.last = g.now()
	g.mu.Unlock()
	g.write(on)
}

// stop drops a pending write (the socket closed).
func (g *typingGate) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.done = true
	if g.timer != nil {
		g.timer.Stop()
		g.timer = nil
	}
}

func (s *Service) typingGate(id string, agent bool) *typingGate {
	return &typingGate{now: s.now, write: func(on bool) {
		if err := s.Typing(context.Background(), id, agent, on); err != nil {
			slog.Warn("chat typing", "err", err)
		}
	}}
}

// serveVisitor runs a visitor's socket: state, the messages after `after`,
// then live ones; frames from the visitor until it closes. A conversation
// that ended while the visitor was away is replayed, then closed with 1000.
func (h *Hub) serveVisitor(conn *websocket.Conn, convID string, after int64, release func()) {
	defer release()
	sock := &socket{Socket: h.socks.New(conn), hub: h}
	if !h.socks.Add(sock.Socket) {
		return
	}
	defer h.socks.Release(sock.Socket)
	sub := newConvSub(sock, convID, after, false)
	var endOnce sync.Once
	sub.ended = func() {
		endOnce.Do(func() { _ = conn.Close(websocket.StatusNormalClosure, "conversation ended") })
	}
	h.subscribe(convID, sub)
	defer h.release(convID, sub)
	svc := h.svc
	typing := svc.typingGate(convID, false)
	defer typing.stop()
	// The connect's heartbeat write runs apart: database calls on this
	// long-lived goroutine would grow its stack for good (an idle socket
	// then holds 8 KB of stack instead of 4; make bench's chat lines).
	go func() { _ = svc.VisitorSeen(h.ctx, convID) }()
	sub.Wake()
	sock.readLoop(func(f clientFrame) error {
		ctx := h.ctx
		switch f.Type {
		case "message":
			if f.ClientID == "" {
				return errBadFrame
			}
			if err := cleanID("clientId", f.ClientID, maxID); err != nil {
				return err
			}
			_, err := svc.VisitorSend(ctx, convID, f.ClientID, f.Body)
			return err
		case "typing":
			typing.set(f.On)
			return nil
		case "read":
			return svc.MarkRead(ctx, convID, false, f.Seq)
		case "ping":
			if err := svc.VisitorSeen(ctx, convID); err != nil {
				return err
			}
			return sock.Send(map[string]string{"type": "pong"})
		}
		return errBadFrame
	})
}

// agentSocket is an agent's console socket: the queue, and the
// conversations subscribed to.
type agentSocket struct {
	fanout.Runner
	sock        *socket
	opts        AgentSocketOptions
	mu          sync.Mutex
	p           staff.Principal
	checkedAt   time.Time // the staff session's last check
	activeAt    time.Time // the last activity recorded on the session
	beatAt      time.Time // the heartbeat's last write
	subs        map[string]*convSub
	typing      map[string]*typingGate
	last        []byte // the last queue snapshot sent
	lastFigures []byte
	ended       atomic.Bool
	// full asks the next deliverQueue for a queue read from the database;
	// otherwise it applies mine (the poll's rows of this agent's own
	// conversations: their seq and reads) to lastQ, the last snapshot
	// read (both under mu; lastQ only in deliverQueue's goroutine).
	full  bool
	mine  map[string]pollRow
	lastQ *Queue
}

// Wake asks for a queue read from the database (a change of status or
// agent, of a waiting or offline conversation, a catch-up).
func (a *agentSocket) Wake() {
	a.mu.Lock()
	a.full = true
	a.mu.Unlock()
	a.Runner.Wake()
}

// patch hands the socket its own active conversations' new seq and reads
// (the poll's holder-only changes): the Mine list is updated without a
// read, so 250 messages a second do not cost every agent a queue read per
// poll (docs/benchmarks.md, chat latency).
func (a *agentSocket) patch(rows []pollRow) {
	a.mu.Lock()
	if a.mine == nil {
		a.mine = map[string]pollRow{}
	}
	for _, r := range rows {
		if old, ok := a.mine[r.id]; ok {
			r.seq, r.read = max(r.seq, old.seq), max(r.read, old.read)
		}
		a.mine[r.id] = r
	}
	a.mu.Unlock()
	a.Runner.Wake()
}

// patchMine applies the rows of the agent's own conversations to a copy
// of q; ok is false when one of them is not in q.Mine (read the queue
// again). A row older than what q holds changes nothing.
func patchMine(q Queue, rows map[string]pollRow) (Queue, bool) {
	mine := slices.Clone(q.Mine)
	for _, r := range rows {
		i := slices.IndexFunc(mine, func(it Item) bool { return it.ID == r.id })
		if i < 0 {
			return q, false
		}
		it := &mine[i]
		read := it.LastSeq - it.Unread
		seq := max(it.LastSeq, r.seq)
		it.LastSeq, it.Unread = seq, max(seq-max(read, r.read), 0)
	}
	q.Mine = mine
	return q, true
}

// AgentSocketOptions are what the console's handler gives an agent socket.
type AgentSocketOptions struct {
	// Check re-reads the staff session of the upgrade (nil: only the
	// account is checked): an error closes the socket with 4401. active
	// tells that the staff member did something (a message, typing, a
	// read, a subscribe), which keeps the session alive like a request;
	// a ping or the timer's check does not.
	Check func(ctx context.Context, active bool) (staff.Principal, error)
	// Audit records a subscribe (EventView) with its outcome.
	Audit func(p staff.Principal, event, outcome, detail string)
}

func (a *agentSocket) principal() staff.Principal {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.p
}

// recheck re-reads the staff member's session and account when force or
// the last check is recheckEvery old (active: the staff member acted, and
// the session's activity is recorded, also at most once per
// recheckEvery); a session or account gone closes the socket with 4401
// (false). On a tick (the reaper waits for its ticks) the close handshake
// runs on a goroutine of its own, so one closing socket never holds the
// reap of the others.
func (a *agentSocket) recheck(force, active, tick bool) bool {
	if a.ended.Load() {
		return false
	}
	svc := a.sock.hub.svc
	now := svc.now()
	a.mu.Lock()
	active = active && now.Sub(a.activeAt) >= recheckEvery
	due := force || active || now.Sub(a.checkedAt) >= recheckEvery
	p := a.p
	a.mu.Unlock()
	if !due {
		return true
	}
	ctx := a.sock.hub.ctx
	err := svc.staffActive(ctx, p.ID)
	if err == nil && a.opts.Check != nil {
		var fresh staff.Principal
		if fresh, err = a.opts.Check(ctx, active); err == nil && fresh.ID != p.ID {
			err = ErrSignedOut
		}
		if err == nil {
			p = fresh
		}
	}
	if errors.Is(err, ErrSignedOut) || errors.Is(err, staff.ErrNoSession) {
		if tick {
			go a.signedOut()
		} else {
			a.signedOut()
		}
		return false
	}
	if err != nil {
		// The database's trouble: try again on the next ping or tick.
		slog.Warn("chat agent session check", "err", err)
		return true
	}
	a.mu.Lock()
	a.p, a.checkedAt = p, now
	if active {
		a.activeAt = now
	}
	a.mu.Unlock()
	return true
}

// signedOut closes the socket with 4401 (once): its staff session or
// account is gone, as the database said.
func (a *agentSocket) signedOut() {
	if a.ended.CompareAndSwap(false, true) {
		_ = a.sock.Conn.Close(CloseSignedOut, "signed out")
	}
}

// unsubscribe drops a conversation's subscription (sub: only that one).
func (a *agentSocket) unsubscribe(id string, sub *convSub) {
	a.mu.Lock()
	if cur := a.subs[id]; cur != nil && (sub == nil || cur == sub) {
		delete(a.subs, id)
		a.sock.hub.release(id, cur)
	}
	a.mu.Unlock()
}

func (a *agentSocket) behind(int64, int64) bool { return true }

func (a *agentSocket) deliverQueue() {
	svc := a.sock.hub.svc
	ctx := a.sock.hub.ctx
	a.mu.Lock()
	p, full, rows := a.p, a.full || a.lastQ == nil, a.mine
	a.full, a.mine = false, nil
	a.mu.Unlock()
	var q Queue
	if !full {
		var ok bool
		if q, ok = patchMine(*a.lastQ, rows); !ok {
			full = true
		}
	}
	if full {
		var err error
		if q, err = svc.Queue(ctx, p); err != nil {
			a.mu.Lock()
			a.full = true // the next wake reads again
			a.mu.Unlock()
			return
		}
	}
	a.lastQ = &q
	b, _ := json.Marshal(struct {
		Type string `json:"type"`
		Queue
	}{"queue", q})
	if string(b) != string(a.last) {
		if a.sock.Send(json.RawMessage(b)) != nil {
			return
		}
		a.last = b
	}
	if !full || !p.Role.AtLeast(staff.RoleSupervisor) {
		return // seq and reads are none of the figures' business
	}
	f, err := svc.Figures(ctx, p)
	if err != nil {
		return
	}
	fb, _ := json.Marshal(struct {
		Type string `json:"type"`
		Figures
	}{"figures", f})
	if string(fb) != string(a.lastFigures) && a.sock.Send(json.RawMessage(fb)) == nil {
		a.lastFigures = fb
	}
}

// serveAgent runs an agent's socket.
func (h *Hub) serveAgent(conn *websocket.Conn, p staff.Principal, opts AgentSocketOptions) {
	sock := &socket{Socket: h.socks.New(conn), hub: h}
	a := &agentSocket{sock: sock, p: p, opts: opts, checkedAt: h.svc.now(), activeAt: h.svc.now(), subs: map[string]*convSub{},
		typing: map[string]*typingGate{}}
	sock.OnTick = func() { a.recheck(false, false, true) }
	if !h.socks.Add(sock.Socket) {
		return
	}
	defer h.socks.Release(sock.Socket)
	a.Fn = a.deliverQueue
	h.watchQueue(a, true)
	defer h.watchQueue(a, false)
	defer func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		for id, sub := range a.subs {
			h.release(id, sub)
		}
		for _, g := range a.typing {
			g.stop()
		}
	}()
	svc := h.svc
	_ = svc.Heartbeat(h.ctx, p.ID)
	a.beatAt = svc.now()
	a.Wake()
	sock.readLoop(func(f clientFrame) error {
		err := a.frame(f)
		if errors.Is(err, ErrSignedOut) {
			// The statement that would have stored the frame found the
			// session or the account gone (staff.Principal.LiveSQL).
			_ = sock.Send(errorFrame{Type: "error", ErrorCode: ErrSignedOut.Code, ClientID: f.ClientID, ConversationID: f.ConversationID})
			a.signedOut()
			return nil
		}
		return err
	})
}

// frame handles one frame of an agent's socket.
func (a *agentSocket) frame(f clientFrame) error {
	sock, h, opts := a.sock, a.sock.hub, a.opts
	svc := h.svc
	if !a.recheck(f.Type == "ping", f.Type != "ping", false) {
		return nil // closed with 4401: the next read ends the loop
	}
	p := a.principal()
	ctx := h.ctx
	if err := cleanID("conversationId", f.ConversationID, maxID); err != nil {
		return err
	}
	if err := cleanID("clientId", f.ClientID, maxID); err != nil {
		return err
	}
	switch f.Type {
	case "subscribe":
		c, err := svc.Get(ctx, f.ConversationID)
		if err == nil {
			err = canRead(p, c)
		}
		if opts.Audit != nil {
			outcome := "ok"
			var apiErr *api.Error
			if errors.As(err, &apiErr) {
				outcome = apiErr.Code
			} else if err != nil {
				outcome = "error"
			}
			opts.Audit(p, EventView, outcome, f.ConversationID)
		}
		if err != nil {
			return err
		}
		sub := newConvSub(sock, c.ID, max(f.After, 0), true)
		sub.access = func(c Conversation) error { return canRead(a.principal(), c) }
		sub.revoked = func(err error) {
			a.unsubscribe(c.ID, sub)
			code := "NOT_HOLDER"
			var apiErr *api.Error
			if errors.As(err, &apiErr) {
				code = apiErr.Code
			}
			_ = sock.Send(errorFrame{Type: "error", ErrorCode: code, ConversationID: c.ID})
		}
		a.mu.Lock()
		if old := a.subs[c.ID]; old != nil {
			h.release(c.ID, old)
		}
		a.subs[c.ID] = sub
		a.mu.Unlock()
		h.subscribe(c.ID, sub)
		sub.Wake()
		return nil
	case "message":
		if f.ClientID == "" || f.ConversationID == "" {
			return errBadFrame
		}
		_, err := svc.AgentSend(ctx, p, f.ConversationID, f.ClientID, f.Body)
		return err
	case "typing":
		c, err := svc.Get(ctx, f.ConversationID)
		if err != nil {
			return err
		}
		if c.AgentID != p.ID {
			return ErrNotHolder
		}
		a.mu.Lock()
		g := a.typing[c.ID]
		if g == nil {
			g = svc.typingGate(c.ID, true)
			a.typing[c.ID] = g
		}
		a.mu.Unlock()
		g.set(f.On)
		return nil
	case "read":
		c, err := svc.Get(ctx, f.ConversationID)
		if err != nil {
			return err
		}
		if c.AgentID != p.ID {
			return ErrNotHolder
		}
		if err := svc.MarkRead(ctx, c.ID, true, f.Seq); err != nil {
			return err
		}
		// This socket's list at once, without a read (the poll does the
		// agent's other sockets). A read past the last message counts
		// as far as the last message: MarkRead refuses it.
		a.patch([]pollRow{{id: c.ID, status: c.Status, agent: c.AgentID, seq: c.LastSeq, read: min(max(f.Seq, 0), c.LastSeq)}})
		return nil
	case "ping":
		if now := svc.now(); now.Sub(a.beatAt) >= agentBeatEvery {
			if err := svc.Heartbeat(ctx, p.ID); err != nil {
				return err
			}
			a.beatAt = now
		}
		return sock.Send(map[string]string{"type": "pong"})
	}
	return errBadFrame
}

// canRead is the one rule for reading a conversation, for GET
// conversations/{id} and the socket's subscribe alike: a staff member of
// its brand (FORBIDDEN_BRAND otherwise) who holds it, or is a supervisor
// or above, or any agent of the brand while it waits for one (a live
// conversation in the queue) or is an offline message; NOT_HOLDER
// otherwise (another agent's, the bot's, or one ended by someone else).
func canRead(p staff.Principal, c Conversation) error {
	if !p.Serves(c.Brand) {
		return ErrForbiddenBrand
	}
	if c.AgentID == p.ID || p.Role.AtLeast(staff.RoleSupervisor) || c.Kind == KindOffline || c.Status == StatusWaiting {
		return nil
	}
	return ErrNotHolder
}
