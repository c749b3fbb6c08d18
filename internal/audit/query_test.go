package audit_test

import (
	"slices"
	"testing"
	"time"

	"guichet/internal/audit"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

func TestQueries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		for i, e := range []audit.Event{
			{Brand: "belair", AccountID: "a1", Event: "login.authentication", Outcome: "ok"},
			{Brand: "belair", AccountID: "a1", Event: "login.sso", Outcome: "ok"},
			{Brand: "belair", AccountID: "a1", Event: "login.authentication", Outcome: "wrong_password"},
			{Brand: "intact", AccountID: "a1", Event: "login.authentication", Outcome: "ok"},
			{Brand: "belair", AccountID: "a1", Event: "recovery.password", Outcome: "wrong_phone"},
		} {
			e.At = at.Add(time.Duration(i) * time.Hour)
			if err := audit.Record(t.Context(), db, e); err != nil {
				t.Fatal(err)
			}
		}
		times, err := audit.Times(t.Context(), db, "belair", "a1", "ok", 10, "login.authentication", "login.sso")
		if err != nil || !slices.Equal(times, []time.Time{at.Add(time.Hour), at}) {
			t.Fatalf("Times = %v, %v", times, err)
		}
		if times, err := audit.Times(t.Context(), db, "belair", "a1", "ok", 1, "login.authentication", "login.sso"); err != nil || len(times) != 1 {
			t.Fatalf("Times limit 1 = %v, %v", times, err)
		}
		for since, want := range map[time.Time]int{at: 1, at.Add(4 * time.Hour): 0} {
			if n, err := audit.CountSince(t.Context(), db, "belair", "a1", "wrong_phone", since); err != nil || n != want {
				t.Fatalf("CountSince(%v) = %d, %v; want %d", since, n, err, want)
			}
		}
		between := func(from, to time.Time, brands ...string) []string {
			t.Helper()
			c, err := audit.Between(t.Context(), db, from, to, brands)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var out []string
			for c.Next() {
				e, err := c.Event()
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, e.At.Format("15")+" "+e.Brand+" "+e.Outcome)
			}
			if err := c.Err(); err != nil {
				t.Fatal(err)
			}
			return out
		}
		if got, want := between(at.Add(time.Hour), at.Add(4*time.Hour)), []string{"10 belair ok", "11 belair wrong_password", "12 intact ok"}; !slices.Equal(got, want) {
			t.Fatalf("Between = %v, want %v", got, want)
		}
		if got, want := between(at, at.Add(5*time.Hour), "intact"), []string{"12 intact ok"}; !slices.Equal(got, want) {
			t.Fatalf("Between intact = %v, want %v", got, want)
		}
		if n, err := audit.PurgeBefore(t.Context(), db, at.Add(2*time.Hour)); err != nil || n != 2 {
			t.Fatalf("PurgeBefore = %d, %v; want 2", n, err)
		}
		if got := between(at, at.Add(5*time.Hour)); len(got) != 3 {
			t.Fatalf("after the purge: %v", got)
		}
	})
}
