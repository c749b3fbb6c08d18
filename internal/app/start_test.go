package app

import (
	"context"
	"sync"
	"testing"

	"guichet/internal/account"
	"guichet/internal/store/storetest"
)

// TestInstancesStartTogether starts two instances at once on one fresh
// database, as two `guichet serve --dev` behind a load balancer do: both
// start, the migrations and the demo accounts exist once.
func TestInstancesStartTogether(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(t *testing.T) Config
	}{
		{"sqlite", func(t *testing.T) Config { return Config{DataDir: t.TempDir()} }},
		{"postgres", func(t *testing.T) Config { return Config{DatabaseURL: storetest.PostgresURL(t)} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg(t)
			cfg.Dev, cfg.BrandsDir = true, "../../config/brands"
			ctx := context.Background()
			apps := make([]*App, 2)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for i := range apps {
				wg.Go(func() { apps[i], errs[i] = New(ctx, cfg) })
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("instance %d: %v", i, err)
				}
				t.Cleanup(func() { apps[i].DB.Close() })
			}
			db := apps[0].DB
			var accounts, demo, migrations int
			if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM accounts").Scan(&accounts); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM accounts WHERE email = ?", "demo@belair.example").Scan(&demo); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM schema_migrations").Scan(&migrations); err != nil {
				t.Fatal(err)
			}
			if want := account.DemoAccountsPerBrand() * len(apps[0].Brands.All()); accounts != want || demo != 1 {
				t.Fatalf("%d accounts (%d demo@belair), want %d (1)", accounts, demo, want)
			}
			if n, _ := db.Migrate(ctx); n != 0 || migrations == 0 {
				t.Fatalf("%d migrations recorded, %d left to apply", migrations, n)
			}
		})
	}
}
