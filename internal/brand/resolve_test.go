package brand

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
)

// vector is one case of testdata/resolution/vectors.json, shared with the
// SPA's resolver; a missing key means the value is absent.
type vector struct {
	Brand string `json:"brand"`
	Query struct {
		Province string `json:"province"`
		Lang     string `json:"lang"`
	} `json:"query"`
	Cookies struct {
		Province string `json:"province"`
		Language string `json:"language"`
	} `json:"cookies"`
	Expect struct {
		Province string `json:"province"`
		Language string `json:"language"`
	} `json:"expect"`
}

func TestResolutionVectors(t *testing.T) {
	r := loadReal(t)
	f, err := os.Open("../../testdata/resolution/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	var vectors []vector
	if err := dec.Decode(&vectors); err != nil {
		t.Fatalf("vectors.json: %v", err)
	}
	if len(vectors) < 25 {
		t.Fatalf("%d vectors, want at least 25", len(vectors))
	}
	for i, v := range vectors {
		name := fmt.Sprintf("%d_%s_%.12q_%.12q", i, v.Brand, v.Query.Province, v.Cookies.Province)
		t.Run(name, func(t *testing.T) {
			b, ok := r.ByID(v.Brand)
			if !ok {
				t.Fatalf("unknown brand %q", v.Brand)
			}
			if v.Expect.Province == "" || v.Expect.Language == "" {
				t.Fatal("vector has no expectation")
			}
			p := b.ResolveProvince(v.Query.Province, v.Cookies.Province)
			l := b.ResolveLanguage(p, v.Query.Lang, v.Cookies.Language)
			if p != v.Expect.Province || l != v.Expect.Language {
				t.Errorf("got %s/%s, want %s/%s", p, l, v.Expect.Province, v.Expect.Language)
			}
		})
	}
}

func TestResolveLanguageOutsideTheBrand(t *testing.T) {
	r := loadReal(t)
	tests := []struct {
		brand, province, query, cookie, want string
	}{
		{"belair", "mb", "", "", "en"},   // not offered: the default province (on) decides
		{"belair", "mb", "fr", "", "fr"}, // ... and its languages
		{"servus", "qc", "fr", "fr", "en"},
		{"intact", "", "", "", "en"},
		{"belair", "QC", "", "", "fr"},
	}
	for _, tt := range tests {
		b, _ := r.ByID(tt.brand)
		if got := b.ResolveLanguage(tt.province, tt.query, tt.cookie); got != tt.want {
			t.Errorf("%s ResolveLanguage(%q, %q, %q) = %q, want %q", tt.brand, tt.province, tt.query, tt.cookie, got, tt.want)
		}
	}
}

func FuzzResolve(f *testing.F) {
	r := loadReal(f)
	brands := r.All()
	f.Add(uint8(0), "QC", "on", "fr", "en")
	f.Add(uint8(1), "ab", "", "", "fr")
	f.Add(uint8(4), "<script>", "\x00", "FR", "é")
	f.Fuzz(func(t *testing.T, brand uint8, queryProvince, cookieProvince, queryLang, cookieLang string) {
		b := brands[int(brand)%len(brands)]
		p := b.ResolveProvince(queryProvince, cookieProvince)
		prov, ok := b.Province(p)
		if !ok || prov.Key != p {
			t.Fatalf("%s: province %q is not offered", b.ID, p)
		}
		l := b.ResolveLanguage(p, queryLang, cookieLang)
		if !slices.Contains(prov.Languages, l) {
			t.Fatalf("%s %s: language %q is not offered", b.ID, p, l)
		}
	})
}
