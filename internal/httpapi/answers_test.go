package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/api"
	"guichet/internal/api/apitest"
	"guichet/internal/testenv"
)

// TestUnexpectedErrorsAreTechnical: a handler's plain error (a bug) and a
// panic answer spec §8.1's 500 without errorCode, the technical roadblock;
// a 500 with an errorCode would send the visitor to login difficulties.
// (The database gone is a 503 UNAVAILABLE: internal/app's outage tests.)
func TestUnexpectedErrorsAreTechnical(t *testing.T) {
	s := &server{metrics: newHTTPMetrics(prometheus.NewRegistry())}
	mux := http.NewServeMux()
	mux.Handle("POST /api/v1/error", api.Handler(func(http.ResponseWriter, *http.Request) error {
		return errors.New("an unmapped error")
	}))
	mux.Handle("POST /api/v1/panic", api.Handler(func(http.ResponseWriter, *http.Request) error {
		panic("a bug")
	}))
	h := s.middleware(mux)
	wantStatus, wantBody := apitest.Answer(t, "technical")
	for _, path := range []string{"/api/v1/error", "/api/v1/panic"} {
		rec := testenv.Do(t, h, testenv.Request{Method: "POST", Path: path})
		var body any
		if err := json.Unmarshal(rec.Body, &body); err != nil {
			t.Fatalf("%s: %v: %s", path, err, rec.Body)
		}
		if rec.Status != wantStatus || !reflect.DeepEqual(body, wantBody) {
			t.Fatalf("%s answered %d %s, want %d %v", path, rec.Status, rec.Body, wantStatus, wantBody)
		}
	}
}
