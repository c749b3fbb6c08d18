package account_test

import (
	"testing"

	"guichet/internal/account"
	"guichet/internal/brand"
	"guichet/internal/devseed"
	"guichet/internal/policy"
)

func TestSeedDemo(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		brands := []*brand.Brand{belair, intact}
		// A first --dev start runs no argon2id: the demo passwords'
		// hashes at the production parameters are made once (issue 34).
		seeder := account.NewHasher(account.DefaultParams)
		seeded := account.LogHashes(seeder)
		list, err := devseed.Accounts(t.Context(), e.DB, brands, seeder, e.Clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		if ran := seeded.Take(); len(ran) != 0 {
			t.Fatalf("seeding the demo accounts ran %d hashes, want 0", len(ran))
		}
		if len(list) != 7*len(brands) {
			t.Fatalf("%d demo accounts, want 7 per brand", len(list))
		}
		// The production parameters (`guichet serve --dev`'s) apply to the
		// demo accounts too: every
		// check of their passwords runs with them (and no rehash with
		// others). Admission control is tested by counting
		// (hash_internal_test.go); here it must not refuse a sign-in
		// because the machine is slow, so the budget is off.
		e.service.Hasher = account.NewHasher(account.DefaultParams)
		e.service.Hasher.WaitBudget = 0
		hashes := account.LogHashes(e.service.Hasher)
		// production checks the hashes of the last sign-in and returns how
		// many ran.
		production := func(email string) int {
			t.Helper()
			ran := hashes.Take()
			for _, p := range ran {
				if p != account.DefaultParams {
					t.Fatalf("sign-in of %s hashed with %+v, want the production parameters", email, p)
				}
			}
			return len(ran)
		}
		signIn := func(b *brand.Brand, email, pw string) (int, string) {
			f := e.post(b, ip, "/api/v1/accounts/find", map[string]string{"email": email})
			if f.Status != 200 {
				t.Fatalf("find %s: %d", email, f.Status)
			}
			m := f.JSON(t)
			id := m["id"].(string)
			if m["status"] == "T" {
				return e.post(b, ip, tempPath(id), map[string]string{"tempPassword": pw}).Status, "T"
			}
			return e.post(b, ip, authPath(id), map[string]string{"password": pw}).Status, "A"
		}
		cases := []struct {
			local      string
			wantStatus int
			wantFind   string
		}{
			{"demo", 200, "A"},
			{"temp", 200, "T"},
			{"locked", 400, "A"},
			{"ubi", 200, "A"},
			{"francais", 200, "A"},
			{"disabled", 403, "A"},
			{"ubi-nophone", 200, "A"},
		}
		for _, b := range brands {
			for _, c := range cases {
				t.Run(b.ID+"/"+c.local, func(t *testing.T) {
					email := c.local + "@" + b.ID + ".example"
					pw := devseed.Password
					if c.local == "temp" {
						pw = devseed.TemporaryPassword
					}
					if status, find := signIn(b, email, pw); status != c.wantStatus || find != c.wantFind {
						t.Fatalf("sign in: %d (find %s), want %d (find %s)", status, find, c.wantStatus, c.wantFind)
					}
					if n := production(email); c.wantStatus == 200 && n != 1 {
						t.Fatalf("a demo sign-in ran %d hashes, want 1 (no rehash)", n)
					}
				})
			}
		}
		demo, err := account.ByEmail(t.Context(), e.DB, "intact", "demo@intact.example")
		if err != nil {
			t.Fatal(err)
		}
		held, err := policy.ForAccount(t.Context(), e.DB, demo.ID)
		if err != nil || len(held) != 2 {
			t.Fatalf("demo policies: %v %v", held, err)
		}
		for _, p := range held {
			if len(p.Number) != 9 || p.Province != "ab" || p.Role != policy.Holder {
				t.Fatalf("intact ab demo policy %+v: want 9 characters (the brand's rule there)", p)
			}
		}
		ubi, _ := account.ByEmail(t.Context(), e.DB, "belair", "ubi@belair.example")
		covered, err := policy.ForAccount(t.Context(), e.DB, ubi.ID)
		if err != nil || len(covered) != 1 || covered[0].Kind != policy.Auto || covered[0].Role != policy.Driver || !ubi.UBIDriver {
			t.Fatalf("UBI driver: %+v %v %v", covered, ubi.UBIDriver, err)
		}
		if nophone, _ := account.ByEmail(t.Context(), e.DB, "belair", "ubi-nophone@belair.example"); !nophone.UBIDriver || nophone.Phone != "" {
			t.Fatalf("UBI driver without a cell phone: %+v", nophone)
		}
		if fr, _ := account.ByEmail(t.Context(), e.DB, "belair", "francais@belair.example"); fr.Language != "fr" {
			t.Fatalf("francais language %q", fr.Language)
		}

		// Spoil the demo state, then seed again: it comes back, nothing doubles.
		for range 3 {
			temp, _ := account.ByEmail(t.Context(), e.DB, "belair", "temp@belair.example")
			e.post(belair, ip, tempPath(temp.ID), map[string]string{"tempPassword": "wrong"})
		}
		if status, _ := signIn(belair, "temp@belair.example", devseed.TemporaryPassword); status != 409 {
			t.Fatalf("three wrong tries left the temporary password usable: %d", status)
		}
		if _, err := devseed.Accounts(t.Context(), e.DB, brands, seeder, e.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		if status, _ := signIn(belair, "temp@belair.example", devseed.TemporaryPassword); status != 200 {
			t.Fatalf("seeding again did not restore the temporary password: %d", status)
		}
		accounts, policies := e.Count(t, "SELECT COUNT(*) FROM accounts"), e.Count(t, "SELECT COUNT(*) FROM policies")
		links := e.Count(t, "SELECT COUNT(*) FROM account_policies")
		if accounts != 14 || policies != 12 || links != 16 {
			t.Fatalf("after seeding twice: %d accounts, %d policies, %d links; want 14, 12, 16", accounts, policies, links)
		}
	})
}
