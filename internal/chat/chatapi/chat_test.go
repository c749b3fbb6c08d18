package chatapi

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/api"
	"guichet/internal/chat"
	"guichet/internal/fanout/fanouttest"
	"guichet/internal/sockets"
	"guichet/internal/staff"
	"guichet/internal/testenv"
)

// codeOf is the API error code a service error answers (Error's mapping).
func codeOf(err error) string {
	var e *api.Error
	if errors.As(Error(err), &e) {
		return e.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// activeConversation: a scotia visitor's conversation accepted by marie.
func (e *env) activeConversation(v *visitor, marie staff.Principal) string {
	e.T.Helper()
	id := v.start()
	e.staffWant(marie, "POST", "/console/conversations/"+id+"/accept", "", 200, "")
	return id
}

// chatting: Marie, an agent of every brand available in language, and a
// scotia visitor's conversation she accepted.
func (e *env) chatting(language string) (staff.Principal, *visitor, string) {
	e.T.Helper()
	marie := e.availableAgent("marie", "Marie", language)
	v := e.visitor("scotia")
	v.language = language
	return marie, v, e.activeConversation(v, marie)
}

// TestReplayAfterReconnect: a visitor's socket gets the state and every
// message in order, the visitor's own as the ack; disconnected while the
// agent sends two messages, a reconnect with after = the last seq it had
// gets exactly those two, in order, and then live ones.
func TestReplayAfterReconnect(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		marie, v, id := e.chatting("en")

		s := v.socket(0)
		if st := s.Read(); st["type"] != "state" || st["status"] != "active" || st["agentName"] != "Marie" {
			t.Fatalf("first frame %v", st)
		}
		joined := s.Next("message")
		if joined["seq"] != 1.0 || joined["sender"] != "system" || joined["system"].(map[string]any)["key"] != "agentJoined" {
			t.Fatalf("joined %v", joined)
		}
		s.Send(map[string]any{"type": "message", "clientId": "c-1", "body": "Hello <b>there</b>"})
		own := s.Next("message")
		if own["seq"] != 2.0 || own["clientId"] != "c-1" || own["body"] != "Hello <b>there</b>" || own["sender"] != "visitor" {
			t.Fatalf("ack %v", own)
		}
		s.Conn.CloseNow()

		for _, body := range []string{"first while away", "second while away"} {
			if _, err := e.svc.AgentSend(ctx, marie, id, "", body); err != nil {
				t.Fatal(err)
			}
		}
		s = v.socket(2)
		if st := s.Read(); st["type"] != "state" {
			t.Fatalf("reconnect starts with %v", st)
		}
		for i, want := range []string{"first while away", "second while away"} {
			m := s.Next("message")
			if m["seq"] != float64(3+i) || m["body"] != want || m["agentName"] != "Marie" {
				t.Fatalf("replayed %d: %v", i, m)
			}
		}
		if _, err := e.svc.AgentSend(ctx, marie, id, "", "live one"); err != nil {
			t.Fatal(err)
		}
		if m := s.Next("message"); m["seq"] != 5.0 || m["body"] != "live one" {
			t.Fatalf("live after replay: %v", m)
		}
	})
}

