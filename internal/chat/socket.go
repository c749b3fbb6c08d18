package chat

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/api"
	"guichet/internal/chat/bot"
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

// Socket timing.
const (
	// idleTimeout closes a socket that sent nothing (not even its 20 s
	// ping) for this long: a dead client.
	idleTimeout  = 75 * time.Second
	writeTimeout = 10 * time.Second
	// maxBadFrames in a row close the socket with 1008.
	maxBadFrames = 5
	// CloseUnknown: the conversation is unknown or ended; do not reconnect.
	CloseUnknown websocket.StatusCode = 4404
)

// socket is one WebSocket with its writes serialised by the library.
type socket struct {
	hub  *Hub
	conn *websocket.Conn
	bad  int
	// heard is when the client last sent a frame (unix ms; the hub's reaper
	// closes sockets silent for idleTimeout).
	heard atomic.Int64
}

func (s *socket) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(s.hub.ctx, writeTimeout)
	defer cancel()
	if err := s.conn.Write(ctx, websocket.MessageText, b); err != nil {
		_ = s.conn.CloseNow()
		return err
	}
	return nil
}

// silent tells whether the client sent nothing since before cutoff (unix ms).
func (s *socket) silent(cutoff int64) bool { return s.heard.Load() < cutoff }

func (s *socket) close(code websocket.StatusCode, reason string) { _ = s.conn.Close(code, reason) }

func (s *socket) shutdown() {
	_ = s.conn.Close(websocket.StatusServiceRestart, "server restarting")
}

