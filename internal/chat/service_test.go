package chat

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"guichet/internal/staff"
	"guichet/internal/store"
)

// TestTwoAgentsAcceptAtOnce: two agents accept the same conversation at
// the same moment from their own goroutines, many times: each time exactly
// one wins and the other gets 409 ALREADY_TAKEN.
func TestTwoAgentsAcceptAtOnce(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		scotia, _ := e.Brands.ByID("scotia")
		agents := []staff.Principal{e.addStaff("marie", "Marie", staff.RoleAgent), e.addStaff("luc", "Luc", staff.RoleAgent)}
		for _, a := range agents {
			e.available(a, "en")
		}
		wins := map[string]int{}
		const rounds = 30
		for round := range rounds {
			st, err := e.svc.Start(ctx, StartInput{Brand: scotia, Province: "on", Language: "en", Name: "Alex", Topic: "Sign-in",
				IP: fmt.Sprintf("203.0.113.%d", round)})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			start := make(chan struct{})
			results := make([]error, 2)
			for i, a := range agents {
				wg.Go(func() {
					<-start
					_, results[i] = e.svc.Accept(ctx, a, st.Conversation.ID)
				})
			}
			close(start)
			wg.Wait()
			ok, taken := 0, 0
			for i, err := range results {
				switch {
				case err == nil:
					ok++
					wins[agents[i].ID]++
				case errors.Is(err, ErrAlreadyTaken):
					taken++
				default:
					t.Fatalf("round %d: %v", round, err)
				}
			}
			if ok != 1 || taken != 1 {
				t.Fatalf("round %d: %d won, %d taken", round, ok, taken)
			}
			c, _ := e.svc.Get(ctx, st.Conversation.ID)
			msgs, _ := e.svc.Messages(ctx, c.ID, 0, 0)
			if c.Status != StatusActive || len(msgs) != 1 {
				t.Fatalf("round %d: %s with %d messages", round, c.Status, len(msgs))
			}
			// Free the winner for the next round.
			if _, err := e.svc.End(ctx, c.ID, ""); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("wins: %v", wins)
	})
}

// TestSearchFiltersBrandsBeforeTheLimit: a scotia supervisor finds the
// scotia conversation among 200 newer ones of another brand.
func TestSearchFiltersBrandsBeforeTheLimit(t *testing.T) {
	e := unthrottled(t)
	ctx := t.Context()
	sc, _ := e.Brands.ByID("scotia")
	in, _ := e.Brands.ByID("intact")
	if _, err := e.svc.Offline(ctx, OfflineInput{Brand: sc, Province: "on", Language: "en", Name: "Zed Scotia", Email: "z@example.com", Question: "zebra question"}); err != nil {
		t.Fatal(err)
	}
	for range SearchLimit {
		e.Clock.Advance(time.Second)
		if _, err := e.svc.Offline(ctx, OfflineInput{Brand: in, Province: "on", Language: "en", Name: "Other", Email: "o@example.com", Question: "zebra question"}); err != nil {
			t.Fatal(err)
		}
	}
	sup := staff.Principal{ID: "sup", Name: "Sup", Role: staff.RoleSupervisor, Brands: []string{"scotia"}}
	items, err := e.svc.Search(ctx, sup, "zebra", "", e.Clock.Now().Add(-time.Hour), e.Clock.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Brand != "scotia" {
		t.Fatalf("scotia supervisor's search found %d; want 1", len(items))
	}
}

// TestQueueCapped: the queue lists at most QueueLimit offline messages
// (the longest waiting) with their total, and previews each question.
func TestQueueCapped(t *testing.T) {
	e := unthrottled(t)
	ctx := t.Context()
	sc, _ := e.Brands.ByID("scotia")
	question := strings.Repeat("é", 1500)
	for i := range QueueLimit + 5 {
		e.Clock.Advance(time.Second)
		if _, err := e.svc.Offline(ctx, OfflineInput{Brand: sc, Province: "on", Language: "en", Name: fmt.Sprint("N", i),
			Email: "z@example.com", Question: question}); err != nil {
			t.Fatal(err)
		}
	}
	marie := e.addStaff("marie", "Marie", staff.RoleAgent, "scotia")
	bob := e.addStaff("bob", "Bob", staff.RoleAgent, "intact")
	q, err := e.svc.Queue(ctx, marie)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Offline) != QueueLimit || q.OfflineTotal != QueueLimit+5 || q.Offline[0].Name != "N0" {
		t.Fatalf("offline: %d items, total %d, first %s", len(q.Offline), q.OfflineTotal, q.Offline[0].Name)
	}
	if r := []rune(q.Offline[0].Question); len(r) != QuestionPreview {
		t.Fatalf("question preview of %d characters", len(r))
	}
	if q, err := e.svc.Queue(ctx, bob); err != nil || len(q.Offline) != 0 || q.OfflineTotal != 0 {
		t.Fatalf("another brand's agent: %+v %v", q, err)
	}
}

