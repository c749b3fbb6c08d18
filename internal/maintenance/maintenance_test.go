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

// wantCheck fails the test, saying when, if the Reader's answer for brand,
// printed as "<on> <retry after>", is not want.
func wantCheck(t *testing.T, r *maintenance.Reader, brand, want, when string) {
	t.Helper()
	on, retry := r.Check(t.Context(), brand)
	if got := fmt.Sprintf("%v %v", on, retry); got != want {
		t.Fatalf("%s: %s", when, got)
	}
}

// turnOn turns maintenance on as c says, failing the test if it cannot.
func turnOn(t *testing.T, db *store.DB, c maintenance.Change) {
	t.Helper()
	if err := maintenance.On(t.Context(), db, c); err != nil {
		t.Fatal(err)
	}
}

func TestOnOffByBrandAndUntil(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		clock := testclock.New()
		r := maintenance.NewReader(db, clock.Now)
		step := func() { clock.Advance(maintenance.Refresh) }
		wantCheck(t, r, "belair", "false 0s", "nothing on")

		// One brand, with an end: the others are not concerned.
		turnOn(t, db, maintenance.Change{Brand: "belair", Until: clock.Now().Add(time.Hour), At: clock.Now(), Actor: "cli"})
		step()
		wantCheck(t, r, "belair", "true 59m59s", "belair on for an hour")
		wantCheck(t, r, "intact", "false 0s", "intact while belair is on")
		// Every brand, without an end: belair's end is no longer known.
		turnOn(t, db, maintenance.Change{Brand: maintenance.AllBrands, At: clock.Now(), Actor: "cli"})
		step()
		wantCheck(t, r, "belair", "true 0s", "belair under both")
		wantCheck(t, r, "intact", "true 0s", "intact under every brand's")
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
		wantCheck(t, r, "belair", "false 0s", "after off for every brand")
		if wasOn, err := maintenance.Off(ctx, db, maintenance.Change{Brand: "belair", At: clock.Now(), Actor: "cli"}); err != nil || wasOn {
			t.Fatalf("off again = %v, %v; want not on", wasOn, err)
		}

		// An end passes: off by itself, without anyone turning it off.
		turnOn(t, db, maintenance.Change{Brand: "bna", Until: clock.Now().Add(90 * time.Second), At: clock.Now(), Actor: "cli"})
		step()
		wantCheck(t, r, "bna", "true 1m29s", "bna on")
		clock.Advance(89 * time.Second)
		wantCheck(t, r, "bna", "false 0s", "bna after its end")
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
		clock := testclock.New()
		r := maintenance.NewReader(db, clock.Now)
		wantCheck(t, r, "belair", "false 0s", "before")
		turnOn(t, db, maintenance.Change{Brand: "belair", At: clock.Now(), Actor: "cli"})
		clock.Advance(maintenance.Refresh - time.Millisecond)
		wantCheck(t, r, "belair", "false 0s", "read again before Refresh passed")
		clock.Advance(time.Millisecond)
		wantCheck(t, r, "belair", "true 0s", "not seen Refresh after the last read")
	})
}

// TestReaderKeepsTheLastStateWhenTheDatabaseFails: an outage neither
// starts nor ends maintenance.
func TestReaderKeepsTheLastStateWhenTheDatabaseFails(t *testing.T) {
	db := storetest.Open(t)
	clock := testclock.New()
	r := maintenance.NewReader(db, clock.Now)
	turnOn(t, db, maintenance.Change{Brand: "belair", At: clock.Now()})
	wantCheck(t, r, "belair", "true 0s", "on")
	db.Close()
	clock.Advance(maintenance.Refresh)
	wantCheck(t, r, "belair", "true 0s", "with the database closed")
}

// TestReaderIgnoresTheCallersCancellation: the read of the table is the
// instance's, not the request's that happened to trigger it; a visitor who
// hangs up on the first call after a start must not leave the instance
// believing maintenance is off for the next second.
func TestReaderIgnoresTheCallersCancellation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		clock := testclock.New()
		turnOn(t, db, maintenance.Change{Brand: "belair", At: clock.Now(), Actor: "cli"})
		r := maintenance.NewReader(db, clock.Now)
		gone, cancel := context.WithCancel(context.Background())
		cancel()
		if on, _ := r.Check(gone, "belair"); !on {
			t.Fatal("first read with a cancelled request context: maintenance seen off")
		}
		wantCheck(t, r, "belair", "true 0s", "next call within Refresh")
	})
}
