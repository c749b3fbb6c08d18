package brand

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// promoBlock is a valid promo panel for the test fixture, both languages
// showing promo.svg.
const promoBlock = `promo:
  en:
    title: Your policy in your pocket
    text: See your policies wherever you are.
    image: promo.svg
    link: {url: https://www.example.com/en/app, text: Discover the app}
  fr:
    title: Votre police dans votre poche
    text: Consultez vos polices où que vous soyez.
    image: promo.svg
    imageAlt: Un téléphone
    link: {url: https://www.example.com/fr/app, text: Découvrir l’application}
`

// withPromo is the fixture brand with a promo panel, edited by edits (pairs
// of old, new text in the promo block).
func withPromo(id string, edits ...string) string {
	block := promoBlock
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(block, edits[i]) {
			panic("promo edit not found: " + edits[i])
		}
		block = strings.Replace(block, edits[i], edits[i+1], 1)
	}
	return brandFile(id) + block
}

// spaWith is the SPA's built files holding the given brand images.
func spaWith(images ...string) fstest.MapFS {
	fsys := fstest.MapFS{"index.html": {Data: []byte("<html></html>")}}
	for _, img := range images {
		fsys["brands/"+img] = &fstest.MapFile{Data: []byte("<svg/>")}
	}
	return fsys
}