// TestNoSequenceGapsUnderConcurrentSenders: the visitor and the agent
// sending at once from many goroutines get seqs 1..n without gap or
// repeat, and last_seq is n.
func TestNoSequenceGapsUnderConcurrentSenders(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.svc.Limiter = nil // the visitor's rate limit is TestLimits'
		ctx := t.Context()
		marie, _, id := e.chatting("en")
		const senders, each = 8, 15
		var wg sync.WaitGroup
		errs := make(chan error, senders*each)
		for g := range senders {
			wg.Go(func() {
				for i := range each {
					var err error
					if g%2 == 0 {
						_, err = e.svc.VisitorSend(ctx, id, fmt.Sprintf("v-%d-%d", g, i), "hello")
					} else {
						_, err = e.svc.AgentSend(ctx, marie, id, fmt.Sprintf("a-%d-%d", g, i), "hi")
					}
					if err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		msgs, err := e.svc.Messages(ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := 1 + senders*each // the agent-joined note first
		if len(msgs) != want {
			t.Fatalf("%d messages, want %d", len(msgs), want)
		}
		for i, m := range msgs {
			if m.Seq != int64(i+1) {
				t.Fatalf("message %d has seq %d", i, m.Seq)
			}
		}
		c, _ := e.svc.Get(ctx, id)
		if c.LastSeq != int64(want) {
			t.Fatalf("last_seq %d, want %d", c.LastSeq, want)
		}
	})
}

// TestIdempotentClientID: a resend with the same clientId stores nothing
// and answers the first seq, over the socket too (one ack frame each, the
// same seq).
func TestIdempotentClientID(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		_, v, id := e.chatting("en")
		a, err := e.svc.VisitorSend(ctx, id, "same", "once")
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.svc.VisitorSend(ctx, id, "same", "once")
		if err != nil || b.Seq != a.Seq {
			t.Fatalf("resend: %+v %v; first seq %d", b, err, a.Seq)
		}
		s := v.socket(int(a.Seq))
		s.Send(map[string]any{"type": "message", "clientId": "same", "body": "once"})
		s.Send(map[string]any{"type": "message", "clientId": "other", "body": "twice"})
		if m := s.Next("message"); m["clientId"] != "other" || m["seq"] != float64(a.Seq+1) {
			t.Fatalf("after a resend the next message is %v", m)
		}
		msgs, _ := e.svc.Messages(ctx, id, 0, 0)
		if len(msgs) != 3 {
			t.Fatalf("%d messages stored, want 3", len(msgs))
		}
	})
}

// TestMaxPerAgent: an agent holds at most the brand's maxPerAgent (3):
// the fourth accept is 409 AGENT_LIMIT and leaves it waiting; ending one
// frees a place.
func TestMaxPerAgent(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		marie := e.availableAgent("marie", "Marie", "en")
		var ids []string
		for i := range 4 {
			v := e.visitor("scotia")
			v.ip = fmt.Sprintf("198.51.100.%d", i)
			ids = append(ids, v.start())
		}
		for _, id := range ids[:3] {
			e.staffWant(marie, "POST", "/console/conversations/"+id+"/accept", "", 200, "")
		}
		e.staffWant(marie, "POST", "/console/conversations/"+ids[3]+"/accept", "", 409, "AGENT_LIMIT")
		if c, _ := e.svc.Get(context.Background(), ids[3]); c.Status != chat.StatusWaiting {
			t.Fatalf("refused accept left %s", c.Status)
		}
		e.staffWant(marie, "POST", "/console/conversations/"+ids[0]+"/end", "", 200, "")
		e.staffWant(marie, "POST", "/console/conversations/"+ids[3]+"/accept", "", 200, "")
	})
}

