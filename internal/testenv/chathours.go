package testenv

import (
	"time"

	"guichet/internal/store"
	"guichet/internal/testclock"
)

// ChatHours is a Tuesday at 10:00 in Toronto: every sample brand with chat
// hours is open then, in on and qc. The tests of chat, co-browse and the
// application's sockets start their clocks there.
var ChatHours = time.Date(2026, 11, 24, 15, 0, 0, 0, time.UTC)

// NewInChatHours is New with the clock standing at ChatHours.
func NewInChatHours(db *store.DB) *Env {
	e := New(db)
	e.Clock = testclock.At(ChatHours)
	return e
}
