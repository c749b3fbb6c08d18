package audit_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"guichet/internal/audit"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

func TestRecordAndForAccount(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		montreal, _ := time.LoadLocation("America/Toronto")
		at := time.Date(2026, 3, 1, 9, 30, 0, 0, montreal)
		cases := []struct {
			name    string
			event   audit.Event
			wantErr bool
		}{
			{"complete", audit.Event{At: at, Brand: "belair", AccountID: "acc1", IP: "198.51.100.7", Event: "login.authentication", Outcome: "ok"}, false},
			{"unknown account", audit.Event{At: at.Add(time.Second), Brand: "belair", IP: "198.51.100.7", Event: "login.find", Outcome: "not_found"}, false},
			{"long and broken detail is clipped", audit.Event{At: at.Add(2 * time.Second), Brand: "belair", AccountID: "acc1",
				Event: "login.authentication", Outcome: "wrong_password", Detail: strings.Repeat("é", 150) + "\xff"}, false},
			{"no brand", audit.Event{At: at, Event: "x", Outcome: "ok"}, true},
			{"no event", audit.Event{At: at, Brand: "belair", Outcome: "ok"}, true},
			{"no outcome", audit.Event{At: at, Brand: "belair", Event: "x"}, true},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				err := audit.Record(t.Context(), db, c.event)
				if (err != nil) != c.wantErr {
					t.Fatalf("Record = %v, want error %v", err, c.wantErr)
				}
			})
		}
		got, err := audit.ForAccount(t.Context(), db, "belair", "acc1", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Outcome != "ok" || got[1].Outcome != "wrong_password" {
			t.Fatalf("ForAccount = %+v", got)
		}
		if !got[0].At.Equal(at) || got[0].At.Location() != time.UTC {
			t.Fatalf("time %v, want %v in UTC", got[0].At, at.UTC())
		}
		if d := got[1].Detail; len(d) > 200 || !utf8.ValidString(d) {
			t.Fatalf("detail of %d bytes, valid UTF-8 %v", len(d), utf8.ValidString(d))
		}
		if last, _ := audit.ForAccount(t.Context(), db, "belair", "acc1", 1); len(last) != 1 || last[0].Outcome != "wrong_password" {
			t.Fatalf("limit 1 = %+v, want the most recent", last)
		}
	})
}

func TestRecordInATransactionRollsBackWithIt(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		_ = db.InTx(t.Context(), func(tx *store.Tx) error {
			if err := audit.Record(t.Context(), tx, audit.Event{At: time.Now(), Brand: "belair", AccountID: "a", Event: "x", Outcome: "ok"}); err != nil {
				t.Fatal(err)
			}
			return context.Canceled
		})
		if got, _ := audit.ForAccount(t.Context(), db, "belair", "a", 10); len(got) != 0 {
			t.Fatalf("a rolled back event stayed: %+v", got)
		}
	})
}
