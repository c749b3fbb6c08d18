package chat

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

// TestQueueChanges: which queue sockets a poll wakes. A known active
// conversation's messages or reads wake only its agent's queue; a change
// of status or agent, any change of a waiting conversation, and any change
// of a conversation the poll does not know wake every queue (a missed
// notification must still take an accepted conversation off everyone's
// waiting list); an unchanged row wakes nothing; keys are forgotten after
// seenFor, which only makes the next change wake everyone.
func TestQueueChanges(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 17, 0, 0, 0, time.UTC)
	active := func(id, agent string, seq, read int64) pollRow {
		return pollRow{id: id, status: StatusActive, agent: agent, seq: seq, read: read}
	}
	waiting := func(id string, seq int64) pollRow { return pollRow{id: id, status: StatusWaiting, seq: seq} }
	type want struct {
		all     bool
		holders []string
	}
	seen := map[string]seenKey{}
	steps := []struct {
		name string
		at   time.Duration
		rows []pollRow
		want want
	}{
		{"first poll: unknown conversations", 0, []pollRow{waiting("c1", 1), active("c2", "ann", 4, 4)}, want{all: true}},
		{"nothing changed", 2 * time.Second, []pollRow{waiting("c1", 1), active("c2", "ann", 4, 4)}, want{}},
		{"a message in an active conversation", 4 * time.Second, []pollRow{active("c2", "ann", 5, 4)}, want{holders: []string{"ann"}}},
		{"the agent read it", 6 * time.Second, []pollRow{active("c2", "ann", 5, 5)}, want{holders: []string{"ann"}}},
		{"a message while waiting", 8 * time.Second, []pollRow{waiting("c1", 2)}, want{all: true}},
		{"accepted", 10 * time.Second, []pollRow{active("c1", "bob", 3, 2)}, want{all: true}},
		{"messages in two agents' conversations", 12 * time.Second, []pollRow{active("c1", "bob", 4, 2), active("c2", "ann", 6, 5)}, want{holders: []string{"ann", "bob"}}},
		{"transferred", 14 * time.Second, []pollRow{active("c2", "bob", 7, 5)}, want{all: true}},
		{"accepted on another instance, never seen waiting", 16 * time.Second, []pollRow{active("c3", "ann", 2, 0)}, want{all: true}},
		{"ended", 18 * time.Second, []pollRow{{id: "c1", status: StatusEnded, agent: "bob", seq: 5, read: 4}}, want{all: true}},
		{"silent past seenFor, then a message", 18*time.Second + seenFor + time.Second, []pollRow{active("c2", "bob", 8, 7)}, want{all: true}},
	}
	for _, s := range steps {
		all, holders := queueChanges(seen, s.rows, t0.Add(s.at))
		got := slices.Sorted(maps.Keys(holders))
		if all != s.want.all || !slices.Equal(got, s.want.holders) && len(got)+len(s.want.holders) > 0 {
			t.Errorf("%s: all %v holders %v, want all %v holders %v", s.name, all, got, s.want.all, s.want.holders)
		}
	}
	// Only c2 changed within seenFor of the last poll: the others are forgotten.
	if _, ok := seen["c2"]; !ok || len(seen) != 1 {
		t.Errorf("seen after the last poll: %v", slices.Sorted(maps.Keys(seen)))
	}
}

// TestPatchMine: the poll's rows update the agent's own list without a
// read (seq and unread), an older row changes nothing, and a conversation
// missing from the list asks for a read.
func TestPatchMine(t *testing.T) {
	q := Queue{Mine: []Item{{ID: "c1", LastSeq: 5, Unread: 2}, {ID: "c2", LastSeq: 9, Unread: 0}},
		Waiting: []Item{{ID: "w1"}}}
	got, ok := patchMine(q, map[string]pollRow{
		"c1": {id: "c1", status: StatusActive, agent: "ann", seq: 7, read: 3}, // two more messages
		"c2": {id: "c2", status: StatusActive, agent: "ann", seq: 8, read: 8}, // older than the list
	})
	if !ok || got.Mine[0].LastSeq != 7 || got.Mine[0].Unread != 4 || got.Mine[1].LastSeq != 9 || got.Mine[1].Unread != 0 || len(got.Waiting) != 1 {
		t.Fatalf("patched: %+v", got)
	}
	if q.Mine[0].LastSeq != 5 {
		t.Fatal("patchMine changed the snapshot it was given")
	}
	got, ok = patchMine(got, map[string]pollRow{"c1": {id: "c1", seq: 7, read: 7}}) // the agent read them
	if !ok || got.Mine[0].Unread != 0 {
		t.Fatalf("read: %+v", got.Mine[0])
	}
	if _, ok := patchMine(q, map[string]pollRow{"c3": {id: "c3", seq: 1}}); ok {
		t.Fatal("a conversation not in the list was patched instead of read")
	}
}

// TestQueuePatchedWithoutRead: a visitor's messages in an agent's
// conversation reach that agent's queue (unread, seq) through the poll
// without a queue read; the agent's reads bring unread down the same way
// (on the reading socket at once, on the agent's others by the poll). The poll itself reads once (the window: no socket here subscribes
// to the conversation); a queue read would be four more.
func TestQueuePatchedWithoutRead(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		luc := e.addStaff("luc", "Luc", staff.RoleAgent)
		e.available(luc, "en")
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
		if err := e.hub.poll(ctx); err != nil {
			t.Fatal(err)
		}
		send()
		if err := e.hub.poll(ctx); err != nil {
			t.Fatal(err)
		}
		start := mineOf(sl.Next("queue"))
		send()
		send()
		before := db.Statements()
		if err := e.hub.poll(ctx); err != nil {
			t.Fatal(err)
		}
		it := mineOf(sl.Next("queue"))
		if it["unread"] != start["unread"].(float64)+2 || it["lastSeq"] != start["lastSeq"].(float64)+2 {
			t.Fatalf("after two messages: %v (before: %v)", it, start)
		}
		if n := db.Statements() - before; n != 1 {
			t.Fatalf("%d statements for the poll and the queue frame, want the poll's 1", n)
		}
		// The agent reads one message on this socket: its list at once,
		// for the read's own two statements (the conversation, the
		// update), no queue read and no wake-up of other queues.
		last := int64(it["lastSeq"].(float64))
		before = db.Statements()
		sl.Send(map[string]any{"type": "read", "conversationId": id, "seq": last - 1})
		if it := mineOf(sl.Next("queue")); it["unread"] != 1.0 {
			t.Fatalf("after the agent's read on the socket: %v", it)
		}
		if n := db.Statements() - before; n != 2 {
			t.Fatalf("%d statements for a read frame, want 2", n)
		}
		// The rest read elsewhere (another tab): the poll patches this one.
		if err := e.svc.MarkRead(ctx, id, true, last); err != nil {
			t.Fatal(err)
		}
		before = db.Statements()
		if err := e.hub.poll(ctx); err != nil {
			t.Fatal(err)
		}
		if it := mineOf(sl.Next("queue")); it["unread"] != 0.0 {
			t.Fatalf("after the agent's read elsewhere: %v", it)
		}
		if n := db.Statements() - before; n != 1 {
			t.Fatalf("%d statements for the poll after a read, want 1", n)
		}
	})
}
