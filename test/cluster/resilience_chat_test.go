package cluster

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// visitorSocket is the chat widget's WebSocket (the same protocol: chat.md
// "Visitor WebSocket"), opened through the load balancer.
func visitorSocket(t *testing.T, c *client, after int64) *websocket.Conn {
	t.Helper()
	return openSocket(t, c, "127.0.0.10", "/api/v1/chat/socket?after="+strconv.FormatInt(after, 10))
}

type frame struct {
	Type     string `json:"type"`
	Seq      int64  `json:"seq"`
	Sender   string `json:"sender"`
	Body     string `json:"body"`
	ClientID string `json:"clientId"`
}

// readUntil reads frames until done says so (or 10 s pass); it returns
// the message frames read.
func readUntil(t *testing.T, ws *websocket.Conn, done func(msgs []frame) bool) []frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var msgs []frame
	for !done(msgs) {
		_, raw, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("reading the visitor socket: %v (messages so far %+v)", err, msgs)
		}
		var f frame
		if json.Unmarshal(raw, &f) == nil && f.Type == "message" {
			msgs = append(msgs, f)
		}
	}
	return msgs
}

func hasClientID(msgs []frame, id string) bool {
	for _, m := range msgs {
		if m.ClientID == id {
			return true
		}
	}
	return false
}

// holder is the instance HAProxy has a live session on (the socket).
func holder(t *testing.T, c *client) *instance {
	t.Helper()
	holders := waitSessions(t, 1, c)
	for _, in := range cl.instances {
		if holders[in.name] > 0 {
			return in
		}
	}
	t.Fatalf("no instance holds the socket: %v", holders)
	return nil
}

// TestFaultKill9ChatVisitor kills (-9) the instance holding a chatting
// visitor's socket: the widget reconnects through the load balancer to
// another instance, replays the conversation from its last seq, goes on;
// every message is stored and replayed exactly once.
func TestFaultKill9ChatVisitor(t *testing.T) {
	waitAllUp(t)
	ctx := context.Background()
	loadAPIKey(t, "belair.localhost")
	c := newClient("127.0.0.10", "belair.localhost")
	a, err := c.json(ctx, setup.lb, "POST", "/api/v1/chat/conversations", `{"name":"Alex","topic":"claims"}`)
	if err != nil || (a.status != 201 && a.status != 200) {
		t.Fatalf("start a chat: %d %v %v", a.status, a.body, err)
	}
	ws := visitorSocket(t, c, 0)
	send := func(ws *websocket.Conn, id, body string) {
		msg, _ := json.Marshal(map[string]string{"type": "message", "clientId": id, "body": body})
		if err := ws.Write(ctx, websocket.MessageText, msg); err != nil {
			t.Fatalf("send %s: %v", id, err)
		}
	}
	send(ws, "v1", "How do I file a claim?")
	seen := readUntil(t, ws, func(m []frame) bool { return hasClientID(m, "v1") })
	victim := holder(t, c)
	last := seen[len(seen)-1].Seq
	victim.kill9()
	t.Cleanup(func() { restartIfDown(t, victim) })
	// Frames already on their way (the bot's reply) may still come; then
	// the socket drops.
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	for {
		_, raw, err := ws.Read(rctx)
		if err != nil {
			break
		}
		var f frame
		if json.Unmarshal(raw, &f) == nil && f.Type == "message" && f.Seq > last {
			last = f.Seq
		}
	}
	cancel()
	ws.CloseNow()

	// The widget reconnects from its last seq, through the load balancer.
	ws = visitorSocket(t, c, last)
	defer ws.CloseNow()
	if h := holder(t, c); h == victim {
		t.Fatalf("reconnected to the killed instance %s", h.name)
	}
	send(ws, "v2", "And my policy number?")
	more := readUntil(t, ws, func(m []frame) bool { return hasClientID(m, "v2") })
	for _, m := range more {
		if m.Seq <= last {
			t.Fatalf("replayed seq %d again after %d", m.Seq, last)
		}
	}
	ws.CloseNow()

	// A fresh replay from the start: every message once, in order.
	ws2 := visitorSocket(t, c, 0)
	defer ws2.CloseNow()
	all := readUntil(t, ws2, func(m []frame) bool { return hasClientID(m, "v2") })
	count := map[string]int{}
	for i, m := range all {
		if i > 0 && m.Seq <= all[i-1].Seq {
			t.Fatalf("replay out of order or repeated: %+v", all)
		}
		if m.ClientID != "" {
			count[m.ClientID]++
		}
	}
	if count["v1"] != 1 || count["v2"] != 1 {
		t.Fatalf("visitor messages in the replay: %v, want each once", count)
	}
	restartIfDown(t, victim)
	t.Logf("killed %s under the socket; %d messages replayed once each", victim.name, len(all))
}
