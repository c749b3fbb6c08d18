// Package testclock is the injected clock of tests (style.md, Go 7): it moves
// only when told, so expiry, lockout and retry tests need no sleeps.
package testclock

import (
	"sync"
	"time"
)

// Clock is a clock tests move by hand; safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a clock standing at the current time, in UTC, to the
// millisecond (what the store keeps).
func New() *Clock { return At(time.Now().UTC().Truncate(time.Millisecond)) }

// At returns a clock standing at t.
func At(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time; pass c.Now where a func() time.Time is injected.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
