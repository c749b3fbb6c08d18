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

// NextOpen is the first instant at or after now when chat is open in a
// province (now itself when it is open), and false when it never opens (no
// hours, or a province the brand does not offer). Each day's opening is read
// on that day's local calendar, so a day that changes to or from daylight
// saving time opens at its own local clock time.
func (b *Brand) NextOpen(province string, now time.Time) (time.Time, bool) {
	p, ok := b.Province(province)
	if !ok || p.Hours == nil || p.loc == nil {
		return time.Time{}, false
	}
	if b.Open(province, now) {
		return now, true
	}
	local := now.In(p.loc)
	for day := 0; day <= 7; day++ {
		d := time.Date(local.Year(), local.Month(), local.Day()+day, 12, 0, 0, 0, p.loc)
		var span *Span
		switch d.Weekday() {
		case time.Sunday:
			continue
		case time.Saturday:
			span = p.Hours.Saturday
		default:
			span = &p.Hours.Weekdays
		}
		if span == nil {
			continue
		}
		open, okOpen := parseClock(span.Open)
		closing, okClose := parseClock(span.Close)
		if !okOpen || !okClose || open >= closing {
			continue
		}
		at := time.Date(d.Year(), d.Month(), d.Day(), open/60, open%60, 0, 0, p.loc)
		if at.After(now) {
			return at, true
		}
	}
	return time.Time{}, false
}