// TestAutoAssignByWaitingSince: auto-assignment serves the one waiting
// longest (waiting_since, as the queue shows it), not the one created
// first: a bot conversation handed over late waits behind those queued
// before its handover.
func TestAutoAssignByWaitingSince(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		a1 := e.addStaff("a1", "A1", staff.RoleAgent)
		a2 := e.addStaff("a2", "A2", staff.RoleAgent)
		e.available(a1, "en")
		e.available(a2, "en")
		now := store.Millis(e.Clock.Now())
		late := Conversation{ID: newID(), Brand: "bna", Province: "on", Language: "en", Kind: KindLive, Status: StatusWaiting,
			Name: "Handed over late", CreatedAt: now - 600_000, WaitingSince: now - 60_000, UpdatedAt: now}
		long := Conversation{ID: newID(), Brand: "bna", Province: "on", Language: "en", Kind: KindLive, Status: StatusWaiting,
			Name: "Waiting longer", CreatedAt: now - 300_000, WaitingSince: now - 300_000, UpdatedAt: now}
		if err := e.DB.InTx(ctx, func(tx *store.Tx) error {
			if err := insertConversation(ctx, tx, late); err != nil {
				return err
			}
			return insertConversation(ctx, tx, long)
		}); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.AssignWaiting(ctx); err != nil {
			t.Fatal(err)
		}
		// The first assigned goes to a1 (ties: the lower id), the next to a2.
		if c, _ := e.svc.Get(ctx, long.ID); c.AgentID != a1.ID {
			t.Fatalf("the conversation waiting longer went to %q; want it served first (a1)", c.AgentID)
		}
		if c, _ := e.svc.Get(ctx, late.ID); c.AgentID != a2.ID {
			t.Fatalf("the late handover went to %q; want a2", c.AgentID)
		}
	})
}

// TestAutoAssign: on a brand with autoAssign (bna), a new
// conversation goes straight to the available agent serving its language
// with the fewest active conversations, ties to the one given a
// conversation longest ago; with every such agent at the limit it waits.
func TestAutoAssign(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		ana := e.addStaff("ana", "Ana", staff.RoleAgent, "bna")
		ben := e.addStaff("ben", "Ben", staff.RoleAgent, "bna")
		french := e.addStaff("chloe", "Chloé", staff.RoleAgent, "bna")
		e.available(ana, "en")
		e.available(ben, "en")
		e.available(french, "fr")
		start := func(i int) Conversation {
			t.Helper()
			bna, _ := e.Brands.ByID("bna")
			st, err := e.svc.Start(ctx, StartInput{Brand: bna, Province: "on", Language: "en", Name: "Alex", Topic: "Claims",
				IP: fmt.Sprintf("192.0.2.%d", i)})
			if err != nil {
				t.Fatal(err)
			}
			return st.Conversation
		}
		var got []string
		var firstID string
		for i := range 6 {
			e.Clock.Advance(time.Second)
			c := start(i)
			if i == 0 {
				firstID = c.ID
			}
			if c.Status != StatusActive {
				t.Fatalf("conversation %d: %s", i, c.Status)
			}
			got = append(got, c.AgentID)
		}
		// Both idle at first: ana and ben alternate (fewest active, then
		// the one given a conversation longest ago); chloé takes French only.
		if strings.Join(got, ",") != "ana,ben,ana,ben,ana,ben" {
			t.Fatalf("assigned to %v", got)
		}
		queued := start(7)
		if queued.Status != StatusWaiting || queued.AgentID != "" {
			t.Fatalf("everyone at the limit: %s to %q", queued.Status, queued.AgentID)
		}
		// A conversation ends: the one waiting goes to the agent who has
		// room now, without another visitor arriving.
		first, _ := e.svc.Get(ctx, firstID)
		if _, err := e.svc.End(ctx, first.ID, first.AgentName); err != nil {
			t.Fatal(err)
		}
		if c, _ := e.svc.Get(ctx, queued.ID); c.Status != StatusActive || c.AgentID != first.AgentID {
			t.Fatalf("after an end, the queued conversation is %s with %q, want active with %s", c.Status, c.AgentID, first.AgentID)
		}
		// An agent becoming available takes what waits.
		waiting := start(8)
		if waiting.Status != StatusWaiting {
			t.Fatalf("everyone at the limit again: %s", waiting.Status)
		}
		dan := e.addStaff("dan", "Dan", staff.RoleAgent, "bna")
		e.available(dan, "en")
		if c, _ := e.svc.Get(ctx, waiting.ID); c.Status != StatusActive || c.AgentID != dan.ID {
			t.Fatalf("after dan went available: %s with %q", c.Status, c.AgentID)
		}
	})
}
