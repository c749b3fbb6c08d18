package account_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/notify"
	"guichet/internal/store"
	"guichet/internal/testenv"
)

// outbox returns the queued messages, oldest first.
func outbox(t *testing.T, e *env) []testenv.Mail { return e.Mail.All(t) }

func TestNotification(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
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
				before, pokedBefore := len(outbox(t, e)), pokes
				got := e.post(belair, ip, notifyPath(c.id), c.body)
				if got.Status != c.wantStatus || (c.wantCode != "" && got.Code(t) != c.wantCode) {
					t.Fatalf("%d %s, want %d %s", got.Status, got.Body, c.wantStatus, c.wantCode)
				}
				rows := outbox(t, e)[before:]
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
				if row.Template != c.wantTemplate || row.Recipient != "alex@example.com" || row.Language != "fr" || row.Sensitive != 1 {
					t.Fatalf("queued %+v", row)
				}
				link, err := url.Parse(row.Data[notify.DataLink])
				if err != nil || link.Scheme != "https" || link.Host != "belair.example" || link.Path != "/reset" || link.Query().Get("token") == "" {
					t.Fatalf("link %q", row.Data[notify.DataLink])
				}
				if row.Data[notify.DataFirstName] != "Alex" {
					t.Fatalf("data %v", row.Data)
				}
				// The link's token names the account, once.
				consume := func() (account.Account, error) {
					var got account.Account
					err := e.DB.InTx(t.Context(), func(tx *store.Tx) error {
						var err error
						got, err = account.ConsumeResetToken(t.Context(), tx, "belair", link.Query().Get("token"), e.Clock.Now())
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
			e.Clock.Advance(2 * time.Hour)
			body := map[string]string{"mediumType": "EMAIL", "notificationType": "RESET_PSW"}
			before := len(outbox(t, e))
			for range 5 {
				e.post(belair, "203.0.113.9", notifyPath(a.ID), body).Expect(t, 200, "")
			}
			if sent := len(outbox(t, e)) - before; sent != 3 {
				t.Fatalf("%d emails queued, want the cap of 3", sent)
			}
			if rows := e.auditRows(a.ID); !contains(rows, "notification suppressed") {
				t.Fatalf("suppression not audited: %v", rows)
			}
		})
	})
}

func TestResetTokenExpiresAndBelongsToItsBrand(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create(belair, "alex@example.com", nil, "")
		issue := func() string {
			before := len(outbox(t, e))
			e.post(belair, ip, notifyPath(a.ID), map[string]string{"mediumType": "EMAIL", "notificationType": "RESET_PSW"}).Expect(t, 200, "")
			rows := outbox(t, e)[before:]
			if len(rows) != 1 {
				t.Fatalf("%d emails queued, want 1", len(rows))
			}
			link, _ := url.Parse(rows[0].Data[notify.DataLink])
			return link.Query().Get("token")
		}
		consume := func(brandID, token string) error {
			return e.DB.InTx(t.Context(), func(tx *store.Tx) error {
				_, err := account.ConsumeResetToken(t.Context(), tx, brandID, token, e.Clock.Now())
				return err
			})
		}
		expired := issue()
		other := issue()
		e.Clock.Advance(account.ResetTokenTTL)
		if err := consume("belair", expired); !errors.Is(err, account.ErrResetTokenInvalid) {
			t.Fatalf("expired token: %v", err)
		}
		e.Clock.Advance(-account.ResetTokenTTL)
		if err := consume("intact", other); !errors.Is(err, account.ErrResetTokenInvalid) {
			t.Fatalf("another brand: %v", err)
		}
		if err := consume("belair", strings.Repeat("x", 100)); !errors.Is(err, account.ErrResetTokenInvalid) {
			t.Fatalf("junk: %v", err)
		}
	})
}

// TestMessageLanguage: a message goes in the page's language when it is
// one of spec §1's, else in the account's (fallback en).
func TestMessageLanguage(t *testing.T) {
	// {page, account's language}: the message's language.
	want := map[[2]string]string{
		{"en", "fr"}: "en",
		{"fr", "en"}: "fr",
		{"", "fr"}:   "fr",
		{"", "en"}:   "en",
		{"", ""}:     "en",
		{"de", "fr"}: "fr",
		{"de", ""}:   "en",
	}
	for in, lang := range want {
		if got := (account.Account{Language: in[1]}).MessageLanguage(in[0]); got != lang {
			t.Errorf("MessageLanguage(page %q, account %q) = %q; want %q", in[0], in[1], got, lang)
		}
	}
}
