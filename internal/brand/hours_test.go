package brand

import (
	"testing"
	"time"
)

func TestOpen(t *testing.T) {
	r := loadReal(t)
	zone := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	toronto, edmonton, halifax := zone("America/Toronto"), zone("America/Edmonton"), zone("America/Halifax")
	// 2025-01-15 is a Wednesday, 2025-01-18 a Saturday, 2025-01-19 a Sunday.
	at := func(loc *time.Location, day, hour, minute int) time.Time {
		return time.Date(2025, time.January, day, hour, minute, 0, 0, loc).UTC()
	}
	utc := func(month time.Month, day, hour, minute int) time.Time {
		return time.Date(2025, month, day, hour, minute, 0, 0, time.UTC)
	}
	tests := []struct {
		name, brand, province string
		now                   time.Time
		want                  bool
	}{
		{"belair qc weekday before opening", "belair", "qc", at(toronto, 15, 7, 59), false},
		{"belair qc weekday opening", "belair", "qc", at(toronto, 15, 8, 0), true},
		{"belair qc weekday 19:59", "belair", "qc", at(toronto, 15, 19, 59), true},
		{"belair qc weekday 20:00", "belair", "qc", at(toronto, 15, 20, 0), false},
		{"belair QC any case", "belair", "QC", at(toronto, 15, 12, 0), true},
		{"belair qc Saturday 16:59", "belair", "qc", at(toronto, 18, 16, 59), true},
		{"belair qc Saturday 17:00", "belair", "qc", at(toronto, 18, 17, 0), false},
		{"belair qc Sunday", "belair", "qc", at(toronto, 19, 12, 0), false},
		{"belair on Friday evening", "belair", "on", at(toronto, 17, 19, 30), true},
		{"belair ab weekday 18:59", "belair", "ab", at(edmonton, 15, 18, 59), true},
		{"belair ab weekday 19:00", "belair", "ab", at(edmonton, 15, 19, 0), false},
		{"belair ab Saturday closed", "belair", "ab", at(edmonton, 18, 12, 0), false},
		{"belair ab is read in Edmonton time", "belair", "ab", at(toronto, 15, 9, 30), false},
		{"belair ns weekday 17:59", "belair", "ns", at(halifax, 15, 17, 59), true},
		// nl is UTC-3:30 in winter (NST) and UTC-2:30 in summer (NDT).
		{"belair nl winter 07:59 local", "belair", "nl", utc(time.January, 15, 11, 29), false},
		{"belair nl winter 08:00 local", "belair", "nl", utc(time.January, 15, 11, 30), true},
		{"belair nl winter 17:59 local", "belair", "nl", utc(time.January, 15, 21, 29), true},
		{"belair nl winter 18:00 local", "belair", "nl", utc(time.January, 15, 21, 30), false},
		{"belair nl summer 07:59 local", "belair", "nl", utc(time.July, 16, 10, 29), false},
		{"belair nl summer 08:00 local", "belair", "nl", utc(time.July, 16, 10, 30), true},
		// Toronto moved to daylight time on Sunday 2025-03-09.
		{"belair on Friday before DST, 12:00 UTC = 07:00", "belair", "on", utc(time.March, 7, 12, 0), false},
		{"belair on Monday after DST, 12:00 UTC = 08:00", "belair", "on", utc(time.March, 10, 12, 0), true},
		{"scotia qc Saturday 08:59", "scotia", "qc", at(toronto, 18, 8, 59), false},
		{"scotia qc Saturday 09:00", "scotia", "qc", at(toronto, 18, 9, 0), true},
		{"servus ab weekday 17:59", "servus", "ab", at(edmonton, 15, 17, 59), true},
		{"bna qc weekday", "bna", "qc", at(toronto, 15, 12, 0), true},
		{"bna hidden ab has no hours", "bna", "ab", at(edmonton, 15, 12, 0), false},
		{"intact never", "intact", "qc", at(toronto, 15, 12, 0), false},
		{"intact never on", "intact", "on", at(toronto, 16, 10, 0), false},
		{"province not offered", "belair", "mb", at(toronto, 15, 12, 0), false},
		{"garbage province", "belair", "<script>", at(toronto, 15, 12, 0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := r.ByID(tt.brand)
			if got := b.Open(tt.province, tt.now); got != tt.want {
				t.Errorf("Open(%s, %s) = %v, want %v", tt.province, tt.now, got, tt.want)
			}
		})
	}
}