// TestLimits: body size (2000 characters), 20 visitor messages a minute,
// 10 new conversations an hour per address, frames: an error frame for a
// bad one, the socket closed with 1008 after five in a row.
func TestLimits(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		marie, v, id := e.chatting("en")
		if _, err := e.svc.VisitorSend(ctx, id, "long", strings.Repeat("é", chat.MaxBody+1)); codeOf(err) != "MESSAGE_TOO_LONG" {
			t.Fatalf("2001 characters: %v", err)
		}
		if _, err := e.svc.VisitorSend(ctx, id, "max", strings.Repeat("é", chat.MaxBody)); err != nil {
			t.Fatalf("2000 characters: %v", err)
		}
		for i := 1; i < chat.VisitorMessageLimit.Limit; i++ {
			if _, err := e.svc.VisitorSend(ctx, id, fmt.Sprint("m", i), "hi"); err != nil {
				t.Fatalf("message %d: %v", i+1, err)
			}
		}
		before, _ := e.svc.Get(ctx, id)
		if _, err := e.svc.VisitorSend(ctx, id, "over", "hi"); codeOf(err) != "RATE_LIMITED" {
			t.Fatalf("21st message: %v", err)
		}
		if after, _ := e.svc.Get(ctx, id); after.LastSeq != before.LastSeq {
			t.Fatal("a refused message was stored")
		}
		s := v.socket(int(before.LastSeq))
		s.Send(map[string]any{"type": "message", "clientId": "over-socket", "body": "hi"})
		if f := s.Next("error"); f["errorCode"] != "RATE_LIMITED" || f["clientId"] != "over-socket" {
			t.Fatalf("error frame %v", f)
		}
		e.Clock.Advance(2 * time.Minute)
		if err := e.svc.Heartbeat(ctx, marie.ID); err != nil {
			t.Fatal(err)
		}
		s.Send(map[string]any{"type": "message", "clientId": "too-long", "body": strings.Repeat("x", chat.MaxBody+1)})
		if f := s.Next("error"); f["errorCode"] != "MESSAGE_TOO_LONG" {
			t.Fatalf("error frame %v", f)
		}
		s.Send(map[string]any{"type": "message", "clientId": "fine", "body": "fine"})
		if m := s.Next("message"); m["clientId"] != "fine" {
			t.Fatalf("after the errors: %v", m)
		}
		for range maxBadFrames - 1 {
			if err := s.Conn.Write(ctx, websocket.MessageText, []byte("{not json")); err != nil {
				t.Fatal(err)
			}
			if f := s.Next("error"); f["errorCode"] != "INVALID_FRAME" {
				t.Fatalf("bad frame answered %v", f)
			}
		}
		if err := s.Conn.Write(ctx, websocket.MessageText, []byte(`{"type":"dance"}`)); err != nil {
			t.Fatal(err)
		}
		s.ExpectClose(t, websocket.StatusPolicyViolation, "unknown frame type")

		// Ten new conversations an hour per address: another visitor at
		// the first one's address.
		other := e.visitor("scotia")
		other.ip = v.ip
		for i := range chat.ConversationLimit.Limit - 1 { // the first visitor's start counted one
			other.cookie = ""
			if a := other.do("POST", "/api/v1/chat/conversations", `{"name":"Sam","topic":"Claims"}`); a.Status != 201 {
				t.Fatalf("conversation %d: %d %s", i+2, a.Status, a.Body)
			}
		}
		other.cookie = ""
		other.want("POST", "/api/v1/chat/conversations", `{"name":"Sam","topic":"Claims"}`, 429, "RATE_LIMITED")
		elsewhere := e.visitor("scotia")
		elsewhere.ip = "192.0.2.50"
		elsewhere.want("POST", "/api/v1/chat/conversations", `{"name":"Sam","topic":"Claims"}`, 201, "")
		other.want("POST", "/api/v1/chat/conversations", `{"name":"","topic":"Claims"}`, 400, "INVALID_FIELD")
		other.want("POST", "/api/v1/chat/conversations", `{"name":"Sam","topic":"Claims","extra":1}`, 400, "BAD_REQUEST")
	})
}

// TestAvailability: open = the province's hours AND an agent available
// with a fresh heartbeat, serving the brand and the language.
func TestAvailability(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		scotia, _ := e.Brands.ByID("scotia")
		intact, _ := e.Brands.ByID("intact")
		check := func(label string, b string, province, lang, want string) {
			t.Helper()
			br, _ := e.Brands.ByID(b)
			av, err := e.svc.Availability(ctx, br, province, lang)
			if err != nil {
				t.Fatal(err)
			}
			if av.Reason != want || av.Open != (want == "open") {
				t.Fatalf("%s: %+v, want %s", label, av, want)
			}
		}
		check("nobody available", "scotia", "on", "en", "no-agent")
		check("no hours (intact)", intact.ID, "on", "en", "no-hours")
		luc := e.AddStaff("luc", "Luc", staff.RoleAgent, "belair")
		e.available(luc, "en", "fr")
		check("an agent of another brand", "scotia", "on", "en", "no-agent")
		check("the agent's brand", "belair", "on", "en", "open")
		marie := e.AddStaff("marie", "Marie", staff.RoleAgent, "scotia")
		e.available(marie, "en")
		check("an agent of the brand, English", "scotia", "on", "en", "open")
		check("no French agent", "scotia", "qc", "fr", "no-agent")
		e.Clock.Advance(chat.PresenceWindow + time.Second)
		check("heartbeat stale", "scotia", "on", "en", "no-agent")
		if err := e.svc.Heartbeat(ctx, marie.ID); err != nil {
			t.Fatal(err)
		}
		check("heartbeat again", "scotia", "on", "en", "open")
		if err := e.svc.SetAvailability(ctx, marie.ID, chat.AgentAway, nil); err != nil {
			t.Fatal(err)
		}
		check("away", "scotia", "on", "en", "no-agent")
		// In hours with nobody available: not "closed" (issue 32).
		e.visitor("scotia").want("POST", "/api/v1/chat/conversations", `{"name":"Alex","topic":"Sign-in"}`, 409, "CHAT_NO_AGENT")
		e.available(marie, "en")
		// Tuesday 18:30 in Toronto: scotia closes at 18:00.
		e.Clock.Advance(8*time.Hour + 30*time.Minute)
		if err := e.svc.Heartbeat(ctx, marie.ID); err != nil {
			t.Fatal(err)
		}
		av, _ := e.svc.Availability(ctx, scotia, "on", "en")
		if av.Open || av.Reason != "closed" || !av.NextOpen.Equal(time.Date(2026, 11, 25, 13, 0, 0, 0, time.UTC)) {
			t.Fatalf("after hours: %+v", av)
		}
		// Closed: a new conversation is refused, the message form is not.
		v := e.visitor("scotia")
		v.want("POST", "/api/v1/chat/conversations", `{"name":"Alex","topic":"Sign-in"}`, 409, "CHAT_CLOSED")
		v.want("POST", "/api/v1/chat/offline", `{"name":"Alex","email":"alex@example.com","question":"Can you call me?"}`, 201, "")
	})
}

