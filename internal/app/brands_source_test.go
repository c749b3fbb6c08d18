package app

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// startLogged runs New with cfg from a working directory that holds no
// config/brands, and returns the app and what it logged.
func startLogged(t *testing.T, cfg Config) (*App, string) {
	t.Helper()
	t.Chdir(t.TempDir())
	var log bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&log, nil)))
	cfg.Dev, cfg.DataDir = true, t.TempDir()
	a, err := newApp(context.Background(), cfg)
	if err != nil {
		t.Fatalf("New from another working directory: %v", err)
	}
	t.Cleanup(func() { a.DB.Close() })
	return a, log.String()
}

// TestStartsAnywhereWithEmbeddedBrands: without GUICHET_BRANDS_DIR the
// binary serves the sample brands built into it, whatever its working
// directory, and says so.
func TestStartsAnywhereWithEmbeddedBrands(t *testing.T) {
	t.Setenv("GUICHET_BRANDS_DIR", "")
	cfg := ConfigFromEnv()
	a, log := startLogged(t, cfg)
	if n := len(a.Brands.All()); n != 5 {
		t.Fatalf("%d brands, want the 5 samples", n)
	}
	if _, ok := a.Brands.ByID("belair"); !ok {
		t.Fatal("belair not served")
	}
	if !strings.Contains(log, `msg="brands loaded" from="embedded sample brands" count=5`) {
		t.Fatalf("the start log does not say which brands are in use:\n%s", log)
	}
}

// TestBrandsDirWins: a directory given (GUICHET_BRANDS_DIR or --brands-dir)
// is used instead of the embedded samples, and named at start.
func TestBrandsDirWins(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../config/brands/servus.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "servus.yaml"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GUICHET_BRANDS_DIR", dir)
	cfg := ConfigFromEnv()
	a, log := startLogged(t, cfg)
	if all := a.Brands.All(); len(all) != 1 || all[0].ID != "servus" {
		t.Fatalf("brands %v, want servus alone (from %s)", all, dir)
	}
	if !strings.Contains(log, `msg="brands loaded" from=`+dir+` count=1`) {
		t.Fatalf("the start log does not name %s:\n%s", dir, log)
	}
}
