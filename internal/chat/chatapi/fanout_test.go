package chatapi

import (
	"fmt"
	"slices"
	"testing"

	"guichet/internal/fanout"
	"guichet/internal/fanout/fanouttest"
	"guichet/internal/staff"
	"guichet/internal/store"
)

// pair is two chat instances, A and B, on one PostgreSQL schema, each
// with its own fanout.Notifier and HTTP server; B's re-dials wait at gate.
// Their hubs' poll never runs (Run is not started): only a notification,
// or the catch-up after a reconnect, delivers across them.
type pair struct {
	a, b   *env
	na, nb *fanout.Notifier
	db     *store.DB
	url    string
	gate   *fanouttest.Gate
}

func instances(t *testing.T) *pair {
	t.Helper()
	p := &pair{}
	p.db, p.url = fanouttest.OpenPostgres(t)
	p.gate = fanouttest.NewGate(p.url)
	p.na = fanouttest.Start(t, p.db, p.url, fanout.Options{})
	other := fanouttest.Pool(t, p.url)
	p.nb = fanouttest.Start(t, other, p.url, fanout.Options{Dial: p.gate.Dial})
	p.a, p.b = newEnvWith(t, p.db, p.na), newEnvWith(t, other, p.nb)
	return p
}

// TestChatAcrossInstances: a visitor's socket on B, the agent on A: the
// accept, the agent's messages (in order) and the visitor's message the
// other way all cross by NOTIFY alone.
func TestChatAcrossInstances(t *testing.T) {
	p := instances(t)
	a, b := p.a, p.b
	ctx := t.Context()
	marie := a.AddStaff("marie", "Marie", staff.RoleAgent)
	b.Front.Knows(marie)
	a.available(marie, "en")
	v := b.visitor("scotia")
	id := v.start()
	s := v.socket(0)
	s.NextState("waiting")
	as := a.agentSocket(marie)
	as.Next("queue")

	a.staffWant(marie, "POST", "/console/conversations/"+id+"/accept", "", 200, "")
	if st := s.NextState("active"); st["agentName"] != "Marie" {
		t.Fatalf("state on B %v", st)
	}
	if m := s.Next("message"); m["seq"] != 1.0 || m["system"].(map[string]any)["key"] != "agentJoined" {
		t.Fatalf("joined on B %v", m)
	}
	for i := range 3 {
		if _, err := a.svc.AgentSend(ctx, marie, id, "", fmt.Sprintf("from A %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		if m := s.Next("message"); m["seq"] != float64(2+i) || m["body"] != fmt.Sprintf("from A %d", i) {
			t.Fatalf("message %d on B: %v", i, m)
		}
	}
	as.Send(map[string]any{"type": "subscribe", "conversationId": id, "after": 4})
	s.Send(map[string]any{"type": "message", "clientId": "v1", "body": "from B"})
	for {
		if f := as.Next("message"); f["clientId"] == "v1" {
			if f["conversationId"] != id || f["seq"] != 5.0 || f["body"] != "from B" {
				t.Fatalf("on A %v", f)
			}
			break
		}
	}
	if p.nb.Stats().Received == 0 {
		t.Fatal("B received no notification: what crossed?")
	}
}

// TestQueueAcrossInstances: an agent's live queue on B follows a
// conversation started on A and accepted by another agent on A.
func TestQueueAcrossInstances(t *testing.T) {
	p := instances(t)
	a, b := p.a, p.b
	marie := b.availableAgent("marie", "Marie", "en")
	qs := b.agentSocket(marie)
	if q := qs.Next("queue"); len(q["waiting"].([]any)) != 0 {
		t.Fatalf("first queue %v", q)
	}
	id := a.visitor("scotia").start()
	for {
		q := qs.Next("queue")
		if w := q["waiting"].([]any); len(w) == 1 {
			if w[0].(map[string]any)["id"] != id {
				t.Fatalf("waiting %v", w)
			}
			break
		}
	}
	luc := a.availableAgent("luc", "Luc", "en")
	a.staffWant(luc, "POST", "/console/conversations/"+id+"/accept", "", 200, "")
	for len(qs.Next("queue")["waiting"].([]any)) != 0 {
	}
}

// TestChatCatchesUpAfterReconnect: B's listening connection killed, five
// messages sent on A while B dials again (their NOTIFYs published, nobody
// on B listening), then B reconnects: its catch-up delivers the five to
// the visitor's socket on B once each, in order, then live ones follow.
func TestChatCatchesUpAfterReconnect(t *testing.T) {
	p := instances(t)
	a, b := p.a, p.b
	ctx := t.Context()
	marie := a.availableAgent("marie", "Marie", "en")
	v := b.visitor("scotia")
	id := a.activeConversation(v, marie)
	s := v.socket(0)
	s.NextState("active")
	s.Next("message") // seq 1 agentJoined

	spy := fanouttest.NewSpy(t, p.url, p.na.Channel())
	fanouttest.Kill(t, p.db, p.nb)
	<-p.gate.Dialing
	for i := range 5 {
		if _, err := a.svc.AgentSend(ctx, marie, id, "", fmt.Sprintf("gap %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	p.na.Notify(ctx, "marker")
	if got := spy.Until("marker"); !slices.Contains(got, id) {
		t.Fatalf("published during the gap %q: the conversation's wake-up is not among them", got)
	}
	p.gate.Release()
	for i := range 5 {
		if m := s.Next("message"); m["seq"] != float64(2+i) || m["body"] != fmt.Sprintf("gap %d", i) {
			t.Fatalf("caught up %d: %v", i, m)
		}
	}
	if _, err := a.svc.AgentSend(ctx, marie, id, "", "live"); err != nil {
		t.Fatal(err)
	}
	if m := s.Next("message"); m["seq"] != 7.0 || m["body"] != "live" {
		t.Fatalf("after the catch-up: %v (a repeat or a loss)", m)
	}
	if st := p.nb.Stats(); st.Connects != 2 {
		t.Fatalf("B %+v: two connects", st)
	}
}
