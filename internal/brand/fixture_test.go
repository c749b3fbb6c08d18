package brand

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/resolution/brands.json")

// TestSPABrandsFixture keeps testdata/resolution/brands.json, the public
// configuration of the brands that testdata/resolution/vectors.json names,
// which the SPA's resolver test reads (so the TypeScript side needs no YAML
// parser), in step with config/brands. A brand added to config/brands needs
// no new fixture. Regenerate with:
// go test ./internal/brand -run TestSPABrandsFixture -update
func TestSPABrandsFixture(t *testing.T) {
	reg, err := LoadDir("../../config/brands")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../testdata/resolution/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []struct {
		Brand string `json:"brand"`
	}
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	out := map[string]PublicBrand{}
	for _, v := range vectors {
		b, ok := reg.ByID(v.Brand)
		if !ok {
			t.Fatalf("vectors.json names brand %q, which config/brands does not hold", v.Brand)
		}
		out[b.ID] = b.Site(b.DefaultProvince, b.DefaultLanguage, false, true, EnvDev).Brand
	}
	want, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	const path = "../../testdata/resolution/brands.json"
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (regenerate with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date with config/brands: run go test ./internal/brand -run TestSPABrandsFixture -update", path)
	}
}
