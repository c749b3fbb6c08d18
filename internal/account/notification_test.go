package account_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/notify"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

type outboxRow struct {
	id, template, recipient, language string
	data                              map[string]string
	sensitive                         int
}

func outbox(t *testing.T, db *store.DB) []outboxRow {
	t.Helper()
	rows, err := db.Query(context.Background(), "SELECT id, template, recipient, language, data, sensitive FROM outbox")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []outboxRow
	for rows.Next() {
		var r outboxRow
		var data string
		if err := rows.Scan(&r.id, &r.template, &r.recipient, &r.language, &data, &r.sensitive); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(data), &r.data); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// added returns the rows of after whose id is not in before.
func added(before, after []outboxRow) []outboxRow {
	seen := map[string]bool{}
	for _, r := range before {
		seen[r.id] = true
	}
	var out []outboxRow
	for _, r := range after {
		if !seen[r.id] {
			out = append(out, r)
		}
	}
	return out
}

func TestNotification(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		pokes := 0
		e.service.Poke = func() { pokes++ } // the worker is woken once per queued email
		a := e.create(belair, "alex@example.com", func(a *account.Account) { a.Language = "fr" }, "")
		cases := []struct {
			name         string
			id           string
			body         map[string]string
			wantStatus   int
			wantCode     string
			wantTemplate string
		}{
			{"reset link", a.ID, map[string]string{"mediumType": "EMAIL", "notificationType": "RESET_PSW"}, 200, "", notify.TemplateResetLink},
			{"locked account notice", a.ID, map[string]string{"mediumType": "EMAIL", "notificationType": "LOCKED_ACCOUNT"}, 200, "", notify.TemplateLockedAccount},
			{"unknown type", a.ID, map[string]string{"mediumType": "EMAIL", "notificationType": "HELLO"}, 400, "UNSUPPORTED_NOTIFICATION", ""},
			{"SMS", a.ID, map[string]string{"mediumType": "SMS", "notificationType": "RESET_PSW"}, 400, "UNSUPPORTED_MEDIUM", ""},
			// An id of no account (a decoy of password reset) answers like an
			// account's and sends nothing.
			{"unknown account", "AAAAAAAAAAAAAAAAAAAAAA", map[string]string{"mediumType": "EMAIL", "notificationType": "RESET_PSW"}, 200, "", ""},
			{"not an id", "nobody", map[string]string{"mediumType": "EMAIL", "notificationType": "RESET_PSW"}, 404, "NOT_FOUND", ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				before, pokedBefore := outbox(t, db), pokes
				got := e.post(belair, ip, notifyPath(c.id), c.body)
				if got.status != c.wantStatus || (c.wantCode != "" && got.code(t) != c.wantCode) {
					t.Fatalf("%d %s, want %d %s", got.status, got.body, c.wantStatus, c.wantCode)
				}
				rows := added(before, outbox(t, db))
				if c.wantTemplate == "" {
					if len(rows) != 0 || pokes != pokedBefore {
						t.Fatal("an email was queued")
					}
					return
				}
				if len(rows) != 1 || pokes != pokedBefore+1 {
					t.Fatalf("%d emails queued, %d pokes, want 1 and 1", len(rows), pokes-pokedBefore)
				}
				row := rows[0]
				if row.template != c.wantTemplate || row.recipient != "alex@example.com" || row.language != "fr" || row.sensitive != 1 {
					t.Fatalf("queued %+v", row)
				}
				link, err := url.Parse(row.data[notify.DataLink])
				if err != nil || link.Scheme != "https" || link.Host != "belair.example" || link.Path != "/reset" || link.Query().Get("token") == "" {
					t.Fatalf("link %q", row.data[notify.DataLink])
				}
				if row.data[notify.DataFirstName] != "Alex" {
					t.Fatalf("data %v", row.data)
				}
				// The link's token names the account, once.
				consume := func() (account.Account, error) {
					var got account.Account
					err := db.InTx(context.Background(), func(tx *store.Tx) error {
						var err error
						got, err = account.ConsumeResetToken(context.Background(), tx, "belair", link.Query().Get("token"), e.clock.Now())
						return err
					})
					return got, err
				}
				if got, err := consume(); err != nil || got.ID != a.ID {
					t.Fatalf("ConsumeResetToken = %v, %v", got.ID, err)
				}
				if _, err := consume(); !errors.Is(err, account.ErrResetTokenInvalid) {
					t.Fatalf("second use: %v", err)
				}
			})
		}
		t.Run("per-account cap answers the same and sends nothing", func(t *testing.T) {
			e.clock.Advance(2 * time.Hour)
			body := map[string]string{"mediumType": "EMAIL", "notificationType": "RESET_PSW"}
			before := len(outbox(t, db))
			for range 5 {
				if got := e.post(belair, "203.0.113.9", notifyPath(a.ID), body); got.status != 200 {
					t.Fatalf("%d %s", got.status, got.body)
				}
			}
			if sent := len(outbox(t, db)) - before; sent != 3 {
				t.Fatalf("%d emails queued, want the cap of 3", sent)
			}
			if rows := e.auditRows(a.ID); !contains(rows, "notification suppressed") {
				t.Fatalf("suppression not audited: %v", rows)
			}
		})
	})
}

func TestResetTokenExpiresAndBelongsToItsBrand(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		a := e.create(belair, "alex@example.com", nil, "")
		issue := func() string {
			before := outbox(t, db)
			got := e.post(belair, ip, notifyPath(a.ID), map[string]string{"mediumType": "EMAIL", "notificationType": "RESET_PSW"})
			if got.status != 200 {
				t.Fatalf("%d %s", got.status, got.body)
			}
			rows := added(before, outbox(t, db))
			if len(rows) != 1 {
				t.Fatalf("%d emails queued, want 1", len(rows))
			}
			link, _ := url.Parse(rows[0].data[notify.DataLink])
			return link.Query().Get("token")
		}
		consume := func(brandID, token string) error {
			return db.InTx(context.Background(), func(tx *store.Tx) error {
				_, err := account.ConsumeResetToken(context.Background(), tx, brandID, token, e.clock.Now())
				return err
			})
		}
		expired := issue()
		other := issue()
		e.clock.Advance(account.ResetTokenTTL)
		if err := consume("belair", expired); !errors.Is(err, account.ErrResetTokenInvalid) {
			t.Fatalf("expired token: %v", err)
		}
		e.clock.Advance(-account.ResetTokenTTL)
		if err := consume("intact", other); !errors.Is(err, account.ErrResetTokenInvalid) {
			t.Fatalf("another brand: %v", err)
		}
		if err := consume("belair", strings.Repeat("x", 100)); !errors.Is(err, account.ErrResetTokenInvalid) {
			t.Fatalf("junk: %v", err)
		}
	})
}
