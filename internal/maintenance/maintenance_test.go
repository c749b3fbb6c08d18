package maintenance_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"guichet/internal/maintenance"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
)

// check is a Reader's answer, printed for comparison.
func check(r *maintenance.Reader, brand string) string {
	on, retry := r.Check(context.Background(), brand)
	return fmt.Sprintf("%v %v", on, retry)
}

func TestOnOffByBrandAndUntil(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		clock := testclock.New()
		r := maintenance.NewReader(db, clock.Now)
		step := func() { clock.Advance(maintenance.Refresh) }
		if got := check(r, "belair"); got != "false 0s" {
			t.Fatalf("nothing on: %s", got)
		}

		// One brand, with an end: the others are not concerned.
		if err := maintenance.On(ctx, db, maintenance.Change{Brand: "belair", Until: clock.Now().Add(time.Hour), At: clock.Now(), Actor: "cli"}); err != nil {
			t.Fatal(err)
		}
		step()
		if got := check(r, "belair"); got != "true 59m59s" {
			t.Fatalf("belair on for an hour: %s", got)
		}
		if got := check(r, "intact"); got != "false 0s" {
			t.Fatalf("intact while belair is on: %s", got)
		}
		// Every brand, without an end: belair's end is no longer known.
		if err := maintenance.On(ctx, db, maintenance.Change{Brand: maintenance.AllBrands, At: clock.Now(), Actor: "cli"}); err != nil {
			t.Fatal(err)
		}
		step()
		if got := check(r, "belair"); got != "true 0s" {
			t.Fatalf("belair under both: %s", got)
		}
		if got := check(r, "intact"); got != "true 0s" {
			t.Fatalf("intact under every brand's: %s", got)
		}
		if _, err := maintenance.Off(ctx, db, maintenance.Change{Brand: "belair", At: clock.Now(), Actor: "cli"}); !errors.Is(err, maintenance.ErrEveryBrandOn) {
			t.Fatalf("off for one brand while every brand is on = %v", err)
		}
		windows, err := maintenance.Active(ctx, db, clock.Now())
		if err != nil || len(windows) != 2 || windows[0].Brand != maintenance.AllBrands || windows[1].Brand != "belair" {
			t.Fatalf("Active = %+v, %v", windows, err)
		}
		if wasOn, err := maintenance.Off(ctx, db, maintenance.Change{Brand: maintenance.AllBrands, At: clock.Now(), Actor: "cli"}); err != nil || !wasOn {
			t.Fatalf("off for every brand = %v, %v", wasOn, err)
		}
		step()
		if got := check(r, "belair"); got != "false 0s" {
			t.Fatalf("after off for every brand: %s", got)
		}
		if wasOn, err := maintenance.Off(ctx, db, maintenance.Change{Brand: "belair", At: clock.Now(), Actor: "cli"}); err != nil || wasOn {
			t.Fatalf("off again = %v, %v; want not on", wasOn, err)
		}

		// An end passes: off by itself, without anyone turning it off.
		if err := maintenance.On(ctx, db, maintenance.Change{Brand: "bna", Until: clock.Now().Add(90 * time.Second), At: clock.Now(), Actor: "cli"}); err != nil {
			t.Fatal(err)
		}
		step()
		if got := check(r, "bna"); got != "true 1m29s" {
			t.Fatalf("bna on: %s", got)
		}
		clock.Advance(89 * time.Second)
		if got := check(r, "bna"); got != "false 0s" {
			t.Fatalf("bna after its end: %s", got)
		}
		if err := maintenance.On(ctx, db, maintenance.Change{Brand: "bna", Until: clock.Now(), At: clock.Now()}); err == nil {
			t.Fatal("an end that is not in the future was accepted")
		}

		// Every change is audited with its actor.
		rows, err := db.Query(ctx, "SELECT brand, event, outcome, detail, actor FROM audit_events ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var trail []string
		for rows.Next() {
			var brand, event, outcome, detail, actor string
			if err := rows.Scan(&brand, &event, &outcome, &detail, &actor); err != nil {
				t.Fatal(err)
			}
			trail = append(trail, fmt.Sprintf("%s %s %s %q %s", brand, event, outcome, detail, actor))
		}
		hour := clock.Now().Add(-maintenance.Refresh*4 - 89*time.Second).Add(time.Hour).UTC().Format(time.RFC3339)
		want := []string{
			`belair maintenance.on ok "until ` + hour + `" cli`,
			`* maintenance.on ok "" cli`,
			`* maintenance.off ok "" cli`,
			`belair maintenance.off already_off "" cli`,
		}
		if len(trail) != 5 || fmt.Sprint(trail[:4]) != fmt.Sprint(want) {
			t.Fatalf("audit trail:\n%q\nwant it to start with\n%q", trail, want)
		}
	})
}

// TestReaderRefreshesWithinASecond: another instance's change shows at the
// latest Refresh after the last read, and not one query per call before.
func TestReaderRefreshesWithinASecond(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		clock := testclock.New()
		r := maintenance.NewReader(db, clock.Now)
		if got := check(r, "belair"); got != "false 0s" {
			t.Fatalf("before: %s", got)
		}
		if err := maintenance.On(ctx, db, maintenance.Change{Brand: "belair", At: clock.Now(), Actor: "cli"}); err != nil {
			t.Fatal(err)
		}
		clock.Advance(maintenance.Refresh - time.Millisecond)
		if got := check(r, "belair"); got != "false 0s" {
			t.Fatalf("read again before Refresh passed: %s", got)
		}
		clock.Advance(time.Millisecond)
		if got := check(r, "belair"); got != "true 0s" {
			t.Fatalf("not seen Refresh after the last read: %s", got)
		}
	})
}

// TestReaderKeepsTheLastStateWhenTheDatabaseFails: an outage neither
// starts nor ends maintenance.
func TestReaderKeepsTheLastStateWhenTheDatabaseFails(t *testing.T) {
	db := storetest.Open(t)
	clock := testclock.New()
	r := maintenance.NewReader(db, clock.Now)
	if err := maintenance.On(context.Background(), db, maintenance.Change{Brand: "belair", At: clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if got := check(r, "belair"); got != "true 0s" {
		t.Fatalf("on: %s", got)
	}
	db.Close()
	clock.Advance(maintenance.Refresh)
	if got := check(r, "belair"); got != "true 0s" {
		t.Fatalf("with the database closed: %s", got)
	}
}

// TestReaderIgnoresTheCallersCancellation: the read of the table is the
// instance's, not the request's that happened to trigger it; a visitor who
// hangs up on the first call after a start must not leave the instance
// believing maintenance is off for the next second.
func TestReaderIgnoresTheCallersCancellation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		clock := testclock.New()
		if err := maintenance.On(context.Background(), db, maintenance.Change{Brand: "belair", At: clock.Now(), Actor: "cli"}); err != nil {
			t.Fatal(err)
		}
		r := maintenance.NewReader(db, clock.Now)
		gone, cancel := context.WithCancel(context.Background())
		cancel()
		if on, _ := r.Check(gone, "belair"); !on {
			t.Fatal("first read with a cancelled request context: maintenance seen off")
		}
		if got := check(r, "belair"); got != "true 0s" {
			t.Fatalf("next call within Refresh: %s", got)
		}
	})
}
