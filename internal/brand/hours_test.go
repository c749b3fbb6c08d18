package brand

import (
	"testing"
	"time"

	"guichet/config"
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

// spanSpec is an opening, in hours of the local clock, from the spec's §9
// table; nil: closed that day.
type spanSpec struct{ open, close int }

// specHours is spec §9's table, typed in again here (not read from the
// brand files) so that the brand files and the code are both checked
// against it: weekdays, Saturday; Sunday is closed for all.
func specHours(brandID, province string) (weekdays, saturday *spanSpec) {
	switch brandID {
	case "belair":
		switch province {
		case "qc", "on":
			return &spanSpec{8, 20}, &spanSpec{8, 17}
		case "ab":
			return &spanSpec{8, 19}, nil
		case "bc", "nb", "nl", "ns", "pe":
			return &spanSpec{8, 18}, nil
		}
	case "bna":
		if province == "qc" || province == "on" {
			return &spanSpec{8, 20}, &spanSpec{8, 17}
		}
	case "scotia", "servus":
		return &spanSpec{8, 18}, &spanSpec{9, 17}
	}
	return nil, nil // intact, and bna's hidden ab and bc
}

// provinceZone is each province's time zone, typed in independently of the
// brand files (which must agree).
var provinceZone = map[string]string{
	"qc": "America/Toronto", "on": "America/Toronto", "ab": "America/Edmonton",
	"bc": "America/Vancouver", "mb": "America/Winnipeg", "nb": "America/Halifax",
	"nl": "America/St_Johns", "ns": "America/Halifax", "nt": "America/Yellowknife",
	"nu": "America/Iqaluit", "pe": "America/Halifax", "sk": "America/Regina",
	"yt": "America/Whitehorse",
}

func specSpan(brandID, province string, day time.Weekday) *spanSpec {
	weekdays, saturday := specHours(brandID, province)
	switch day {
	case time.Sunday:
		return nil
	case time.Saturday:
		return saturday
	}
	return weekdays
}

// TestOpenEveryBrandProvinceDay: for every brand and province of the
// embedded brand files, and every day of a week (and the days around both
// 2026 daylight saving changes), Open at the minutes around the opening
// and the closing, at midnight and at noon, and NextOpen from each of
// them, against the spec's table.
func TestOpenEveryBrandProvinceDay(t *testing.T) {
	reg, err := LoadFS(config.Brands(), "embedded")
	if err != nil {
		t.Fatal(err)
	}
	// Monday 23 to Sunday 29 November 2026; the Saturdays and Sundays of
	// the daylight saving changes (Sunday 8 March and Sunday 1 November
	// 2026 in Canada) and the Mondays after.
	days := []time.Time{}
	for d := 23; d <= 29; d++ {
		days = append(days, time.Date(2026, time.November, d, 0, 0, 0, 0, time.UTC))
	}
	for _, d := range [][2]int{{3, 7}, {3, 8}, {3, 9}, {10, 31}, {11, 1}, {11, 2}} {
		days = append(days, time.Date(2026, time.Month(d[0]), d[1], 0, 0, 0, 0, time.UTC))
	}
	checked := 0
	for _, b := range reg.All() {
		for _, p := range b.Provinces {
			zone, ok := provinceZone[p.Key]
			if !ok || p.TimeZone != zone {
				t.Errorf("%s %s: time zone %q, want %q", b.ID, p.Key, p.TimeZone, zone)
				continue
			}
			loc, err := time.LoadLocation(zone)
			if err != nil {
				t.Fatal(err)
			}
			for _, day := range days {
				y, m, d := day.Date()
				local := func(h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, loc) }
				span := specSpan(b.ID, p.Key, day.Weekday())
				instants := []time.Time{local(0, 0), local(12, 0), local(23, 59)}
				if span != nil {
					instants = append(instants, local(span.open, 0).Add(-time.Minute), local(span.open, 0),
						local(span.close, 0).Add(-time.Minute), local(span.close, 0))
				}
				for _, at := range instants {
					want := span != nil && !at.Before(local(span.open, 0)) && at.Before(local(span.close, 0))
					if got := b.Open(p.Key, at.UTC()); got != want {
						t.Errorf("%s %s Open(%s) = %v, want %v", b.ID, p.Key, at.Format(time.RFC3339+" Mon"), got, want)
					}
					next, ok := b.NextOpen(p.Key, at.UTC())
					wantNext, wantOK := specNextOpen(b.ID, p.Key, at, loc)
					if ok != wantOK || !next.Equal(wantNext) {
						t.Errorf("%s %s NextOpen(%s) = %s, %v; want %s, %v", b.ID, p.Key, at.Format(time.RFC3339+" Mon"),
							next.Format(time.RFC3339+" Mon"), ok, wantNext.Format(time.RFC3339+" Mon"), wantOK)
					}
					if ok && !want {
						if next.Location().String() != zone {
							t.Errorf("%s %s NextOpen(%s) = %s, not in the province's zone", b.ID, p.Key, at, next)
						}
						if !b.Open(p.Key, next) || b.Open(p.Key, next.Add(-time.Minute)) {
							t.Errorf("%s %s NextOpen(%s) = %s is not an opening", b.ID, p.Key, at, next)
						}
					}
					checked++
				}
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d instants checked", checked)
	}
}

// specNextOpen: the first opening at or after at, by walking the local
// calendar one day at a time; false when the spec gives no hours at all.
func specNextOpen(brandID, province string, at time.Time, loc *time.Location) (time.Time, bool) {
	if w, s := specHours(brandID, province); w == nil && s == nil {
		return time.Time{}, false
	}
	l := at.In(loc)
	for i := 0; i < 14; i++ {
		day := time.Date(l.Year(), l.Month(), l.Day()+i, 0, 0, 0, 0, loc)
		span := specSpan(brandID, province, day.Weekday())
		if span == nil {
			continue
		}
		open := time.Date(day.Year(), day.Month(), day.Day(), span.open, 0, 0, 0, loc)
		closing := time.Date(day.Year(), day.Month(), day.Day(), span.close, 0, 0, 0, loc)
		if !at.Before(open) && at.Before(closing) {
			return at, true
		}
		if at.Before(open) {
			return open, true
		}
	}
	return time.Time{}, false
}

// TestNextOpen: the cases a visitor sees ("back Monday at 8:00"), written
// out by hand with their UTC instants.
func TestNextOpen(t *testing.T) {
	reg, err := LoadFS(config.Brands(), "embedded")
	if err != nil {
		t.Fatal(err)
	}
	utc := func(month time.Month, day, hour, minute int) time.Time {
		return time.Date(2026, month, day, hour, minute, 0, 0, time.UTC)
	}
	never := time.Time{}
	for _, c := range []struct {
		name, brand, province string
		now, want             time.Time // want is zero: never
		wantOffset            string    // the offset NextOpen gives, when not open now
	}{
		// Sunday 29 November 2026 noon in Toronto (17:00 UTC): Monday 8:00 EST.
		{"belair on Sunday to Monday", "belair", "on", utc(time.November, 29, 17, 0), utc(time.November, 30, 13, 0), "-05:00"},
		{"bna qc Sunday to Monday", "bna", "qc", utc(time.November, 29, 17, 0), utc(time.November, 30, 13, 0), "-05:00"},
		// Saturday-less provinces: Friday after closing and Saturday go to Monday.
		{"belair ab Friday 19:00 to Monday", "belair", "ab", utc(time.November, 28, 2, 0), utc(time.November, 30, 15, 0), "-07:00"},
		{"belair bc Saturday to Monday", "belair", "bc", utc(time.November, 28, 20, 0), utc(time.November, 30, 16, 0), "-08:00"},
		{"belair ns Friday 18:00 to Monday", "belair", "ns", utc(time.November, 27, 22, 0), utc(time.November, 30, 12, 0), "-04:00"},
		// Provinces open on Saturday: Friday evening goes to Saturday.
		{"belair qc Friday 20:00 to Saturday 8:00", "belair", "qc", utc(time.November, 28, 1, 0), utc(time.November, 28, 13, 0), "-05:00"},
		{"scotia qc Friday 18:00 to Saturday 9:00", "scotia", "qc", utc(time.November, 27, 23, 0), utc(time.November, 28, 14, 0), "-05:00"},
		{"servus ab Saturday 17:00 to Monday", "servus", "ab", utc(time.November, 29, 0, 0), utc(time.November, 30, 15, 0), "-07:00"},
		// The closing minute is closed: the next day's opening.
		{"belair on Tuesday 20:00", "belair", "on", utc(time.December, 2, 1, 0), utc(time.December, 2, 13, 0), "-05:00"},
		// nl, UTC-3:30 in winter: Sunday to Monday 8:00 NST = 11:30 UTC.
		{"belair nl Sunday to Monday", "belair", "nl", utc(time.November, 29, 15, 0), utc(time.November, 30, 11, 30), "-03:30"},
		{"scotia nl Friday 18:00 NST to Saturday 9:00", "scotia", "nl", utc(time.November, 27, 21, 30), utc(time.November, 28, 12, 30), "-03:30"},
		// nl in summer, UTC-2:30: before opening on a Wednesday.
		{"belair nl summer 07:00 NDT", "belair", "nl", utc(time.July, 15, 9, 30), utc(time.July, 15, 10, 30), "-02:30"},
		// DST starts Sunday 8 March 2026: Saturday evening (EST) to Monday 8:00 EDT (12:00 UTC).
		{"belair on over the spring change", "belair", "on", utc(time.March, 8, 0, 0), utc(time.March, 9, 12, 0), "-04:00"},
		{"belair nl over the spring change", "belair", "nl", utc(time.March, 7, 12, 0), utc(time.March, 9, 10, 30), "-02:30"},
		{"belair ab over the spring change", "belair", "ab", utc(time.March, 8, 18, 0), utc(time.March, 9, 14, 0), "-06:00"},
		// DST ends Sunday 1 November 2026: Saturday (EDT) to Monday 8:00 EST (13:00 UTC).
		{"belair on over the fall change", "belair", "on", utc(time.October, 31, 22, 0), utc(time.November, 2, 13, 0), "-05:00"},
		{"belair nl over the fall change", "belair", "nl", utc(time.November, 1, 12, 0), utc(time.November, 2, 11, 30), "-03:30"},
		{"scotia bc over the fall change", "scotia", "bc", utc(time.November, 1, 9, 0), utc(time.November, 2, 16, 0), "-08:00"},
		// Never.
		{"intact never", "intact", "qc", utc(time.November, 25, 17, 0), never, ""},
		{"intact nl never", "intact", "nl", utc(time.November, 29, 17, 0), never, ""},
		{"bna hidden ab never", "bna", "ab", utc(time.November, 25, 17, 0), never, ""},
		{"province not offered", "servus", "qc", utc(time.November, 25, 17, 0), never, ""},
		{"garbage province", "belair", "<x>", utc(time.November, 25, 17, 0), never, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, _ := reg.ByID(c.brand)
			got, ok := b.NextOpen(c.province, c.now)
			if c.want.IsZero() {
				if ok || !got.IsZero() {
					t.Fatalf("NextOpen = %s, %v; want never", got, ok)
				}
				return
			}
			if !ok || !got.Equal(c.want) {
				t.Fatalf("NextOpen(%s) = %s, %v; want %s", c.now, got, ok, c.want)
			}
			if off := got.Format("-07:00"); off != c.wantOffset {
				t.Errorf("NextOpen offset %s, want %s (the province's)", off, c.wantOffset)
			}
		})
	}
	// Open now: now itself.
	b, _ := reg.ByID("belair")
	now := utc(time.November, 25, 17, 0) // Wednesday noon in Toronto
	if got, ok := b.NextOpen("qc", now); !ok || !got.Equal(now) {
		t.Fatalf("NextOpen while open = %s, %v", got, ok)
	}
}
