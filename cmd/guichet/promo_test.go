package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"guichet/internal/testenv"
)

// TestCheckConfigPromoImage: `guichet check-config` fails, naming the file,
// the field and where to put the image, when a brand's promo image is in
// neither the brands directory (<dir>/<id>/) nor the built SPA
// (web/public/brands/<id>/), and passes once the brands directory carries it.
func TestCheckConfigPromoImage(t *testing.T) {
	dir := testenv.BrandsDir(t, "testdata/brands/acme.yaml")
	var out bytes.Buffer
	err := run([]string{"check-config", "--brands-dir", dir}, &out)
	want := filepath.Join(dir, "acme.yaml") + `: promo.en.image: image "promo.svg" not found: put it in ` +
		filepath.Join(dir, "acme", "promo.svg") + ", or in web/public/brands/acme/ and rebuild (make build)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("check-config without acme's promo image = %q, %v; want %q", out.String(), err, want)
	}
	// The five sample brands' images are built into the SPA: only acme is reported.
	if n := strings.Count(err.Error(), "\n") + 1; n != 1 {
		t.Fatalf("%d problems, want acme's alone:\n%v", n, err)
	}

	if err := os.CopyFS(filepath.Join(dir, "acme"), os.DirFS("../../testdata/brands/acme")); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run([]string{"check-config", "--brands-dir", dir}, &out); err != nil || out.String() != dir+": 6 brands valid\n" {
		t.Fatalf("check-config with acme's image in the brands directory = %q, %v", out.String(), err)
	}
}
