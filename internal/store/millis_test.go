package store_test

import (
	"testing"
	"time"

	"guichet/internal/store"
)

func TestMillis(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 30, 0, 123456789, time.FixedZone("EST", -5*3600))
	cases := []struct {
		name   string
		in     time.Time
		stored int64
		back   time.Time
	}{
		{"zero time is 0", time.Time{}, 0, time.Time{}},
		{"a time, to the millisecond, back in UTC", at, at.UnixMilli(), at.Truncate(time.Millisecond).UTC()},
		{"the epoch reads back as the zero time", time.Unix(0, 0), 0, time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := store.Millis(c.in); got != c.stored {
				t.Fatalf("Millis = %d, want %d", got, c.stored)
			}
			if got := store.FromMillis(c.stored); !got.Equal(c.back) || got.Location() != c.back.Location() {
				t.Fatalf("FromMillis(%d) = %v, want %v", c.stored, got, c.back)
			}
		})
	}
}
