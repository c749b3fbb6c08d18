package account_test

import (
	"bytes"
	"slices"
	"testing"

	"guichet/internal/account"
	"guichet/internal/throttle"
)

// TestWrongLockedUnknownRunOneHash checks that the answer does not tell a
// wrong password from a locked account, an unknown one or one holding a
// temporary password, in time or in bytes: each runs exactly one argon2
// verification with the stored hashes' parameters, and the answers are the
// same bytes. (The time itself is measured by make bench, which reports
// the medians: internal/app/bench_test.go.)
func TestWrongLockedUnknownRunOneHash(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		// Parameters of their own, so that a hash with any others shows.
		params := account.Params{Memory: 96, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}
		e.service.Hasher = account.NewHasher(params)
		e.service.Limits.Authenticate = throttle.Rule{}
		e.service.Lockout.MaxFailures = 1 << 20 // the wrong-password account must stay unlocked
		active := e.create(belair, "alex@example.com", nil, "")
		locked := e.create(belair, "locked@example.com", func(a *account.Account) { a.Status = account.Locked }, "")
		temp := e.create(belair, "tess@example.com", nil, "Temp-Pass-123!")
		// Stored hashes use the service's parameters, as in production.
		for _, h := range []struct{ id, column, password string }{
			{active.ID, "password_hash", password}, {locked.ID, "password_hash", password},
			{temp.ID, "password_hash", password}, {temp.ID, "temp_hash", "Temp-Pass-123!"},
		} {
			stored, err := e.service.Hasher.Hash(t.Context(), h.password)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.DB.Exec(t.Context(), "UPDATE accounts SET "+h.column+" = ? WHERE id = ?", stored, h.id); err != nil {
				t.Fatal(err)
			}
		}
		cases := []struct{ name, id, password string }{
			{"wrong", active.ID, "Wrong-Horse-9!"},
			{"locked, right password", locked.ID, password},
			{"locked, wrong password", locked.ID, "Wrong-Horse-9!"},
			{"unknown", "AAAAAAAAAAAAAAAAAAAAAA", password},
			{"temporary held, its password", temp.ID, password},
			{"temporary held, the temporary password", temp.ID, "Temp-Pass-123!"},
		}
		// The dummy hash of unknown accounts is made on first use.
		e.post(belair, ip, authPath("AAAAAAAAAAAAAAAAAAAAAA"), map[string]string{"password": password})
		hashes := account.LogHashes(e.service.Hasher)
		var first answer
		for i, c := range cases {
			got := e.post(belair, ip, authPath(c.id), map[string]string{"password": c.password})
			if ran := hashes.Take(); !slices.Equal(ran, []account.Params{params}) {
				t.Errorf("%s: hashes %+v, want one with %+v", c.name, ran, params)
			}
			if i == 0 {
				first = got
				if got.Status != 400 || got.Code(t) != "3005" {
					t.Fatalf("%s: %d %s", c.name, got.Status, got.Body)
				}
			} else if got.Status != first.Status || !bytes.Equal(got.Body, first.Body) {
				t.Errorf("%s: %d %s, but %s: %d %s", c.name, got.Status, got.Body, cases[0].name, first.Status, first.Body)
			}
		}
		// The temporary step: one hash too, whether the account holds a
		// temporary password or not, exists or not.
		for _, c := range []struct{ name, id string }{
			{"temporary held", temp.ID}, {"no temporary", active.ID}, {"unknown", "AAAAAAAAAAAAAAAAAAAAAA"},
		} {
			e.post(belair, ip, tempPath(c.id), map[string]string{"tempPassword": "Wrong-Temp-123!"})
			if ran := hashes.Take(); !slices.Equal(ran, []account.Params{params}) {
				t.Errorf("temporary step, %s: hashes %+v, want one with %+v", c.name, ran, params)
			}
		}
	})
}
