package app

import (
	"context"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"guichet/internal/testenv"
)

// TestAdminTokensAPI: the insurers' token API is on the admin handler only,
// behind GUICHET_SERVICE_KEY_<BRAND>; a brand without a key refuses every
// key, and the public listener does not serve it.
func TestAdminTokensAPI(t *testing.T) {
	t.Setenv("GUICHET_SERVICE_KEY_BELAIR", "belair-key-from-the-environment")
	t.Setenv("GUICHET_SERVICE_KEY_BNA", "")
	eachDatabase(t, func(t *testing.T, a *App) {
		call := func(h http.Handler, host, key, brand string) (int, string) {
			body := `{"brand":"` + brand + `","policyNumber":"BEL-0001","email":"nobody@example.com","source":"edoc"}`
			req := testenv.Request{Method: http.MethodPost, Path: "http://" + host + "/api/admin/v1/tokens", Body: body}
			if key != "" {
				req.Headers = map[string]string{"Authorization": "Bearer " + key}
			}
			got := testenv.Do(t, h, req)
			return got.Status, string(got.Body)
		}
		for _, c := range []struct {
			key, brand string
			status     int
		}{
			{"", "belair", 401},
			{"wrong", "belair", 403},
			{"belair-key-from-the-environment-but-longer", "belair", 403},
			{"dev-service-key-belair", "belair", 403}, // not --dev
			{"", "bna", 401},
			{"belair-key-from-the-environment", "bna", 403},
			{"belair-key-from-the-environment", "belair", 404}, // authenticated: nobody with that email
		} {
			if status, body := call(a.AdminHandler, "127.0.0.1:9090", c.key, c.brand); status != c.status {
				t.Errorf("key %q brand %s: %d %s, want %d", c.key, c.brand, status, body, c.status)
			}
		}
		belair, _ := a.Brands.ByID("belair")
		if status, _ := call(a.Handler, belair.Hosts[0], "belair-key-from-the-environment", "belair"); status < 400 {
			t.Fatalf("public listener answered %d", status)
		}
	})
}

// TestShortServiceKeyRefused: a service key too short to resist guessing
// stops the start.
func TestShortServiceKeyRefused(t *testing.T) {
	t.Setenv("GUICHET_SERVICE_KEY_SCOTIA", "short-key")
	_, err := newApp(context.Background(), Config{DataDir: t.TempDir(), BrandsDir: "../../config/brands", Mail: "log"})
	if err == nil || !strings.Contains(err.Error(), "GUICHET_SERVICE_KEY_SCOTIA: 9 characters") {
		t.Fatalf("%v", err)
	}
}

// TestREADMEAdminExample runs the README's admin API example as written
// (its URL, the dev key its Authorization falls back to, its body) against
// the admin handler of a --dev application, as `make run` starts one: the
// example an operator copies works (issue 33).
func TestREADMEAdminExample(t *testing.T) {
	t.Setenv("GUICHET_SERVICE_KEY_BELAIR", "")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`curl -X POST http://(127\.0\.0\.1:9090)(/\S+) \\\n\s+-H "Authorization: Bearer \$\{GUICHET_SERVICE_KEY_BELAIR:-(\S+)\}" \\\n\s+-d '([^']+)'`).
		FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md: no admin API curl example in the form this test reads")
	}
	a, err := newApp(context.Background(), Config{Dev: true, DataDir: t.TempDir(), BrandsDir: "../../config/brands", Mail: "log"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.DB.Close() })
	// make run's admin listener is where the example calls (a --dev start
	// alone would pick a free port: cmd/guichet devAdminAddr).
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	run := regexp.MustCompile(`\nrun: build\n(?:#.*\n)*\tbin/guichet serve --dev --admin-addr \$\$\{GUICHET_ADMIN_ADDR:-(\S+)\}\n`).FindSubmatch(makefile)
	if run == nil || string(run[1]) != string(m[1]) {
		t.Errorf("make run's admin listener is not %s, where the README's example calls", m[1])
	}
	got := testenv.Do(t, a.AdminHandler, testenv.Request{Method: http.MethodPost, Path: "http://" + string(m[1]) + string(m[2]),
		Headers: map[string]string{"Authorization": "Bearer " + string(m[3])}, Body: string(m[4])})
	got.Expect(t, http.StatusCreated, "")
	if !strings.Contains(string(got.Body), `"link":"http://belair.localhost`) {
		t.Errorf("no invitation link in %s", got.Body)
	}
}
