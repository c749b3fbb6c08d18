package hub

import (
	"maps"
	"slices"
	"testing"
	"time"

	"guichet/internal/chat"
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
	active := func(id, agent string, seq, read int64) chat.PollRow {
		return chat.PollRow{ID: id, Status: chat.StatusActive, AgentID: agent, LastSeq: seq, AgentReadSeq: read}
	}
	waiting := func(id string, seq int64) chat.PollRow {
		return chat.PollRow{ID: id, Status: chat.StatusWaiting, LastSeq: seq}
	}
	type want struct {
		all     bool
		holders []string
	}
	seen := map[string]seenKey{}
	steps := []struct {
		name string
		at   time.Duration
		rows []chat.PollRow
		want want
	}{
		{"first poll: unknown conversations", 0, []chat.PollRow{waiting("c1", 1), active("c2", "ann", 4, 4)}, want{all: true}},
		{"nothing changed", 2 * time.Second, []chat.PollRow{waiting("c1", 1), active("c2", "ann", 4, 4)}, want{}},
		{"a message in an active conversation", 4 * time.Second, []chat.PollRow{active("c2", "ann", 5, 4)}, want{holders: []string{"ann"}}},
		{"the agent read it", 6 * time.Second, []chat.PollRow{active("c2", "ann", 5, 5)}, want{holders: []string{"ann"}}},
		{"a message while waiting", 8 * time.Second, []chat.PollRow{waiting("c1", 2)}, want{all: true}},
		{"accepted", 10 * time.Second, []chat.PollRow{active("c1", "bob", 3, 2)}, want{all: true}},
		{"messages in two agents' conversations", 12 * time.Second, []chat.PollRow{active("c1", "bob", 4, 2), active("c2", "ann", 6, 5)}, want{holders: []string{"ann", "bob"}}},
		{"transferred", 14 * time.Second, []chat.PollRow{active("c2", "bob", 7, 5)}, want{all: true}},
		{"accepted on another instance, never seen waiting", 16 * time.Second, []chat.PollRow{active("c3", "ann", 2, 0)}, want{all: true}},
		{"ended", 18 * time.Second, []chat.PollRow{{ID: "c1", Status: chat.StatusEnded, AgentID: "bob", LastSeq: 5, AgentReadSeq: 4}}, want{all: true}},
		{"silent past seenFor, then a message", 18*time.Second + seenFor + time.Second, []chat.PollRow{active("c2", "bob", 8, 7)}, want{all: true}},
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
