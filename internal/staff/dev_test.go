package staff

import (
	"testing"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
)

// TestSeedDevRunsNoHash: at the production parameters the --dev staff get
// the hash made once (a first --dev start runs no argon2id, issue 34), and
// DevPassword signs them in with it; on other parameters each is hashed.
func TestSeedDevRunsNoHash(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for _, c := range []struct {
			name   string
			hasher *account.Hasher
			known  bool
		}{{"production", account.NewHasher(account.DefaultParams), true}, {"cheap", accounttest.Hasher(), false}} {
			t.Run(c.name, func(t *testing.T) {
				ctx := t.Context()
				if _, err := db.Exec(ctx, `DELETE FROM staff_accounts`); err != nil {
					t.Fatal(err)
				}
				clock := testclock.New()
				c.hasher.WaitBudget = 0 // a slow machine must not refuse the sign-in below
				s, err := New(ctx, db, c.hasher, clock.Now, nil)
				if err != nil {
					t.Fatal(err)
				}
				n, err := s.SeedDev(ctx)
				if err != nil || n != len(DevMembers) {
					t.Fatalf("seeded %d, %v; want %d", n, err, len(DevMembers))
				}
				var known int
				if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM staff_accounts WHERE password_hash = ?`, devPasswordHash).Scan(&known); err != nil {
					t.Fatal(err)
				}
				if want := map[bool]int{true: len(DevMembers), false: 0}[c.known]; known != want {
					t.Fatalf("%d members hold the hash made once, want %d", known, want)
				}
				if _, err := s.SignIn(ctx, DevMembers[0].Email, DevPassword, "", ""); err != nil {
					t.Fatalf("DevPassword does not sign in: %v", err)
				}
				if again, err := s.SeedDev(ctx); err != nil || again != 0 {
					t.Fatalf("seeding again created %d, %v", again, err)
				}
			})
		}
	})
}
