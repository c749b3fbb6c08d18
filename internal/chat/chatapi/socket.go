package chatapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/chat"
	"guichet/internal/chat/bot"
	"guichet/internal/chat/hub"
	"guichet/internal/sockets"
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
func Frame(m chat.Message, convID string) MessageFrame {
	f := MessageFrame{Type: "message", ConversationID: convID, Seq: m.Seq, Sender: m.Sender, Body: m.Body,
		At: chat.RFC3339(m.At), ClientID: m.ClientID, AgentName: m.AgentName, Reply: m.Reply}
	if m.Sender == chat.SenderSystem {
		f.Body = ""
		f.System = &SystemNote{Key: m.SystemKey, Name: m.SystemName}
	}
	return f
}

// Socket limits and close codes (the timing is internal/sockets':
// IdleTimeout, WriteTimeout).
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
)

// socket is one WebSocket of the hub (its writes serialised by the
// library) and how many bad frames in a row it sent.
type socket struct {
	*sockets.Socket
	hub *hub.Hub
	svc *chat.Service
	bad int
}

// readLoop reads frames until the socket closes, idles too long or sends
// too many bad frames in a row.
func (s *socket) readLoop(handle func(clientFrame) error) {
	for {
		s.Heard()
		typ, data, err := s.Conn.Read(s.hub.Context())
		if err != nil {
			if s.hub.Context().Err() == nil {
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
			if c, ok := errorCode(err); ok {
				code = c
			} else {
				slog.ErrorContext(s.LogCtx(), "chat frame", "type", f.Type, "err", err)
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

// convSub delivers one conversation's rows to a socket: state, typing and
// read receipts when the row's version moved, then every message after
// the last seq delivered, in order.
type convSub struct {
	sockets.Runner
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
	access  func(chat.Conversation) error
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

// Close marks the subscription released (the hub's Release, under its
// lock).
func (c *convSub) Close() { c.closed.Store(true) }

// Closed tells whether the subscription was released.
func (c *convSub) Closed() bool { return c.closed.Load() }

// Behind tells whether a row at seq and version holds news for c.
func (c *convSub) Behind(seq, version int64) bool {
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
	if c.closed.Load() || c.sock.hub.Context().Err() != nil {
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
	svc := c.sock.svc
	ctx := c.sock.hub.Context()
	conv, msgs, err := svc.GetWithMessages(ctx, c.convID, c.lastSeq.Load(), deliverBatch)
	if err != nil {
		if errors.Is(err, chat.ErrNotFound) && !c.agent {
			_ = c.sock.Conn.Close(CloseUnknown, "conversation unknown")
		} else if !errors.Is(err, chat.ErrNotFound) {
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
	if conv.Status == chat.StatusWaiting && conv.Kind == chat.KindLive {
		pos, err := svc.QueuePosition(ctx, conv)
		if err != nil {
			c.retry()
			return
		}
		state.QueuePosition = &pos
	}
	if conv.Status == chat.StatusActive {
		name := conv.AgentName
		state.AgentName = &name
	}
	if !c.agent {
		c.sock.hub.WatchQueue(c, conv.Status == chat.StatusWaiting)
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
	if conv.Status == chat.StatusEnded && c.ended != nil {
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

// newTypingGate is the typing gate of one side of conversation id.
func newTypingGate(svc *chat.Service, id string, agent bool, log context.Context) *typingGate {
	return &typingGate{now: svc.Clock, write: func(on bool) {
		if err := svc.Typing(context.Background(), id, agent, on); err != nil {
			slog.WarnContext(log, "chat typing", "err", err)
		}
	}}
}

// serveVisitor runs a visitor's socket: state, the messages after `after`,
// then live ones; frames from the visitor until it closes. A conversation
// that ended while the visitor was away is replayed, then closed with 1000.
func serveVisitor(h *hub.Hub, svc *chat.Service, conn *websocket.Conn, convID string, after int64, release func(), log context.Context) {
	defer release()
	sock := &socket{Socket: h.Registry().New(conn, sockets.KindChatVisitor), hub: h, svc: svc}
	sock.Log = log
	if !h.Registry().Add(sock.Socket) {
		return
	}
	defer h.Registry().Release(sock.Socket)
	sub := newConvSub(sock, convID, after, false)
	var endOnce sync.Once
	sub.ended = func() {
		endOnce.Do(func() { _ = conn.Close(websocket.StatusNormalClosure, "conversation ended") })
	}
	h.Subscribe(convID, sub)
	defer h.Release(convID, sub)
	typing := newTypingGate(svc, convID, false, sock.LogCtx())
	defer typing.stop()
	// The connect's heartbeat write runs apart: database calls on this
	// long-lived goroutine would grow its stack for good (an idle socket
	// then holds 8 KB of stack instead of 4; make bench's chat lines).
	go func() { _ = svc.VisitorSeen(h.Context(), convID) }()
	sub.Wake()
	sock.readLoop(func(f clientFrame) error {
		ctx := h.Context()
		switch f.Type {
		case "message":
			if f.ClientID == "" {
				return errBadFrame
			}
			if err := chat.CheckID("clientId", f.ClientID); err != nil {
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
