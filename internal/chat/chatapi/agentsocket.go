package chatapi

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

	"guichet/internal/audit"
	"guichet/internal/chat"
	"guichet/internal/chat/hub"
	"guichet/internal/sockets"
	"guichet/internal/staff"
)

// agentSocket is an agent's console socket: the queue, and the
// conversations subscribed to.
type agentSocket struct {
	sockets.Runner
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
	mine  map[string]chat.PollRow
	lastQ *chat.Queue
}

// Wake asks for a queue read from the database (a change of status or
// agent, of a waiting or offline conversation, a catch-up).
func (a *agentSocket) Wake() {
	a.mu.Lock()
	a.full = true
	a.mu.Unlock()
	a.Runner.Wake()
}

// Patch hands the socket its own active conversations' new seq and reads
// (the poll's holder-only changes): the Mine list is updated without a
// read, so 250 messages a second do not cost every agent a queue read per
// poll (docs/benchmarks.md, chat latency).
func (a *agentSocket) Patch(rows []chat.PollRow) {
	a.mu.Lock()
	if a.mine == nil {
		a.mine = map[string]chat.PollRow{}
	}
	for _, r := range rows {
		if old, ok := a.mine[r.ID]; ok {
			r.LastSeq, r.AgentReadSeq = max(r.LastSeq, old.LastSeq), max(r.AgentReadSeq, old.AgentReadSeq)
		}
		a.mine[r.ID] = r
	}
	a.mu.Unlock()
	a.Runner.Wake()
}

// patchMine applies the rows of the agent's own conversations to a copy
// of q; ok is false when one of them is not in q.Mine (read the queue
// again). A row older than what q holds changes nothing.
func patchMine(q chat.Queue, rows map[string]chat.PollRow) (chat.Queue, bool) {
	mine := slices.Clone(q.Mine)
	for _, r := range rows {
		i := slices.IndexFunc(mine, func(it chat.Item) bool { return it.ID == r.ID })
		if i < 0 {
			return q, false
		}
		it := &mine[i]
		read := it.LastSeq - it.Unread
		seq := max(it.LastSeq, r.LastSeq)
		it.LastSeq, it.Unread = seq, max(seq-max(read, r.AgentReadSeq), 0)
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
	// Audit records a subscribe (audit.ChatTranscriptView) with its outcome.
	Audit func(p staff.Principal, event audit.Name, outcome, detail string)
}

func (a *agentSocket) principal() staff.Principal {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.p
}

// StaffID is the agent's staff id (the hub's re-checks and patches).
func (a *agentSocket) StaffID() string { return a.principal().ID }

// Recheck re-checks the staff session now (a sign-out or a disable
// committed, or wake-ups may have been lost).
func (a *agentSocket) Recheck() { a.recheck(true, false, false) }

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
	svc := a.sock.svc
	now := svc.Clock()
	a.mu.Lock()
	active = active && now.Sub(a.activeAt) >= recheckEvery
	due := force || active || now.Sub(a.checkedAt) >= recheckEvery
	p := a.p
	a.mu.Unlock()
	if !due {
		return true
	}
	ctx := a.sock.hub.Context()
	err := svc.StaffActive(ctx, p.ID)
	if err == nil && a.opts.Check != nil {
		var fresh staff.Principal
		if fresh, err = a.opts.Check(ctx, active); err == nil && fresh.ID != p.ID {
			err = chat.ErrSignedOut
		}
		if err == nil {
			p = fresh
		}
	}
	if errors.Is(err, chat.ErrSignedOut) || errors.Is(err, staff.ErrNoSession) {
		if tick {
			go a.signedOut()
		} else {
			a.signedOut()
		}
		return false
	}
	if err != nil {
		// The database's trouble: try again on the next ping or tick.
		slog.WarnContext(a.sock.LogCtx(), "chat agent session check", "err", err)
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
		a.sock.hub.Release(id, cur)
	}
	a.mu.Unlock()
}

// Behind: a queue is woken by every change it hears of.
func (a *agentSocket) Behind(int64, int64) bool { return true }

func (a *agentSocket) deliverQueue() {
	svc := a.sock.svc
	ctx := a.sock.hub.Context()
	a.mu.Lock()
	p, full, rows := a.p, a.full || a.lastQ == nil, a.mine
	a.full, a.mine = false, nil
	a.mu.Unlock()
	var q chat.Queue
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
		chat.Queue
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
		chat.Figures
	}{"figures", f})
	if string(fb) != string(a.lastFigures) && a.sock.Send(json.RawMessage(fb)) == nil {
		a.lastFigures = fb
	}
}

