package account_test

import (
	"slices"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/store/storetest"
	"guichet/internal/throttle"
)

// TestWrongLockedUnknownTakeTheSameTime checks that the answer's timing does
// not tell a wrong password from a locked or an unknown account: each runs one
// argon2 verification. The hash is made slow enough (about 15 ms, longer
// under the race detector) that skipping it would stand far outside the
// margin.
func TestWrongLockedUnknownTakeTheSameTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	db := storetest.Open(t)
	e := newEnv(t, db)
	params := account.Params{Memory: 8 * 1024, Time: 3, Threads: 1, SaltLen: 16, KeyLen: 32}
	if raceEnabled {
		params.Memory, params.Time = 16*1024, 6
	}
	e.service.Hasher = account.NewHasher(params)
	e.service.Limits.Authenticate = throttle.Rule{}
	e.service.Lockout.MaxFailures = 1 << 20 // the wrong-password account must stay unlocked
	active := e.create(belair, "alex@example.com", nil, "")
	locked := e.create(belair, "locked@example.com", func(a *account.Account) { a.Status = account.Locked }, "")
	// Stored hashes use the service's parameters, as in production.
	for _, id := range []string{active.ID, locked.ID} {
		h, err := e.service.Hasher.Hash(t.Context(), password)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(t.Context(), "UPDATE accounts SET password_hash = ? WHERE id = ?", h, id); err != nil {
			t.Fatal(err)
		}
	}
	cases := map[string]struct{ id, password string }{
		"wrong":   {active.ID, "Wrong-Horse-9!"},
		"locked":  {locked.ID, password},
		"unknown": {"AAAAAAAAAAAAAAAAAAAAAA", password},
	}
	// Warm up (the dummy hash is made on first use).
	for _, c := range cases {
		e.post(belair, ip, authPath(c.id), map[string]string{"password": c.password})
	}
	const rounds = 11
	medians := map[string]time.Duration{}
	samples := map[string][]time.Duration{}
	for range rounds {
		for name, c := range cases { // interleaved, so load changes hit every case
			start := time.Now()
			got := e.post(belair, ip, authPath(c.id), map[string]string{"password": c.password})
			samples[name] = append(samples[name], time.Since(start))
			if got.status != 400 {
				t.Fatalf("%s: %d %s", name, got.status, got.body)
			}
		}
	}
	for name, s := range samples {
		slices.Sort(s)
		medians[name] = s[len(s)/2]
	}
	var hashes []time.Duration
	for range 5 {
		start := time.Now()
		if _, err := e.service.Hasher.Hash(t.Context(), password); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, time.Since(start))
	}
	slices.Sort(hashes)
	oneHash := hashes[len(hashes)/2]
	lo, hi := medians["wrong"], medians["wrong"]
	for _, m := range medians {
		lo, hi = min(lo, m), max(hi, m)
	}
	// Generous noise margin: half a hash. A path that skipped the hash would
	// differ by a whole one.
	if hi-lo > oneHash/2 {
		t.Fatalf("medians differ by %v (one hash %v): %v", hi-lo, oneHash, medians)
	}
	if fastest := hashes[0]; lo < fastest/2 {
		t.Fatalf("an answer took %v, less than half the fastest hash (%v): %v", lo, fastest, medians)
	}
	t.Logf("medians %v, one hash %v", medians, oneHash)
}
