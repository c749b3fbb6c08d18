package app

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"guichet/internal/testenv"
)

// TestSixthBrand drops a brand the code does not know (testdata/brands/
// acme.yaml) into a brands directory beside the five of config/brands and
// serves it: its pages carry its site configuration, its API answers, its
// emails go out in its name and colours, it has a logo without a logo file,
// and its promo image comes from its folder in the brands directory
// (testdata/brands/acme/promo.svg).
func TestSixthBrand(t *testing.T) {
	dir := testenv.BrandsDir(t, "testdata/brands/acme.yaml")
	if err := os.CopyFS(filepath.Join(dir, "acme"), os.DirFS("../../testdata/brands/acme")); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Dev: true, DataDir: t.TempDir(), BrandsDir: dir}
	if reg, err := LoadBrands(cfg); err != nil || len(reg.All()) != 6 { // guichet check-config
		t.Fatalf("check-config: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := newApp(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var workers sync.WaitGroup
	for _, w := range a.workers {
		workers.Go(func() { _ = w(ctx) })
	}
	defer a.DB.Close()
	defer workers.Wait()
	defer cancel()
	srv := httptest.NewServer(a.Handler)
	defer srv.Close()
	acme, ok := a.Brands.ByID("acme")
	if !ok {
		t.Fatal("acme not loaded")
	}
	get := func(host, path string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Host = host
		req.Header.Set("api-key", acme.APIKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, string(body)
	}
	post := func(path, body string) (int, map[string]any) {
		t.Helper()
		return apiCall(t, a.Handler, "acme.localhost", acme.APIKey, "POST", path, body)
	}

	siteConfig := regexp.MustCompile(`<script id="guichet-site" type="application/json">(.*?)</script>`)
	for _, tc := range []struct{ host, query, province, language, promo string }{
		{"acme.localhost", "", "on", "en", "Acme in your pocket"},
		{"account.acme.example", "?province=qc&lang=fr", "qc", "fr", "Acme dans votre poche"},
	} {
		res, page := get(tc.host, "/"+tc.query)
		m := siteConfig.FindStringSubmatch(page)
		if res.StatusCode != 200 || m == nil {
			t.Fatalf("%s/: %d, site configuration found: %v", tc.host, res.StatusCode, m != nil)
		}
		var site struct {
			Brand struct {
				ID, Name string
				Promo    struct{ Title, Image string }
			}
			Province, Language string
		}
		if err := json.Unmarshal([]byte(m[1]), &site); err != nil {
			t.Fatal(err)
		}
		if site.Brand.ID != "acme" || site.Brand.Name != "Acme Mutual" || site.Province != tc.province ||
			site.Language != tc.language || !strings.Contains(page, `<html lang="`+tc.language+`"`) ||
			site.Brand.Promo.Title != tc.promo || site.Brand.Promo.Image != "/brands/acme/promo.svg" {
			t.Fatalf("%s/%s: site configuration %+v", tc.host, tc.query, site)
		}
	}

	if res, body := get("acme.localhost", "/api/v1/welcome"); res.StatusCode != 200 ||
		body != `{"brand":"acme","language":"en","province":"on"}`+"\n" {
		t.Fatalf("welcome: %d %s", res.StatusCode, body)
	}
	if status, found := post("/api/v1/accounts/find", `{"email":"demo@acme.example"}`); status != 200 || found["status"] != "A" {
		t.Fatalf("find the demo account: %d %v", status, found)
	}
	if status, reset := post("/api/v1/accounts/password-reset", `{"email":"demo@acme.example"}`); status != 200 {
		t.Fatalf("password reset: %d %v", status, reset)
	}
	var mail []struct{ Subject, HTML, Text, Brand, Template string }
	for range 500 { // the worker delivers at once when poked; this only bounds a failure
		_, body := get("acme.localhost", "/_dev/mail.json?to=demo@acme.example")
		if err := json.Unmarshal([]byte(body), &mail); err != nil {
			t.Fatalf("mail.json: %v", err)
		}
		if len(mail) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(mail) != 1 {
		t.Fatalf("%d emails to demo@acme.example, want the reset code", len(mail))
	}
	if m := mail[0]; m.Brand != "acme" || m.Template != "reset-code" || !strings.Contains(m.HTML, "Acme Mutual") ||
		!strings.Contains(m.HTML, acme.Theme.Primary) || !strings.Contains(m.Text, "1 833-000-0901") {
		t.Fatalf("reset email of acme: %+v", m)
	}

	res, logo := get("acme.localhost", "/brands/acme/logo.svg")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/svg+xml" ||
		!strings.Contains(logo, ">Acme Mutual</text>") || !strings.Contains(logo, acme.Theme.Text) {
		t.Fatalf("acme logo: %d %s %q", res.StatusCode, res.Header.Get("Content-Type"), logo)
	}
	own, _ := os.ReadFile("../../web/public/brands/servus/logo.svg")
	if res, logo := get("acme.localhost", "/brands/servus/logo.svg"); res.StatusCode != 200 || logo != string(own) {
		t.Fatalf("a brand's own logo file: %d %q", res.StatusCode, logo)
	}
	image, _ := os.ReadFile("../../testdata/brands/acme/promo.svg")
	if res, promo := get("acme.localhost", "/brands/acme/promo.svg"); res.StatusCode != 200 ||
		res.Header.Get("Content-Type") != "image/svg+xml" || promo != string(image) {
		t.Fatalf("acme promo image from the brands directory: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if res, _ := get("acme.localhost", "/brands/acme/acme.yaml"); res.StatusCode != 404 {
		t.Fatalf("a file of the brands directory no promo names: %d", res.StatusCode)
	}
	if res, _ := get("acme.localhost", "/brands/nobody/logo.svg"); res.StatusCode != 404 {
		t.Fatalf("logo of no brand: %d", res.StatusCode)
	}
}
