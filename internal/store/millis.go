package store

import "time"

// Millis is how a time is stored: unix milliseconds, the zero time as 0 (a
// column's "never" or "not yet").
func Millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// FromMillis reads a stored time back, in UTC; 0 is the zero time.
func FromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}
