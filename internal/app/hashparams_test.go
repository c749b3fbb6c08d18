package app

import (
	"context"
	"strings"
	"testing"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
)

// testHashParams are cheap argon2id parameters (accounttest's): the tests
// that run the application hash with them, so that none depends on how
// fast a hash is (make bench's benchmarks keep the production ones).
var testHashParams = accounttest.Params

// newApp is New with testHashParams unless cfg sets HashParams: every test
// that builds the application goes through it.
func newApp(ctx context.Context, cfg Config) (*App, error) {
	if cfg.HashParams == (account.Params{}) {
		cfg.HashParams = testHashParams
	}
	return New(ctx, cfg)
}

// The hashes of an application are made with Config.HashParams, the
// production parameters when it is unset (`guichet serve`): the demo
// accounts of --dev show which.
func TestHashParamsAreConfigured(t *testing.T) {
	for _, c := range []struct {
		name   string
		params account.Params
		prefix string
	}{
		{"default", account.Params{}, "$argon2id$v=19$m=19456,t=2,p=1$"},
		{"tests'", testHashParams, "$argon2id$v=19$m=64,t=1,p=1$"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			a, err := New(ctx, Config{Dev: true, DataDir: t.TempDir(), BrandsDir: "../../config/brands", HashParams: c.params})
			if err != nil {
				t.Fatal(err)
			}
			defer a.DB.Close()
			demo, err := account.ByEmail(ctx, a.DB, "belair", "demo@belair.example")
			if err != nil {
				t.Fatal(err)
			}
			var stored string
			if err := a.DB.QueryRow(ctx, "SELECT password_hash FROM accounts WHERE id = ?", demo.ID).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(stored, c.prefix) {
				t.Fatalf("demo password hash %s, want %s…", stored, c.prefix)
			}
		})
	}
}
