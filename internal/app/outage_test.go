package app

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"guichet/internal/api/apitest"
)

// TestDatabaseOutageIsTechnical closes the database under the running
// application: a flow's call answers spec §8.1's plain 500 (no errorCode),
// which the SPA shows as the technical roadblock, not login difficulties.
func TestDatabaseOutageIsTechnical(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *App) {
		belair, _ := a.Brands.ByID("belair")
		a.DB.Close()
		wantStatus, wantBody := apitest.Answer(t, "technical")
		for _, c := range []struct{ path, body string }{
			{"/api/v1/accounts/find", `{"email":"demo@belair.example"}`},
			{"/api/v1/accounts/password-reset", `{"email":"demo@belair.example"}`},
			{"/api/v1/accounts/" + placeholder + "/authentication", `{"password":"Wrong-Horse-9!"}`},
		} {
			req := httptest.NewRequest("POST", c.path, strings.NewReader(c.body))
			req.Host = belair.Hosts[0]
			req.Header.Set("api-key", belair.APIKey)
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			a.Handler.ServeHTTP(rec, req)
			var body any
			_ = json.Unmarshal(rec.Body.Bytes(), &body)
			if rec.Code != wantStatus || !reflect.DeepEqual(body, wantBody) {
				t.Fatalf("%s with the database closed: %d %s, want %d %v", c.path, rec.Code, rec.Body, wantStatus, wantBody)
			}
		}
	})
}