// readLoop reads frames until the socket closes, idles too long or sends
// too many bad frames in a row.
func (s *socket) readLoop(handle func(clientFrame) error) {
	for {
		s.heard.Store(time.Now().UnixMilli())
		typ, data, err := s.conn.Read(s.hub.ctx)
		if err != nil {
			if s.hub.ctx.Err() == nil {
				_ = s.conn.Close(websocket.StatusNormalClosure, "")
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
		_ = s.conn.Close(websocket.StatusPolicyViolation, "too many bad frames")
		return true
	}
	_ = s.send(errorFrame{Type: "error", ErrorCode: code, ClientID: clientID, ConversationID: convID})
	return false
}

var errBadFrame = api.NewError(400, "INVALID_FRAME", "chat.error.invalidFrame")

// convSub delivers one conversation's rows to a socket: state, typing and
// read receipts when the row's version moved, then every message after
// the last seq delivered, in order.
type convSub struct {
	runner
	sock    *socket
	convID  string
	agent   bool // the agent's side: visitor typing and reads, conversationId on frames
	lastSeq atomic.Int64
	version atomic.Int64
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
	c.fn = c.deliver
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

func (c *convSub) deliver() {
	svc := c.sock.hub.svc
	ctx := c.sock.hub.ctx
	conv, err := svc.Get(ctx, c.convID)
	if err != nil {
		if errors.Is(err, ErrNotFound) && !c.agent {
			_ = c.sock.conn.Close(CloseUnknown, "conversation unknown")
		}
		return
	}
	state := StateFrame{Type: "state", ConversationID: c.tag(), Status: conv.Status}
	if conv.Status == StatusWaiting && conv.Kind == KindLive {
		pos, err := svc.queuePosition(ctx, conv)
		if err != nil {
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
	for c.lastSeq.Load() < conv.LastSeq {
		msgs, err := svc.Messages(ctx, c.convID, c.lastSeq.Load(), 200)
		if err != nil || len(msgs) == 0 {
			return
		}
		for _, m := range msgs {
			if c.send(Frame(m, c.tag())) != nil {
				return
			}
			c.lastSeq.Store(m.Seq)
		}
	}
	c.version.Store(conv.Version)
	if conv.Status == StatusEnded && c.ended != nil {
		c.ended()
	}
}

func (c *convSub) send(v any) error { return c.sock.send(v) }

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

// serveVisitor runs a visitor's socket: state, the messages after `after`,
// then live ones; frames from the visitor until it closes.
func (h *Hub) serveVisitor(conn *websocket.Conn, convID string, after int64) {
	sock := &socket{hub: h, conn: conn}
	if !h.register(sock, true) {
		_ = conn.Close(websocket.StatusServiceRestart, "server restarting")
		return
	}
	defer h.register(sock, false)
	sub := newConvSub(sock, convID, after, false)
	var endOnce sync.Once
	sub.ended = func() {
		endOnce.Do(func() { _ = conn.Close(websocket.StatusNormalClosure, "conversation ended") })
	}
	h.subscribe(convID, sub)
	defer h.unsubscribe(convID, sub)
	defer h.watchQueue(sub, false)
	sub.wake()
	svc := h.svc
	sock.readLoop(func(f clientFrame) error {
		ctx := h.ctx
		switch f.Type {
		case "message":
			if f.ClientID == "" {
				return errBadFrame
			}
			_, err := svc.VisitorSend(ctx, convID, f.ClientID, f.Body)
			return err
		case "typing":
			return svc.Typing(ctx, convID, false, f.On)
		case "read":
			return svc.MarkRead(ctx, convID, false, f.Seq)
		case "ping":
			return sock.send(map[string]string{"type": "pong"})
		}
		return errBadFrame
	})
}

// agentSocket is an agent's console socket: the queue, and the
// conversations subscribed to.
type agentSocket struct {
	runner
	sock        *socket
	p           staff.Principal
	mu          sync.Mutex
	subs        map[string]*convSub
	last        []byte // the last queue snapshot sent
	lastFigures []byte
}

func (a *agentSocket) behind(int64, int64) bool { return true }

func (a *agentSocket) deliverQueue() {
	svc := a.sock.hub.svc
	ctx := a.sock.hub.ctx
	q, err := svc.Queue(ctx, a.p)
	if err != nil {
		return
	}
	b, _ := json.Marshal(struct {
		Type string `json:"type"`
		Queue
	}{"queue", q})
	if string(b) != string(a.last) {
		if a.sock.send(json.RawMessage(b)) != nil {
			return
		}
		a.last = b
	}
	if !a.p.Role.AtLeast(staff.RoleSupervisor) {
		return
	}
	f, err := svc.Figures(ctx, a.p)
	if err != nil {
		return
	}
	fb, _ := json.Marshal(struct {
		Type string `json:"type"`
		Figures
	}{"figures", f})
	if string(fb) != string(a.lastFigures) && a.sock.send(json.RawMessage(fb)) == nil {
		a.lastFigures = fb
	}
}

// serveAgent runs an agent's socket.
func (h *Hub) serveAgent(conn *websocket.Conn, p staff.Principal) {
	sock := &socket{hub: h, conn: conn}
	if !h.register(sock, true) {
		_ = conn.Close(websocket.StatusServiceRestart, "server restarting")
		return
	}
	defer h.register(sock, false)
	a := &agentSocket{sock: sock, p: p, subs: map[string]*convSub{}}
	a.fn = a.deliverQueue
	h.watchQueue(a, true)
	defer h.watchQueue(a, false)
	defer func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		for id, sub := range a.subs {
			h.unsubscribe(id, sub)
		}
	}()
	svc := h.svc
	_ = svc.Heartbeat(h.ctx, p.ID)
	a.wake()
	sock.readLoop(func(f clientFrame) error {
		ctx := h.ctx
		switch f.Type {
		case "subscribe":
			c, err := svc.Get(ctx, f.ConversationID)
			if err != nil {
				return err
			}
			if !p.Serves(c.Brand) {
				return ErrForbiddenBrand
			}
			if c.AgentID != p.ID && c.Status == StatusActive && !p.Role.AtLeast(staff.RoleSupervisor) {
				return ErrNotHolder
			}
			a.mu.Lock()
			if old := a.subs[c.ID]; old != nil {
				h.unsubscribe(c.ID, old)
			}
			sub := newConvSub(sock, c.ID, max(f.After, 0), true)
			a.subs[c.ID] = sub
			a.mu.Unlock()
			h.subscribe(c.ID, sub)
			sub.wake()
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
			return svc.Typing(ctx, c.ID, true, f.On)
		case "read":
			c, err := svc.Get(ctx, f.ConversationID)
			if err != nil {
				return err
			}
			if c.AgentID != p.ID {
				return ErrNotHolder
			}
			return svc.MarkRead(ctx, c.ID, true, f.Seq)
		case "ping":
			if err := svc.Heartbeat(ctx, p.ID); err != nil {
				return err
			}
			return sock.send(map[string]string{"type": "pong"})
		}
		return errBadFrame
	})
}
