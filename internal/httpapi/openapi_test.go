package httpapi

import (
	"encoding/json"
	"testing"

	"guichet/internal/api/apitest"
	"guichet/internal/brand"
)

// TestSiteConfigMatchesOpenAPI checks the JSON the server injects into every
// page (brand.SiteConfig) against api/openapi.yaml's SiteConfig schema, from
// which the SPA's types are generated: no undeclared property, no missing
// required one, types as declared.
func TestSiteConfigMatchesOpenAPI(t *testing.T) {
	schemas := apitest.Schemas(t)
	// testdata/brands holds a brand the code does not know: the contract
	// must not list the brands.
	for _, dir := range []string{"../../config/brands", "../../testdata/brands"} {
		reg, err := brand.LoadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range reg.All() {
			for _, p := range b.Provinces {
				data, _ := json.Marshal(b.Site(p.Key, p.Languages[0], true, false, brand.EnvProd))
				var v any
				_ = json.Unmarshal(data, &v)
				if err := apitest.Conform(schemas, "SiteConfig", v); err != nil {
					t.Fatalf("%s/%s: %v", b.ID, p.Key, err)
				}
			}
		}
	}
}
