package app

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"
	"testing"

	"guichet/internal/devseed"
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
				wg.Go(func() { apps[i], errs[i] = newApp(ctx, cfg) })
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
			if want := devseed.AccountsPerBrand() * len(apps[0].Brands.All()); accounts != want || demo != 1 {
				t.Fatalf("%d accounts (%d demo@belair), want %d (1)", accounts, demo, want)
			}
			if n, _ := db.Migrate(ctx); n != 0 || migrations == 0 {
				t.Fatalf("%d migrations recorded, %d left to apply", migrations, n)
			}
		})
	}
}

// TestRegistrationSessionSettings: a malformed or short key list is refused
// (serve and check-config), and the short session TTL only with --dev.
func TestRegistrationSessionSettings(t *testing.T) {
	good := "k1:" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("x", 32)))
	cases := []struct {
		cfg  Config
		fail string
	}{
		{Config{}, ""},
		{Config{RegistrationJWTKeys: good}, ""},
		{Config{RegistrationJWTKeys: "k1:" + base64.StdEncoding.EncodeToString([]byte("short"))}, "at least 32"},
		{Config{RegistrationJWTKeys: "nonsense"}, "GUICHET_REGISTRATION_JWT_KEYS"},
		{Config{RegistrationSessionTTL: "20s"}, "--dev only"},
		{Config{Dev: true, RegistrationSessionTTL: "20s"}, ""},
		{Config{Dev: true, RegistrationSessionTTL: "2h"}, "1s to 30m0s"},
		{Config{Dev: true, RegistrationSessionTTL: "soon"}, "want a duration"},
	}
	for _, c := range cases {
		_, _, err := RegistrationSession(c.cfg)
		if c.fail == "" && err != nil || c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail)) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.fail)
		}
	}
	cfg := Config{DataDir: t.TempDir(), BrandsDir: "../../config/brands", Mail: "log", RegistrationJWTKeys: "k1:c2hvcnQ="}
	if _, err := newApp(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "GUICHET_REGISTRATION_JWT_KEYS") {
		t.Fatalf("New with a short key: %v", err)
	}
}
