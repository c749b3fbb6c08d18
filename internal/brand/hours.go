package brand

import (
	"time"
	_ "time/tzdata" // opening hours must not depend on the host's zoneinfo
)

// Open reports whether chat is open in a province at an instant, read in the
// province's local time: weekday hours Monday to Friday, Saturday hours on
// Saturday, never on Sunday (spec §4.5). The closing minute is closed. A
// province without hours, or one the brand does not offer, is never open.
func (b *Brand) Open(province string, now time.Time) bool {
	p, ok := b.Province(province)
	if !ok || p.Hours == nil || p.loc == nil {
		return false
	}
	local := now.In(p.loc)
	var span *Span
	switch local.Weekday() {
	case time.Sunday:
		return false
	case time.Saturday:
		span = p.Hours.Saturday
	default:
		span = &p.Hours.Weekdays
	}
	if span == nil {
		return false
	}
	open, okOpen := parseClock(span.Open)
	closing, okClose := parseClock(span.Close)
	minute := local.Hour()*60 + local.Minute()
	return okOpen && okClose && open <= minute && minute < closing
}
