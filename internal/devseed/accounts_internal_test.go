package devseed

import (
	"crypto/sha256"
	"encoding/binary"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// TestSeedersStartingTogether lines up two instances' seeders on one
// database so that the first has looked its first demo account up and found
// none: it creates the account only once the second has looked it up too, or
// is provably waiting for the first to finish. Both must succeed, with each
// demo account and policy once.
func TestSeedersStartingTogether(t *testing.T) {
	brands := testenv.Brands(t).All()[:1]
	first := "looked up demo@" + brands[0].ID + ".example"
	ctx := t.Context()
	for _, tc := range []struct {
		name string
		open func(t *testing.T) (a, b *store.DB)
		// waiting tells that the other seeder waits for the lock.
		waiting func(db *store.DB, started <-chan struct{}) <-chan struct{}
	}{
		{"sqlite", func(t *testing.T) (a, b *store.DB) {
			path := filepath.Join(t.TempDir(), "guichet.db")
			return openTwice(t, func() (*store.DB, error) { return store.OpenSQLiteFile(ctx, path) })
		}, func(_ *store.DB, started <-chan struct{}) <-chan struct{} {
			// SQLite shows no one waiting for its write lock: the other seeder
			// has started, and a second is ample for it to have reached the
			// look-up if nothing held it back.
			ch := make(chan struct{})
			go func() {
				<-started
				time.Sleep(time.Second)
				close(ch)
			}()
			return ch
		}},
		{"postgres", func(t *testing.T) (a, b *store.DB) {
			url := storetest.PostgresURL(t)
			return openTwice(t, func() (*store.DB, error) { return store.Open(ctx, store.Config{URL: url}) })
		}, func(db *store.DB, _ <-chan struct{}) <-chan struct{} {
			sum := sha256.Sum256([]byte(demoLock))
			key := binary.BigEndian.Uint64(sum[:8])
			ch := make(chan struct{})
			go func() {
				defer close(ch)
				for {
					var n int
					err := db.QueryRow(ctx, `SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory'
						AND NOT granted AND classid::bigint = ? AND objid::bigint = ?`, int64(key>>32), int64(key&0xffffffff)).Scan(&n)
					if err != nil || n > 0 {
						return
					}
					time.Sleep(5 * time.Millisecond)
				}
			}()
			return ch
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dbA, dbB := tc.open(t)
			var mu sync.Mutex
			starts, lookups := 0, 0
			bothStarted, bothLooked := make(chan struct{}), make(chan struct{})
			seedHook = func(event string) {
				mu.Lock()
				switch event {
				case "start":
					if starts++; starts == 2 {
						close(bothStarted)
					}
				case first:
					if lookups++; lookups == 2 {
						close(bothLooked)
					} else {
						mu.Unlock()
						select {
						case <-bothLooked:
						case <-tc.waiting(dbA, bothStarted):
						}
						return
					}
				}
				mu.Unlock()
			}
			t.Cleanup(func() { seedHook = func(string) {} })
			now := time.Now()
			errs := make([]error, 2)
			var wg sync.WaitGroup
			cheap := account.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}
			for i, db := range []*store.DB{dbA, dbB} {
				wg.Go(func() { _, errs[i] = Accounts(ctx, db, brands, account.NewHasher(cheap), now) })
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("seeder %d: %v", i, err)
				}
			}
			var accounts, policies, links int
			for q, n := range map[string]*int{"accounts": &accounts, "policies": &policies, "account_policies": &links} {
				if err := dbA.QueryRow(ctx, "SELECT COUNT(*) FROM "+q).Scan(n); err != nil {
					t.Fatal(err)
				}
			}
			wantPolicies, wantLinks := 0, 0
			for _, c := range demoCases {
				wantPolicies += len(c.policies)
				wantLinks += len(c.policies)
				if c.ubi {
					wantLinks++
				}
			}
			if accounts != len(demoCases) || policies != wantPolicies || links != wantLinks {
				t.Fatalf("%d accounts, %d policies, %d links; want %d, %d, %d",
					accounts, policies, links, len(demoCases), wantPolicies, wantLinks)
			}
		})
	}
}

// openTwice opens one database through two pools, as two instances do, and
// migrates it.
func openTwice(t *testing.T, open func() (*store.DB, error)) (a, b *store.DB) {
	t.Helper()
	dbs := make([]*store.DB, 2)
	for i := range dbs {
		db, err := open()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	if _, err := dbs[0].Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return dbs[0], dbs[1]
}