// TestAgentSendStatements: an agent's message is two statements in its
// transaction (lock + seq + checks in one, the insert that skips a resend)
// and a resend gives its seq back: the next message follows with no gap.
// A refused send still says why (not the holder, ended).
func TestAgentSendStatements(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		marie, _, id := e.chatting("en")
		before := e.DB.Statements()
		a, err := e.svc.AgentSend(ctx, marie, id, "c1", "hello")
		if err != nil {
			t.Fatal(err)
		}
		if n := e.DB.Statements() - before; n > 2 {
			t.Fatalf("an agent's message ran %d statements, want at most 2", n)
		}
		again, err := e.svc.AgentSend(ctx, marie, id, "c1", "hello")
		if err != nil || again.Seq != a.Seq || again.Body != "hello" {
			t.Fatalf("resend: %+v %v; first seq %d", again, err, a.Seq)
		}
		b, err := e.svc.AgentSend(ctx, marie, id, "c2", "next")
		if err != nil || b.Seq != a.Seq+1 {
			t.Fatalf("after a resend: %+v %v; want seq %d", b, err, a.Seq+1)
		}
		c, err := e.svc.Get(ctx, id)
		if err != nil || c.LastSeq != b.Seq {
			t.Fatalf("last_seq %d (%v), want %d", c.LastSeq, err, b.Seq)
		}
		paul := e.AddStaff("paul", "Paul", staff.RoleAgent)
		if _, err := e.svc.AgentSend(ctx, paul, id, "p1", "mine?"); err != chat.ErrNotHolder {
			t.Fatalf("another agent's send: %v, want chat.ErrNotHolder", err)
		}
		if _, err := e.svc.AgentSend(ctx, marie, "nope", "m1", "hi"); err != chat.ErrNotFound {
			t.Fatalf("unknown conversation: %v, want chat.ErrNotFound", err)
		}
		if _, err := e.svc.EndBy(ctx, marie, id); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.AgentSend(ctx, marie, id, "m2", "too late"); err != chat.ErrEnded {
			t.Fatalf("send to an ended conversation: %v, want chat.ErrEnded", err)
		}
		if c2, _ := e.svc.Get(ctx, id); c2.LastSeq <= b.Seq {
			t.Fatalf("ending added no message: last_seq %d", c2.LastSeq)
		}
	})
}

