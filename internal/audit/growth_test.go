package audit_test

import (
	"strings"
	"testing"
	"time"

	"guichet/internal/audit"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

// TestPurgeInBatches: the retention purge deletes the oldest rows a bounded
// batch a statement (counted), keeps every newer row, and stops at the
// first short batch (issue 34).
func TestPurgeInBatches(t *testing.T) {
	audit.SetPurgeBatch(t, 3)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		cut := time.Date(2024, 11, 29, 0, 0, 0, 0, time.UTC)
		for i := range 9 {
			at := cut.Add(time.Duration(i-7) * time.Hour) // seven before the cut, two after
			if err := audit.Record(t.Context(), db, audit.Event{At: at, Brand: "belair", AccountID: "a1", Event: "login.authentication", Outcome: "ok"}); err != nil {
				t.Fatal(err)
			}
		}
		for _, want := range []struct{ deleted, statements int64 }{{7, 3}, {0, 1}} {
			before := db.Statements()
			n, err := audit.PurgeBefore(t.Context(), db, cut)
			if ran := db.Statements() - before; err != nil || n != want.deleted || ran != want.statements {
				t.Fatalf("purge deleted %d in %d statements (%v), want %d in %d", n, ran, err, want.deleted, want.statements)
			}
		}
		var kept, early int
		if err := db.QueryRow(t.Context(), "SELECT COUNT(*), COALESCE(MIN(at), 0) FROM audit_events").Scan(&kept, &early); err != nil {
			t.Fatal(err)
		}
		if kept != 2 || int64(early) < cut.UnixMilli() {
			t.Fatalf("%d rows kept, the oldest at %d; want the 2 at or after %d", kept, early, cut.UnixMilli())
		}
	})
}

// TestTimeOrderFromAnIndex: the export's range read and the purge's batch
// read the audit trail in time order from audit_events_at, with no sort in
// memory, on both databases: their cost follows the rows they return, not
// the size of the table (issue 34).
func TestTimeOrderFromAnIndex(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		from, to := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
		every, everyArgs := audit.BetweenQuery(from, to)
		two, twoArgs := audit.BetweenQuery(from, to, "belair", "intact")
		for _, q := range []struct {
			what, sql string
			args      []any
		}{
			{"export, every brand", every, everyArgs},
			{"export, two brands", two, twoArgs},
			{"purge batch", audit.Oldest, []any{from.UnixMilli(), 10}},
		} {
			plan := storetest.Plan(t, db, q.sql, q.args...)
			if !strings.Contains(plan, "audit_events_at") || strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "Sort") {
				t.Errorf("%s: the plan does not read audit_events_at in order:\n%s", q.what, plan)
			}
		}
	})
}