// serveAgent runs an agent's socket.
func serveAgent(h *hub.Hub, svc *chat.Service, conn *websocket.Conn, p staff.Principal, opts AgentSocketOptions, log context.Context) {
	sock := &socket{Socket: h.Registry().New(conn, sockets.KindChatAgent), hub: h, svc: svc}
	sock.Log = log
	a := &agentSocket{sock: sock, p: p, opts: opts, checkedAt: svc.Clock(), activeAt: svc.Clock(), subs: map[string]*convSub{},
		typing: map[string]*typingGate{}}
	sock.OnTick = func() { a.recheck(false, false, true) }
	if !h.Registry().Add(sock.Socket) {
		return
	}
	defer h.Registry().Release(sock.Socket)
	a.Fn = a.deliverQueue
	h.WatchQueue(a, true)
	defer h.WatchQueue(a, false)
	defer func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		for id, sub := range a.subs {
			h.Release(id, sub)
		}
		for _, g := range a.typing {
			g.stop()
		}
	}()
	_ = svc.Heartbeat(h.Context(), p.ID)
	a.beatAt = svc.Clock()
	a.Wake()
	sock.readLoop(func(f clientFrame) error {
		err := a.frame(f)
		if errors.Is(err, chat.ErrSignedOut) {
			// The statement that would have stored the frame found the
			// session or the account gone (staff.Principal.LiveSQL).
			_ = sock.Send(errorFrame{Type: "error", ErrorCode: errSignedOut.Code, ClientID: f.ClientID, ConversationID: f.ConversationID})
			a.signedOut()
			return nil
		}
		return err
	})
}

// frame handles one frame of an agent's socket.
func (a *agentSocket) frame(f clientFrame) error {
	sock, h, opts := a.sock, a.sock.hub, a.opts
	svc := sock.svc
	if !a.recheck(f.Type == "ping", f.Type != "ping", false) {
		return nil // closed with 4401: the next read ends the loop
	}
	p := a.principal()
	ctx := h.Context()
	if err := chat.CheckID("conversationId", f.ConversationID); err != nil {
		return err
	}
	if err := chat.CheckID("clientId", f.ClientID); err != nil {
		return err
	}
	switch f.Type {
	case "subscribe":
		c, err := svc.Get(ctx, f.ConversationID)
		if err == nil {
			err = chat.CanRead(p, c)
		}
		if opts.Audit != nil {
			outcome := "ok"
			if code, ok := errorCode(err); ok {
				outcome = code
			} else if err != nil {
				outcome = "error"
			}
			opts.Audit(p, audit.ChatTranscriptView, outcome, f.ConversationID)
		}
		if err != nil {
			return err
		}
		sub := newConvSub(sock, c.ID, max(f.After, 0), true)
		sub.access = func(c chat.Conversation) error { return chat.CanRead(a.principal(), c) }
		sub.revoked = func(err error) {
			a.unsubscribe(c.ID, sub)
			code := "NOT_HOLDER"
			if c, ok := errorCode(err); ok {
				code = c
			}
			_ = sock.Send(errorFrame{Type: "error", ErrorCode: code, ConversationID: c.ID})
		}
		a.mu.Lock()
		if old := a.subs[c.ID]; old != nil {
			h.Release(c.ID, old)
		}
		a.subs[c.ID] = sub
		a.mu.Unlock()
		h.Subscribe(c.ID, sub)
		sub.Wake()
		return nil
	case "message":
		if f.ClientID == "" || f.ConversationID == "" {
			return errBadFrame
		}
		_, err := svc.AgentSend(ctx, p, f.ConversationID, f.ClientID, f.Body)
		return err
	case "typing":
		c, err := heldBy(ctx, svc, p, f.ConversationID)
		if err != nil {
			return err
		}
		a.mu.Lock()
		g := a.typing[c.ID]
		if g == nil {
			g = newTypingGate(svc, c.ID, true, a.sock.LogCtx())
			a.typing[c.ID] = g
		}
		a.mu.Unlock()
		g.set(f.On)
		return nil
	case "read":
		c, err := heldBy(ctx, svc, p, f.ConversationID)
		if err != nil {
			return err
		}
		if err := svc.MarkRead(ctx, c.ID, true, f.Seq); err != nil {
			return err
		}
		// This socket's list at once, without a read (the poll does the
		// agent's other sockets). A read past the last message counts
		// as far as the last message: MarkRead refuses it.
		a.Patch([]chat.PollRow{{ID: c.ID, Status: c.Status, AgentID: c.AgentID, LastSeq: c.LastSeq, AgentReadSeq: min(max(f.Seq, 0), c.LastSeq)}})
		return nil
	case "ping":
		if now := svc.Clock(); now.Sub(a.beatAt) >= agentBeatEvery {
			if err := svc.Heartbeat(ctx, p.ID); err != nil {
				return err
			}
			a.beatAt = now
		}
		return sock.Send(map[string]string{"type": "pong"})
	}
	return errBadFrame
}

// heldBy is conversation id when p holds it, else chat.ErrNotHolder.
func heldBy(ctx context.Context, svc *chat.Service, p staff.Principal, id string) (chat.Conversation, error) {
	c, err := svc.Get(ctx, id)
	if err != nil {
		return c, err
	}
	if c.AgentID != p.ID {
		return c, chat.ErrNotHolder
	}
	return c, nil
}
