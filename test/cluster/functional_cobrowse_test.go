package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// nextFrame reads frames from ws until one satisfies want, at most until
// the deadline; it returns that frame.
func nextFrame(t *testing.T, ws *websocket.Conn, what string, deadline time.Time, want func(f map[string]any) bool) map[string]any {
	t.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	for {
		_, raw, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		var f map[string]any
		if json.Unmarshal(raw, &f) == nil && want(f) {
			return f
		}
	}
}

func frameIs(typ string) func(map[string]any) bool {
	return func(f map[string]any) bool { return f["type"] == typ }
}

func stateIs(status string) func(map[string]any) bool {
	return func(f map[string]any) bool { return f["type"] == "state" && f["status"] == status }
}

// otherInstance is an instance other than the one named.
func otherInstance(name string) *instance {
	for _, in := range cl.instances {
		if in.name != name {
			return in
		}
	}
	return nil
}

// TestConsoleQueueAcrossInstances: an agent's console socket sits on one
// instance; a visitor asks for a person through another (called directly,
// so it cannot land on the socket's instance): the waiting conversation
// shows in the agent's live queue within 2 s (the fan-out's NOTIFY wakes
// the socket's instance; its poll alone is every 2 s).
func TestConsoleQueueAcrossInstances(t *testing.T) {
	ctx := context.Background()
	loadAPIKey(t, "belair.localhost")
	agent, as := agentOnSocket(t, "127.0.0.14")
	defer as.CloseNow()
	var socketOn string
	for name := range waitSessions(t, 1, agent) {
		socketOn = name
	}
	via := otherInstance(socketOn)

	visitor := newClient("127.0.0.15", "belair.localhost")
	a, err := visitor.json(ctx, via.addr, "POST", "/api/v1/chat/conversations", `{"name":"Queue","topic":"claims"}`)
	if err != nil || (a.status != 201 && a.status != 200) {
		t.Fatalf("start a chat via %s: %d %v %v", via.name, a.status, a.body, err)
	}
	a, err = visitor.json(ctx, via.addr, "POST", "/api/v1/chat/conversation/handover", "")
	if err != nil || a.status != 200 {
		t.Fatalf("handover via %s: %d %v %v", via.name, a.status, a.body, err)
	}
	id, _ := a.body["id"].(string)
	if a.body["status"] == "active" {
		t.Fatalf("the conversation was assigned at once, not queued: %v", a.body)
	}
	asked := time.Now()
	nextFrame(t, as, "the conversation in the queue on "+socketOn, asked.Add(2*time.Second), func(f map[string]any) bool {
		if f["type"] != "queue" {
			return false
		}
		waiting, _ := f["waiting"].([]any)
		for _, it := range waiting {
			if m, _ := it.(map[string]any); m["id"] == id {
				return true
			}
		}
		return false
	})
	t.Logf("queued via %s, in the queue of the socket on %s after %s", via.name, socketOn, time.Since(asked).Round(time.Millisecond))
	// Leave no waiting conversation behind for the suites after this one.
	if a, err := agent.json(ctx, setup.lb, "POST", "/api/console/v1/chat/conversations/"+id+"/accept", ""); err != nil || a.status != 200 {
		t.Fatalf("accept: %d %v %v", a.status, a.body, err)
	}
}

// TestCobrowseAcrossInstances: a co-browse session whose visitor socket
// and agent's viewer socket sit on different instances (HAProxy's session
// counts say so): the join reaches the visitor, the visitor's events and
// the agent's pointer cross, and the agent's end closes it for both.
func TestCobrowseAcrossInstances(t *testing.T) {
	ctx := context.Background()
	loadAPIKey(t, "belair.localhost")
	agent := newClient("127.0.0.16", "console.localhost")
	signInAgent(t, agent)
	visitor := newClient("127.0.0.17", "belair.localhost")
	a, err := visitor.json(ctx, setup.lb, "POST", "/api/v1/cobrowse/sessions", `{}`)
	if err != nil || a.status != 201 {
		t.Fatalf("start co-browse: %d %v %v", a.status, a.body, err)
	}
	id, _ := a.body["id"].(string)
	code, _ := a.body["code"].(string)
	waitSessions(t, 0, agent, visitor)
	vs := openSocket(t, visitor, "127.0.0.17", "/api/v1/cobrowse/socket")
	defer vs.CloseNow()
	bound := func() time.Time { return time.Now().Add(5 * time.Second) }
	nextFrame(t, vs, "the waiting state", bound(), stateIs("waiting"))

	a, err = agent.json(ctx, setup.lb, "POST", "/api/console/v1/cobrowse/join", `{"code":"`+code+`"}`)
	if err != nil || a.status != 200 {
		t.Fatalf("join: %d %v %v", a.status, a.body, err)
	}
	nextFrame(t, vs, "the active state on the visitor's socket", bound(), stateIs("active"))
	view := openSocket(t, agent, "127.0.0.16", "/api/console/v1/cobrowse/sessions/"+id+"/socket")
	defer view.CloseNow()
	if holders := waitSessions(t, 2, agent, visitor); len(holders) != 2 {
		t.Fatalf("the two sockets are not on two instances: %v", holders)
	}
	nextFrame(t, view, "the active state on the viewer", bound(), stateIs("active"))
	// The viewer's join asks the visitor's socket, on the other instance,
	// for a snapshot.
	nextFrame(t, vs, "the snapshot request", bound(), frameIs("snapshot"))

	send := func(ws *websocket.Conn, v map[string]any) {
		raw, _ := json.Marshal(v)
		if err := ws.Write(ctx, websocket.MessageText, raw); err != nil {
			t.Fatal(err)
		}
	}
	var seqs []float64
	for n := range 5 {
		send(vs, map[string]any{"type": "event", "data": map[string]any{"n": n}})
	}
	for n := range 5 {
		f := nextFrame(t, view, "event", bound(), frameIs("event"))
		if d, _ := f["data"].(map[string]any); d["n"] != float64(n) {
			t.Fatalf("event %v, want n=%d", f, n)
		}
		seq, _ := f["seq"].(float64)
		if len(seqs) > 0 && seq <= seqs[len(seqs)-1] {
			t.Fatalf("seq %v after %v: out of order or twice", seq, seqs)
		}
		seqs = append(seqs, seq)
	}
	send(view, map[string]any{"type": "pointer", "data": map[string]any{"x": 3, "y": 4}})
	if f := nextFrame(t, vs, "the agent's pointer", bound(), frameIs("pointer")); f["data"].(map[string]any)["x"] != 3.0 {
		t.Fatalf("pointer %v", f)
	}

	a, err = agent.json(ctx, setup.lb, "POST", "/api/console/v1/cobrowse/sessions/"+id+"/end", "")
	if err != nil || a.status != 200 {
		t.Fatalf("end: %d %v %v", a.status, a.body, err)
	}
	nextFrame(t, vs, "the end on the visitor's socket", bound(), stateIs("ended"))
	nextFrame(t, view, "the end on the viewer", bound(), stateIs("ended"))
}
