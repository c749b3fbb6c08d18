package chatapi

import (
	"guichet/internal/chat"
	"testing"
)

// TestPatchMine: the poll's rows update the agent's own list without a
// read (seq and unread), an older row changes nothing, and a conversation
// missing from the list asks for a read.
func TestPatchMine(t *testing.T) {
	q := chat.Queue{Mine: []chat.Item{{ID: "c1", LastSeq: 5, Unread: 2}, {ID: "c2", LastSeq: 9, Unread: 0}},
		Waiting: []chat.Item{{ID: "w1"}}}
	got, ok := patchMine(q, map[string]chat.PollRow{
		"c1": {ID: "c1", Status: chat.StatusActive, AgentID: "ann", LastSeq: 7, AgentReadSeq: 3}, // two more messages
		"c2": {ID: "c2", Status: chat.StatusActive, AgentID: "ann", LastSeq: 8, AgentReadSeq: 8}, // older than the list
	})
	if !ok || got.Mine[0].LastSeq != 7 || got.Mine[0].Unread != 4 || got.Mine[1].LastSeq != 9 || got.Mine[1].Unread != 0 || len(got.Waiting) != 1 {
		t.Fatalf("patched: %+v", got)
	}
	if q.Mine[0].LastSeq != 5 {
		t.Fatal("patchMine changed the snapshot it was given")
	}
	got, ok = patchMine(got, map[string]chat.PollRow{"c1": {ID: "c1", LastSeq: 7, AgentReadSeq: 7}}) // the agent read them
	if !ok || got.Mine[0].Unread != 0 {
		t.Fatalf("read: %+v", got.Mine[0])
	}
	if _, ok := patchMine(q, map[string]chat.PollRow{"c3": {ID: "c3", LastSeq: 1}}); ok {
		t.Fatal("a conversation not in the list was patched instead of read")
	}
}

// TestQueuePatchedWithoutRead: a visitor's messages in an agent's
// conversation reach that agent's queue (unread, seq) through the poll
// without a queue read; the agent's reads bring unread down the same way
// (on the reading socket at once, on the agent's others by the poll). The poll itself reads once (the window: no socket here subscribes
// to the conversation); a queue read would be four more.
func TestQueuePatchedWithoutRead(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		luc := e.availableAgent("luc", "Luc", "en")
		sl := e.agentSocket(luc)
		sl.Next("queue")
		v := e.visitor("scotia")
		id := v.start()
		sl.Next("queue")
		e.staffWant(luc, "POST", "/console/conversations/"+id+"/accept", "", 200, "")
		mineOf := func(q map[string]any) map[string]any {
			t.Helper()
			mine := q["mine"].([]any)
			if len(mine) != 1 {
				t.Fatalf("mine %v", q)
			}
			return mine[0].(map[string]any)
		}
		mineOf(sl.Next("queue"))
		send := func() {
			t.Helper()
			if _, err := e.svc.VisitorSend(ctx, id, "", "still there?"); err != nil {
				t.Fatal(err)
			}
		}
		// The first poll knows no conversation: every queue reads the
		// database. Its frame, after a message, says the read is done.
		if err := e.hub.Poll(ctx); err != nil {
			t.Fatal(err)
		}
		send()
		if err := e.hub.Poll(ctx); err != nil {
			t.Fatal(err)
		}
		start := mineOf(sl.Next("queue"))
		send()
		send()
		before := e.DB.Statements()
		if err := e.hub.Poll(ctx); err != nil {
			t.Fatal(err)
		}
		it := mineOf(sl.Next("queue"))
		if it["unread"] != start["unread"].(float64)+2 || it["lastSeq"] != start["lastSeq"].(float64)+2 {
			t.Fatalf("after two messages: %v (before: %v)", it, start)
		}
		if n := e.DB.Statements() - before; n != 1 {
			t.Fatalf("%d statements for the poll and the queue frame, want the poll's 1", n)
		}
		// The agent reads one message on this socket: its list at once,
		// for the read's own two statements (the conversation, the
		// update), no queue read and no wake-up of other queues.
		last := int64(it["lastSeq"].(float64))
		before = e.DB.Statements()
		sl.Send(map[string]any{"type": "read", "conversationId": id, "seq": last - 1})
		if it := mineOf(sl.Next("queue")); it["unread"] != 1.0 {
			t.Fatalf("after the agent's read on the socket: %v", it)
		}
		if n := e.DB.Statements() - before; n != 2 {
			t.Fatalf("%d statements for a read frame, want 2", n)
		}
		// The rest read elsewhere (another tab): the poll patches this one.
		if err := e.svc.MarkRead(ctx, id, true, last); err != nil {
			t.Fatal(err)
		}
		before = e.DB.Statements()
		if err := e.hub.Poll(ctx); err != nil {
			t.Fatal(err)
		}
		if it := mineOf(sl.Next("queue")); it["unread"] != 0.0 {
			t.Fatalf("after the agent's read elsewhere: %v", it)
		}
		if n := e.DB.Statements() - before; n != 1 {
			t.Fatalf("%d statements for the poll after a read, want 1", n)
		}
	})
}