// TestDeliveryReadsOnce: a socket's delivery reads the conversation and
// the messages after its last seq in one statement, with the same answer
// Get and Messages give (none after, some, more than a batch).
func TestDeliveryReadsOnce(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		marie, _, id := e.chatting("fr")
		for i := range 5 {
			if _, err := e.svc.AgentSend(ctx, marie, id, fmt.Sprintf("d%d", i), fmt.Sprintf("message %d", i)); err != nil {
				t.Fatal(err)
			}
		}
		want, _ := e.svc.Get(ctx, id)
		for _, tc := range []struct {
			after int64
			limit int
		}{{0, 200}, {2, 200}, {want.LastSeq, 200}, {1, 3}} {
			before := e.DB.Statements()
			c, msgs, err := e.svc.GetWithMessages(ctx, id, tc.after, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if n := e.DB.Statements() - before; n != 1 {
				t.Fatalf("after %d: %d statements, want 1", tc.after, n)
			}
			if c != want {
				t.Fatalf("after %d: conversation %+v, want %+v", tc.after, c, want)
			}
			ref, _ := e.svc.Messages(ctx, id, tc.after, tc.limit)
			if len(msgs) != len(ref) {
				t.Fatalf("after %d limit %d: %d messages, want %d", tc.after, tc.limit, len(msgs), len(ref))
			}
			for i := range ref {
				if !reflect.DeepEqual(msgs[i], ref[i]) {
					t.Fatalf("after %d: message %d %+v, want %+v", tc.after, i, msgs[i], ref[i])
				}
			}
		}
		if _, _, err := e.svc.GetWithMessages(ctx, "unknown", 0, 200); err != chat.ErrNotFound {
			t.Fatalf("unknown conversation: %v", err)
		}
	})
}

// TestQueueAndSocketMetrics: the queue's length is read at the scrape, a
// conversation's wait is observed once when an agent takes it, and the open
// sockets count by kind, back to 0 when they close (issue 33).
func TestQueueAndSocketMetrics(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		reg := prometheus.NewRegistry()
		e.svc.Metrics = chat.NewMetrics(reg, e.svc, func() []string { return []string{"scotia", "belair"} })
		e.hub.Registry().Metrics = sockets.NewMetrics(reg)
		open := func(kind string) float64 { return testenv.Metric(t, reg, "guichet_websockets_open", "kind", kind) }
		marie := e.availableAgent("marie", "Marie", "en")
		v := e.visitor("scotia")
		first, second := v.start(), e.visitor("scotia").start()
		if n := testenv.Metric(t, reg, "guichet_chat_queue_length", "brand", "scotia"); n != 2 {
			t.Fatalf("queue length %v, want 2", n)
		}
		if n := testenv.Metric(t, reg, "guichet_chat_queue_length", "brand", "belair"); n != 0 {
			t.Fatalf("an empty queue: %v, want a series at 0", n)
		}
		e.Clock.Advance(90 * time.Second)
		e.staffWant(marie, "POST", "/console/conversations/"+first+"/accept", "", 200, "")
		if n := testenv.Metric(t, reg, "guichet_chat_queue_length", "brand", "scotia"); n != 1 {
			t.Fatalf("queue length %v after an accept, want 1", n)
		}
		if n := testenv.Metric(t, reg, "guichet_chat_wait_for_agent_seconds"); n != 1 {
			t.Fatalf("waits observed %v, want 1", n)
		}
		e.staffWant(marie, "POST", "/console/conversations/"+second+"/accept", "", 200, "")
		if n := testenv.Metric(t, reg, "guichet_chat_queue_length", "brand", "scotia"); n != 0 {
			t.Fatalf("queue length %v once empty, want 0", n)
		}
		visitor, agent := v.socket(0), e.agentSocket(marie)
		visitor.Read()
		agent.Read()
		if open(sockets.KindChatVisitor) != 1 || open(sockets.KindChatAgent) != 1 {
			t.Fatalf("open sockets: visitor %v, agent %v; want 1 each", open(sockets.KindChatVisitor), open(sockets.KindChatAgent))
		}
		visitor.Conn.Close(websocket.StatusNormalClosure, "")
		agent.Conn.Close(websocket.StatusNormalClosure, "")
		fanouttest.Eventually(t, "the closed sockets counted out", func() bool {
			return open(sockets.KindChatVisitor) == 0 && open(sockets.KindChatAgent) == 0
		})
		if n := testenv.Metric(t, reg, "guichet_chat_wait_for_agent_seconds"); n != 2 {
			t.Fatalf("waits observed %v, want 2", n)
		}
	})
}
