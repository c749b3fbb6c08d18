package brand

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"guichet/config"
)

// TestLoadIgnoresSubdirectories: a brand's folder (<id>/faq.yaml for the
// chatbot, promo images) is not a brand file, even a folder named like one,
// whether the brands come from a directory or from the embedded samples.
func TestLoadIgnoresSubdirectories(t *testing.T) {
	dir := writeDir(t, map[string]string{"a.yaml": brandFile("a")})
	for _, sub := range []string{"a", "b.yaml"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sub, "faq.yaml"), []byte("not: [a brand\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r, err := LoadDir(dir)
	if err != nil {
		t.Fatalf("LoadDir with subdirectories: %v", err)
	}
	if len(r.All()) != 1 || r.All()[0].ID != "a" {
		t.Fatalf("LoadDir loaded %d brands", len(r.All()))
	}
	fsys := fstest.MapFS{
		"a.yaml":          {Data: []byte(brandFile("a"))},
		"a/faq.yaml":      {Data: []byte("not: [a brand\n")},
		"b.yaml/faq.yaml": {Data: []byte("not: [a brand\n")},
	}
	if r, err := LoadFS(fsys, "samples"); err != nil || len(r.All()) != 1 {
		t.Fatalf("LoadFS with subdirectories: %v", err)
	}
	// The embedded samples hold <id>/faq.yaml beside the brand files.
	if _, err := config.FAQ("belair"); err != nil {
		t.Fatalf("config.FAQ(belair): %v", err)
	}
	if _, err := LoadFS(config.Brands(), "embedded"); err != nil {
		t.Fatalf("LoadFS(config.Brands()): %v", err)
	}
}