func TestPromoProblems(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string // "field: message", after the file name
	}{
		{"no French panel", brandFile("a") + "promo:\n  en: {title: T, text: X, image: promo.svg, link: {url: /x, text: L}}\n",
			[]string{"promo.fr: required field is missing"}},
		{"no title", withPromo("a", "    title: Your policy in your pocket\n", ""),
			[]string{"promo.en.title: required field is missing"}},
		{"empty text", withPromo("a", "text: Consultez vos polices où que vous soyez.", `text: " "`),
			[]string{"promo.fr.text: must not be empty"}},
		{"title too long", withPromo("a", "title: Your policy in your pocket", "title: "+strings.Repeat("é", 81)),
			[]string{"promo.en.title: is 81 characters long, more than the 80 the panel holds"}},
		{"alt of spaces", withPromo("a", "imageAlt: Un téléphone", `imageAlt: "  "`),
			[]string{"promo.fr.imageAlt: is only spaces (leave it out to mark the image decorative)"}},
		{"image with a folder", withPromo("a", "image: promo.svg", "image: ../secret/promo.svg"),
			[]string{`promo.en.image: "../secret/promo.svg" must be a file name such as promo.svg`}},
		{"image not an image", withPromo("a", "image: promo.svg", "image: promo.yaml"),
			[]string{`promo.en.image: "promo.yaml" must be a file name such as promo.svg`}},
		{"link not https", withPromo("a", "url: https://www.example.com/fr/app", "url: http://www.example.com/fr/app"),
			[]string{`promo.fr.link.url: "http://www.example.com/fr/app" is not an https URL or a path starting with /`}},
		{"link without text", withPromo("a", ", text: Discover the app}", "}"),
			[]string{"promo.en.link.text: required field is missing"}},
		{"unknown promo field", withPromo("a", "    image: promo.svg\n", "    image: promo.svg\n    colour: red\n"),
			[]string{"promo.en.colour: unknown field (expected one of: title, text, image, imageAlt, link)"}},
		{"app link in one language", brandFile("a", "googlePlay: {en: https://play.example.com/en, fr: https://play.example.com/fr}", "googlePlay: {en: https://play.example.com/en}"),
			[]string{"links.googlePlay: give the link in both languages (en and fr), or leave googlePlay out when the brand has no app there"}},
		{"image in neither place", withPromo("a"),
			[]string{`promo.en.image: image "promo.svg" not found: put it in {dir}/a/promo.svg, or in web/public/brands/a/ and rebuild (make build)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeDir(t, map[string]string{"a.yaml": tt.file})
			_, err := LoadDir(dir, WithAssets(spaWith()))
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("LoadDir = %v, want a *LoadError", err)
			}
			for _, w := range tt.want {
				w = strings.ReplaceAll(w, "{dir}", dir)
				if !strings.Contains(err.Error(), filepath.Join(dir, "a.yaml")+": "+w) {
					t.Errorf("missing problem\n  %s\nin\n%s", w, err)
				}
			}
		})
	}
}

// TestPromoImages: an image is found in the brands directory (<id>/<file>,
// then served by the registry) or in the SPA's built files
// (brands/<id>/<file>); in neither, loading fails whichever way the brands
// were given.
func TestPromoImages(t *testing.T) {
	own := []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)

	dir := writeDir(t, map[string]string{"a.yaml": withPromo("a")})
	if err := os.Mkdir(filepath.Join(dir, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "promo.svg"), own, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := LoadDir(dir, WithAssets(spaWith()))
	if err != nil {
		t.Fatalf("image in the brands directory: %v", err)
	}
	if data, ok := r.Image("/brands/a/promo.svg"); !ok || string(data) != string(own) {
		t.Fatalf("Image = %q, %v; want the brands directory's file", data, ok)
	}
	if _, ok := r.Image("/brands/a/a.yaml"); ok {
		t.Fatal("the registry serves a file no promo names")
	}

	// In the SPA only: valid, and nothing served by the registry.
	dir = writeDir(t, map[string]string{"a.yaml": withPromo("a")})
	r, err = LoadDir(dir, WithAssets(spaWith("a/promo.svg")))
	if err != nil {
		t.Fatalf("image in the SPA: %v", err)
	}
	if _, ok := r.Image("/brands/a/promo.svg"); ok {
		t.Fatal("the registry holds an image of the SPA")
	}
	// Another brand's image does not count.
	if _, err := LoadDir(dir, WithAssets(spaWith("b/promo.svg"))); err == nil {
		t.Fatal("brand a loaded with only brand b's image")
	}

	// The embedded samples (LoadFS) have no image folder: the SPA must hold it.
	fsys := fstest.MapFS{"a.yaml": {Data: []byte(withPromo("a"))}}
	_, err = LoadFS(fsys, "embedded", WithAssets(spaWith()))
	if err == nil || !strings.Contains(err.Error(), `embedded/a.yaml: promo.en.image: image "promo.svg" not found in web/public/brands/a/ (built into the binary: make build)`) {
		t.Fatalf("LoadFS without the image = %v", err)
	}
	// Both languages name the same file: reported once, for English.
	if strings.Contains(err.Error(), "promo.fr.image") {
		t.Fatalf("the same image reported twice:\n%v", err)
	}
	if _, err := LoadFS(fsys, "embedded", WithAssets(spaWith("a/promo.svg"))); err != nil {
		t.Fatalf("LoadFS with the image in the SPA: %v", err)
	}

	// A French image of its own is looked for too.
	fr := withPromo("a", "    image: promo.svg\n    imageAlt", "    image: promo-fr.webp\n    imageAlt")
	fsys = fstest.MapFS{"a.yaml": {Data: []byte(fr)}}
	if _, err := LoadFS(fsys, "embedded", WithAssets(spaWith("a/promo.svg"))); err == nil ||
		!strings.Contains(err.Error(), `promo.fr.image: image "promo-fr.webp" not found`) {
		t.Fatalf("LoadFS without the French image = %v", err)
	}

	// Too large.
	big := fstest.MapFS{"a.yaml": {Data: []byte(withPromo("a"))}, "a/promo.svg": {Data: make([]byte, maxImageSize+1)}}
	if _, err := LoadFS(big, "samples", WithAssets(spaWith())); err == nil || !strings.Contains(err.Error(), "samples/a/promo.svg is larger than 256 KB") {
		t.Fatalf("LoadFS with a large image = %v", err)
	}
}

// TestPromoOptional: a brand without promo and without app links is valid,
// and tells the SPA so (null promo, empty links).
func TestPromoOptional(t *testing.T) {
	file := brandFile("a",
		"  appStore: {en: https://apps.example.com/en, fr: https://apps.example.com/fr}\n", "",
		"  googlePlay: {en: https://play.example.com/en, fr: https://play.example.com/fr}\n", "")
	r, err := LoadDir(writeDir(t, map[string]string{"a.yaml": file}), WithAssets(spaWith()))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.ByID("a")
	site := b.Site("", "fr", false, false, EnvProd)
	if site.Brand.Promo != nil || site.Brand.Promos != nil || site.Brand.Links.AppStore != (LocalizedURL{}) {
		t.Fatalf("brand without promo or apps: %+v %+v %+v", site.Brand.Promo, site.Brand.Promos, site.Brand.Links.AppStore)
	}
}

// TestSitePromo: the site configuration carries the page language's panel
// and both, with the image's served path.
func TestSitePromo(t *testing.T) {
	dir := writeDir(t, map[string]string{"a.yaml": withPromo("a")})
	r, err := LoadDir(dir, WithAssets(spaWith("a/promo.svg")))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.ByID("a")
	fr := b.Site("qc", "fr", false, false, EnvProd).Brand
	want := PublicPromo{Title: "Votre police dans votre poche", Text: "Consultez vos polices où que vous soyez.",
		Image: "/brands/a/promo.svg", ImageAlt: "Un téléphone",
		Link: PromoLink{URL: "https://www.example.com/fr/app", Text: "Découvrir l’application"}}
	if fr.Promo == nil || *fr.Promo != want || fr.Promos.FR != want || fr.Promos.EN.Title != "Your policy in your pocket" {
		t.Fatalf("French page promo = %+v, promos %+v", fr.Promo, fr.Promos)
	}
	en := b.Site("on", "en", false, false, EnvProd).Brand
	if en.Promo == nil || en.Promo.Title != "Your policy in your pocket" || en.Promo.ImageAlt != "" {
		t.Fatalf("English page promo = %+v", en.Promo)
	}
}

// TestSamplePromos: every sample brand has a promo in both languages whose
// image is a small SVG of web/public/brands/<id>/, and its French reads as
// Quebec French is typeset (typographic apostrophe, non-breaking spaces).
func TestSamplePromos(t *testing.T) {
	frenchSpace := regexp.MustCompile(` [:;!?»]|« `)
	for _, b := range loadReal(t).All() {
		if b.Promo == nil {
			t.Errorf("%s: no promo", b.ID)
			continue
		}
		for _, lang := range knownLanguages {
			p := b.Promo.For(lang)
			info, err := os.Stat(filepath.Join("../../web/public/brands", b.ID, p.Image))
			if err != nil {
				t.Errorf("%s %s: %v", b.ID, lang, err)
			} else if info.Size() >= 8<<10 {
				t.Errorf("%s %s: %s is %d bytes, over 8 KB", b.ID, lang, p.Image, info.Size())
			}
			if lang != "fr" {
				continue
			}
			for _, s := range []string{p.Title, p.Text, p.ImageAlt, p.Link.Text} {
				if strings.Contains(s, "'") || frenchSpace.MatchString(s) {
					t.Errorf("%s fr: %q: use ’ and non-breaking spaces", b.ID, s)
				}
			}
		}
	}
}
