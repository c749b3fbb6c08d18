package chatapi

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/audit"
	"guichet/internal/chat"
	"guichet/internal/chat/hub"
	"guichet/internal/sockets"
	"guichet/internal/staff"
	"guichet/internal/store/storetest"
)

// TestEndedWhileAwayReplays: the visitor's phone drops; the agent sends
// two messages and ends the chat; the reconnect with the last seq the
// widget had gets both messages and the end note, then 1000 (not 4404,
// which would lose them: the widget stops on 4404).
func TestEndedWhileAwayReplays(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		marie, v, id := e.chatting("en")
		s := v.socket(0)
		s.Next("message") // seq 1 agentJoined
		s.Conn.CloseNow()
		for _, body := range []string{"your claim number is 123", "anything else?"} {
			if _, err := e.svc.AgentSend(ctx, marie, id, "", body); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.svc.End(ctx, id, marie.Name); err != nil {
			t.Fatal(err)
		}
		frames, code := v.socket(1).ReadAll()
		var got []string
		for _, f := range frames {
			if f["type"] != "message" {
				continue
			}
			if sys, ok := f["system"].(map[string]any); ok {
				got = append(got, "system:"+sys["key"].(string))
			} else {
				got = append(got, f["body"].(string))
			}
		}
		want := "your claim number is 123|anything else?|system:ended"
		if strings.Join(got, "|") != want || code != websocket.StatusNormalClosure {
			t.Fatalf("reconnect after the end: %q closed %d; want %q then 1000", got, code, want)
		}
	})
}

// TestAgentSocketClosesWhenSignedOut: a disabled staff member's open
// socket stores nothing more and is closed with 4401 on its next ping.
func TestAgentSocketClosesWhenSignedOut(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		marie, _, id := e.chatting("en")
		as := e.agentSocket(marie)
		as.Next("queue")
		if _, err := e.DB.Exec(ctx, "UPDATE staff_accounts SET disabled_at = ? WHERE id = ?", 5, marie.ID); err != nil {
			t.Fatal(err)
		}
		as.Send(map[string]any{"type": "message", "conversationId": id, "clientId": "x1", "body": "still here after being disabled"})
		as.Send(map[string]any{"type": "ping"})
		if _, code := as.ReadAll(); code != CloseSignedOut {
			t.Fatalf("disabled agent's socket closed with %d; want 4401", code)
		}
		msgs, err := e.svc.Messages(ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if last := msgs[len(msgs)-1]; last.Body == "still here after being disabled" {
			t.Fatalf("disabled agent's socket stored %q", last.Body)
		}
		// The service refuses too (a request already past its middleware).
		if _, err := e.svc.AgentSend(ctx, marie, id, "x2", "again"); err != chat.ErrSignedOut {
			t.Fatalf("AgentSend of a disabled agent: %v", err)
		}
	})
}

// TestAgentSocketSessionCheck: the socket re-runs the session's check on
// each ping and, without pings, on the reaper's tick once a minute
// passed; a session gone closes it with 4401.
func TestAgentSocketSessionCheck(t *testing.T) {
	db := storetest.Open(t)
	e := newEnv(t, db)
	marie := e.AddStaff("marie", "Marie", staff.RoleAgent)
	checks := make(chan struct{}, 10)
	signedIn := true
	var mu = &e.mu
	c := &ConsoleHandler{Service: e.svc, Hub: e.hub, AllBrands: e.Brands.All,
		Session: func(r *http.Request) func(context.Context, bool) (staff.Principal, error) {
			return func(context.Context, bool) (staff.Principal, error) {
				checks <- struct{}{}
				mu.Lock()
				defer mu.Unlock()
				if !signedIn {
					return staff.Principal{}, staff.ErrNoSession
				}
				return marie, nil
			}
		}}
	srv := newTestServer(t, e, c)
	as := e.dialAt(srv, marie)
	as.Next("queue")
	as.Send(map[string]any{"type": "ping"})
	as.Next("pong")
	<-checks
	e.hub.Reap(0) // a tick before the minute: no check
	e.Clock.Advance(recheckEvery)
	mu.Lock()
	signedIn = false
	mu.Unlock()
	e.hub.Reap(0) // the minute passed: checked, signed out
	if _, code := as.ReadAll(); code != CloseSignedOut {
		t.Fatalf("signed-out session's socket closed with %d; want 4401", code)
	}
	if n := len(checks); n != 1 {
		t.Fatalf("%d checks after the ping; want 1 (the tick's)", n)
	}
}

