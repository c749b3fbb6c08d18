package httpapi

import (
	"net/http"
	"testing"
	"time"

	"guichet/internal/maintenance"
	"guichet/internal/testenv"
)

func TestMaintenanceAnswers503ToTheBrandsAPICalls(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		h, brands := newServer(t, Config{Dev: true, MaintenanceBypass: "staff-s3cret"}, Deps{DB: e.DB,
			SPAPaths:    []byte(`{"paths": ["/", "/roadblock/:page"]}`),
			Maintenance: maintenance.NewReader(e.DB, e.Clock.Now),
		})
		key := func(id string) map[string]string {
			b, _ := brands.ByID(id)
			return map[string]string{"X-API-KEY": b.APIKey}
		}
		err := maintenance.On(t.Context(), e.DB, maintenance.Change{
			Brand: "belair", Until: e.Clock.Now().Add(90*time.Minute + 500*time.Millisecond), At: e.Clock.Now(), Actor: "cli"})
		if err != nil {
			t.Fatal(err)
		}
		call := func(name, method, target, host string, header map[string]string, status int, retryAfter string) testenv.Scenario {
			s := testenv.Scenario{Name: name, Request: testenv.Request{Method: method, Path: target, Host: host, Headers: header, Body: "{}"},
				Status: status, Headers: map[string]string{"Retry-After": retryAfter}}
			if status == 503 {
				s.Code = "MAINTENANCE"
			}
			return s
		}
		testenv.Run(t, h,
			call("the start call", "GET", "/api/v1/welcome", "belair.localhost", key("belair"), 503, "5401"),
			call("a flow call", "POST", "/api/v1/accounts/find", "belair.localhost", key("belair"), 503, "5401"),
			call("an unknown API path", "GET", "/api/v1/nope", "belair.localhost", key("belair"), 503, "5401"),
			call("another brand", "GET", "/api/v1/welcome", "intact.localhost", key("intact"), 200, ""),
			call("the right bypass", "GET", "/api/v1/welcome?maintenancePageBypass=staff-s3cret", "belair.localhost", key("belair"), 200, ""),
			call("a wrong bypass", "GET", "/api/v1/welcome?maintenancePageBypass=staff-s3creT", "belair.localhost", key("belair"), 503, "5401"),
			call("an empty bypass", "GET", "/api/v1/welcome?maintenancePageBypass=", "belair.localhost", key("belair"), 503, "5401"),
			call("the login page", "GET", "/", "belair.localhost", nil, 200, ""),
			call("the roadblock page", "GET", "/roadblock/maintenance", "belair.localhost", nil, 200, ""),
			call("healthz", "GET", "/healthz", "10.0.0.1", nil, 200, ""),
			call("readyz", "GET", "/readyz", "belair.localhost", nil, 200, ""),
		)

		// Without an end, no Retry-After; with no bypass configured, none works.
		if err := maintenance.On(t.Context(), e.DB, maintenance.Change{Brand: "belair", At: e.Clock.Now()}); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(maintenance.Refresh)
		rec := do(t, h, "GET", "/api/v1/welcome", "belair.localhost", key("belair"), "")
		if rec.Status != 503 || rec.Header.Get("Retry-After") != "" {
			t.Fatalf("no end: %d, Retry-After %q", rec.Status, rec.Header.Get("Retry-After"))
		}
		noBypass, _ := newServer(t, Config{Dev: true}, Deps{Brands: brands, DB: e.DB, Maintenance: maintenance.NewReader(e.DB, e.Clock.Now)})
		for _, target := range []string{"/api/v1/welcome?maintenancePageBypass=", "/api/v1/welcome?maintenancePageBypass=staff-s3cret"} {
			if rec := do(t, noBypass, "GET", target, "belair.localhost", key("belair"), ""); rec.Status != 503 {
				t.Fatalf("%s without a configured bypass: %d", target, rec.Status)
			}
		}
		// Turned off: answered again within Refresh.
		if _, err := maintenance.Off(t.Context(), e.DB, maintenance.Change{Brand: maintenance.AllBrands, At: e.Clock.Now()}); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(maintenance.Refresh)
		if rec := do(t, h, "GET", "/api/v1/welcome", "belair.localhost", key("belair"), ""); rec.Status != http.StatusOK {
			t.Fatalf("after off: %d", rec.Status)
		}
	})
}
