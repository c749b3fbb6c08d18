package cobrowse

import (
	"context"
	"slices"
	"testing"
	"time"

	"guichet/internal/chat"
	"guichet/internal/fanout"
	"guichet/internal/fanout/fanouttest"
)

// TestCobrowseAcrossInstances: two instances on one PostgreSQL schema, each
// with its own pool, Notifier and server, their polls never running. The
// visitor's socket on A, the agent joins and views on B: the join, the
// visitor's events (in order) and the agent's pointer cross by NOTIFY
// alone. Then B's listening connection is killed and three events are
// sent while it dials again: after the reconnect the viewer gets them once
// each, in order, then live ones.
func TestCobrowseAcrossInstances(t *testing.T) {
	db, url := fanouttest.OpenPostgres(t)
	gate := fanouttest.NewGate(url)
	na := fanouttest.Start(t, db, url, fanout.Options{})
	other := fanouttest.Pool(t, url)
	nb := fanouttest.Start(t, other, url, fanout.Options{Dial: gate.Dial})
	a, b := newEnvWith(t, db, na), newEnvWith(t, other, nb)
	p := b.addStaff("a1", "belair")
	a.Front.Knows(p)

	_, vs, id := a.activeCodeVia(b, p)
	view := b.agent(p).socket("/console/sessions/" + id + "/socket")
	view.NextState(StatusActive)
	vs.Next("snapshot") // the viewer's join, on B, asks A's visitor socket
	send := func(n int) {
		vs.Send(map[string]any{"type": "event", "data": map[string]any{"n": n}})
	}
	var seqs []float64
	expect := func(from, to int) {
		t.Helper()
		for n := from; n < to; n++ {
			f := view.Next("event")
			if f["data"].(map[string]any)["n"] != float64(n) {
				t.Fatalf("event %v, want n=%d (after seqs %v)", f, n, seqs)
			}
			seqs = append(seqs, f["seq"].(float64))
		}
	}
	for n := range 5 {
		send(n)
	}
	expect(0, 5)
	view.Send(map[string]any{"type": "pointer", "data": map[string]any{"x": 1, "y": 2}})
	if f := vs.Next("pointer"); f["data"].(map[string]any)["x"] != 1.0 {
		t.Fatalf("pointer on A %v", f)
	}

	spy := fanouttest.NewSpy(t, url, na.Channel())
	fanouttest.Kill(t, other, nb)
	<-gate.Dialing
	for n := 5; n < 8; n++ {
		send(n)
	}
	fanouttest.Eventually(t, "three events stored", func() bool { return a.session(id).LastSeq >= int64(seqs[4])+3 })
	na.Notify(context.Background(), "marker")
	if got := spy.Until("marker"); !slices.Contains(got, Topic(id)) {
		t.Fatalf("published during the gap %q", got)
	}
	gate.Release()
	expect(5, 8)
	send(8)
	expect(8, 9)
	if !slices.IsSorted(seqs) || len(slices.Compact(slices.Clone(seqs))) != 9 {
		t.Fatalf("seqs %v: in order, none twice", seqs)
	}
	if s := nb.Stats(); s.Connects != 2 || s.Received == 0 {
		t.Fatalf("B %+v", s)
	}
}

// TestPollReadsSubscribedByID: an event appended through another instance
// (whose notification this one never got) and older than any time window
// of the polls (a database blip, another instance's clock) still reaches
// the viewer at the next poll: the poll reads the sessions this instance
// subscribes to by id and wakes those behind their last seq.
func TestPollReadsSubscribedByID(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		other := newEnvWith(t, e.DB, &chat.LocalNotifier{})
		p := e.addStaff("a1", "belair")
		_, _, id := e.activeCode(p)
		view := e.agent(p).socket("/console/sessions/" + id + "/socket")
		view.NextState(StatusActive)
		if _, err := other.svc.AppendEvent(context.Background(), id, SenderVisitor, []byte(`{"n":1}`)); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(time.Minute)
		if err := e.hub.Poll(context.Background()); err != nil {
			t.Fatal(err)
		}
		if f := view.Next("event"); f["data"].(map[string]any)["n"] != 1.0 {
			t.Fatalf("event %v", f)
		}
	})
}
