package account_test

import (
	"bytes"
	"errors"
	"strconv"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

// counted are the tables a sign-in attempt writes: rate limits, failed
// attempts, locks and temporary password tries (accounts), tickets, audit.
var counted = []string{"rate_limits", "login_failures", "accounts", "login_tickets", "audit_events"}

// Over the hash wait budget, every password check answers 429 BUSY with
// Retry-After at once: no hash, nothing counted, and the same bytes whether
// the account exists, is locked, holds a temporary password or not.
func TestBusyIsRefusedBeforeAnythingCounts(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		active := e.create(belair, "alex@example.com", nil, "")
		locked := e.create(belair, "locked@example.com", func(a *account.Account) { a.Status = account.Locked }, "")
		temp := e.create(belair, "tess@example.com", nil, "Temp-Pass-123!")
		cases := []struct {
			name, path string
			body       map[string]string
		}{
			{"wrong password", authPath(active.ID), map[string]string{"password": "Wrong-Horse-9!"}},
			{"right password", authPath(active.ID), map[string]string{"password": password}},
			{"locked", authPath(locked.ID), map[string]string{"password": password}},
			{"unknown", authPath("AAAAAAAAAAAAAAAAAAAAAA"), map[string]string{"password": password}},
			{"temporary held", authPath(temp.ID), map[string]string{"password": password}},
			{"wrong temporary", tempPath(temp.ID), map[string]string{"tempPassword": "Wrong-Temp-123!"}},
			{"temporary of an unknown account", tempPath("AAAAAAAAAAAAAAAAAAAAAA"), map[string]string{"tempPassword": "Temp-Pass-123!"}},
		}
		hashes := account.LogHashes(e.service.Hasher)
		release := account.SaturateHashers(t, e.service.Hasher)
		before := storetest.Snapshot(t, e.DB, counted...)
		slots := account.HashSlots()
		// (slots + 1) hashes of WaitBudget each, over slots hashers, in
		// whole seconds rounded up.
		wait := time.Duration(slots+1) * account.DefaultWaitBudget / time.Duration(slots)
		retryAfter := strconv.Itoa(int((wait + time.Second - 1) / time.Second))
		var first []byte
		for _, c := range cases {
			got := e.post(belair, ip, c.path, c.body)
			if got.Status != 429 || got.Header.Get("Retry-After") != retryAfter {
				t.Fatalf("%s: %d, Retry-After %q; want 429, %s: %s", c.name, got.Status, got.Header.Get("Retry-After"), retryAfter, got.Body)
			}
			if first == nil {
				first = got.Body
				if want := `{"errorCode":"BUSY","messageKey":"error.busy"}`; string(bytes.TrimSpace(first)) != want {
					t.Fatalf("%s: body %s, want %s", c.name, first, want)
				}
			} else if !bytes.Equal(got.Body, first) {
				t.Fatalf("%s: body %s differs from %s", c.name, got.Body, first)
			}
		}
		// The SSO form post without a ticket checks the password too.
		for _, email := range []string{active.Email, temp.Email, "nobody@example.com"} {
			err := e.service.SignInWithPassword(t.Context(), account.Credentials{
				Brand: belair.ID, Email: email, Password: "Wrong-Horse-9!", IP: ip,
			}, func(*store.Tx, account.Account) error { return nil })
			var busy *account.BusyError
			if !errors.As(err, &busy) || !errors.Is(err, account.ErrBusy) {
				t.Fatalf("form post as %s: %v, want ErrBusy", email, err)
			}
		}
		if n := len(hashes.Take()); n != 0 {
			t.Fatalf("%d hashes ran for refused requests", n)
		}
		if after := storetest.Snapshot(t, e.DB, counted...); after != before {
			t.Fatalf("a refused request changed the counters:\nbefore %s\nafter  %s", before, after)
		}

		// Once the hashers are free, the same requests are checked and counted.
		release()
		e.post(belair, ip, authPath(active.ID), map[string]string{"password": "Wrong-Horse-9!"}).Expect(t, 400, "")
		if n := len(hashes.Take()); n != 1 {
			t.Fatalf("%d hashes for an admitted attempt, want 1", n)
		}
		if storetest.Snapshot(t, e.DB, counted...) == before {
			t.Fatal("an admitted wrong password counted nothing")
		}
	})
}