// TestSubscribeFollowsReadRule: an agent who subscribed to a waiting
// conversation stops getting it once another agent accepts it (error
// NOT_HOLDER, nothing of it after); a subscribe to another agent's ended
// conversation is refused like GET conversations/{id}; subscribes are
// audited.
func TestSubscribeFollowsReadRule(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.svc.Limiter = nil
		ctx := t.Context()
		marie := e.availableAgent("marie", "Marie", "en")
		bob := e.AddStaff("bob", "Bob", staff.RoleAgent, "scotia")
		v := e.visitor("scotia")
		id := v.start()
		bs := e.agentSocket(bob)
		bs.Next("queue")
		bs.Send(map[string]any{"type": "subscribe", "conversationId": id, "after": 0})
		bs.Next("state") // allowed while it waits
		e.staffWant(marie, "POST", "/console/conversations/"+id+"/accept", "", 200, "")
		if f := bs.Next("error"); f["errorCode"] != "NOT_HOLDER" || f["conversationId"] != id {
			t.Fatalf("after marie accepted, bob got %v", f)
		}
		secret := "my policy number is ABC-1234"
		if _, err := e.svc.VisitorSend(ctx, id, "c1", secret); err != nil {
			t.Fatal(err)
		}
		// A frame of bob's own after the message: nothing of the
		// conversation came before it.
		bs.Send(map[string]any{"type": "ping"})
		for {
			f := bs.Read()
			if f["type"] == "pong" {
				break
			}
			if f["conversationId"] == id {
				t.Fatalf("bob (not holder) still gets %v", f)
			}
		}
		if _, err := e.svc.End(ctx, id, "Marie"); err != nil {
			t.Fatal(err)
		}
		e.staffWant(bob, "GET", "/console/conversations/"+id, "", 409, "NOT_HOLDER")
		bs.Send(map[string]any{"type": "subscribe", "conversationId": id, "after": 0})
		if f := bs.Next("error"); f["errorCode"] != "NOT_HOLDER" {
			t.Fatalf("subscribe to marie's ended conversation: %v", f)
		}
		views := "SELECT COUNT(*) FROM audit_events WHERE event = ? AND account_id = ? AND detail = ? AND outcome = ?"
		ok, refused := e.Count(t, views, audit.ChatTranscriptView, bob.ID, id, "ok"), e.Count(t, views, audit.ChatTranscriptView, bob.ID, id, "NOT_HOLDER")
		if ok != 1 || refused != 2 { // the socket's refusal and the REST one
			t.Fatalf("subscribe audit rows: %d ok, %d NOT_HOLDER; want 1 and 2", ok, refused)
		}
	})
}

// TestTypingFloodCoalesced: 400 typing frames are not 400 writes and
// wakes: a socket writes its typing state at most once a second.
func TestTypingFloodCoalesced(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		_, v, id := e.chatting("en")
		s := v.socket(0)
		before, err := e.svc.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		const n = 400
		for i := range n {
			s.Send(map[string]any{"type": "typing", "on": i%2 == 0})
		}
		s.Send(map[string]any{"type": "ping"})
		s.Next("pong")
		after, err := e.svc.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		// The first frame is written; the rest wait for the second to end
		// (the test's clock does not move: at most one more write).
		if d := after.Version - before.Version; d > 2 {
			t.Fatalf("%d typing frames made %d writes", n, d)
		}
	})
}

// TestPollReadsSubscribedByID: a message committed on another instance
// (no local notification) whose time window the polls missed (a database
// blip, a clock apart) is still delivered by the next poll.
func TestPollReadsSubscribedByID(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		_, s, _ := e.sentFromOtherInstance()
		e.Clock.Advance(time.Minute) // far past the window
		if err := e.hub.Poll(ctx); err != nil {
			t.Fatal(err)
		}
		if f := s.Next("message"); f["body"] != "from the other instance" {
			t.Fatalf("got %v", f)
		}
	})
}

// TestReleasedSubscriptionStaysOut: a visitor's subscription released by
// its closing socket is not added back to the queue's watchers by a
// delivery that was still running.
func TestReleasedSubscriptionStaysOut(t *testing.T) {
	db := storetest.Open(t)
	e := newEnv(t, db)
	e.availableAgent("m", "M", "en")
	v := e.visitor("scotia")
	id := v.start()
	s := v.socket(0)
	s.Next("state")
	sub := newConvSub(&socket{Socket: e.hub.Registry().New(s.Conn, sockets.KindChatVisitor), hub: e.hub, svc: e.svc}, id, 0, false)
	e.hub.Subscribe(id, sub)
	e.hub.Release(id, sub) // the socket's cleanup ...
	sub.deliver()          // ... while its delivery ran
	watching, subscribed := e.hub.Holds(id, sub)
	if watching || subscribed {
		t.Fatalf("released subscription back in the hub: queue %v, conversation %v", watching, subscribed)
	}
}

// TestSocketCaps: a conversation opens at most hub.MaxSocketsPerConversation
// sockets on an instance (429 RATE_LIMITED before the upgrade); a closed
// one gives its place back.
func TestSocketCaps(t *testing.T) {
	db := storetest.Open(t)
	e := newEnv(t, db)
	_, v, _ := e.chatting("en")
	var open []*ws
	for range hub.MaxSocketsPerConversation {
		s := v.socket(0)
		s.Next("state")
		open = append(open, s)
	}
	_, res, err := e.dial("/api/v1/chat/socket", v.host, "http://"+v.host, v.cookie, nil)
	if err == nil || res == nil || res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("socket past the cap: %v %v; want 429", err, res)
	}
	open[0].Conn.Close(websocket.StatusNormalClosure, "")
	for i := 0; ; i++ { // the server sees the close, then frees the place
		_, res, err := e.dial("/api/v1/chat/socket", v.host, "http://"+v.host, v.cookie, nil)
		if err == nil {
			break
		}
		if res == nil || res.StatusCode != http.StatusTooManyRequests || i > 1000 {
			t.Fatalf("after a close: %v %v", err, res)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSocketFramesRefuseBadIDs: a NUL or invalid UTF-8 in a frame's ids
// is an INVALID_FIELD error frame, not a database error.
func TestSocketFramesRefuseBadIDs(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		marie, v, _ := e.chatting("en")
		s := v.socket(0)
		s.Send(map[string]any{"type": "message", "clientId": "a\u0000b", "body": "hi"})
		if f := s.Next("error"); f["errorCode"] != "INVALID_FIELD" {
			t.Fatalf("visitor clientId with NUL: %v", f)
		}
		as := e.agentSocket(marie)
		as.Send(map[string]any{"type": "subscribe", "conversationId": "x\u0000y"})
		if f := as.Next("error"); f["errorCode"] != "INVALID_FIELD" {
			t.Fatalf("agent conversationId with NUL: %v", f)
		}
	})
}
