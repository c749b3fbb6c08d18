package httpapi

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/api"
)

// healthz and readyz are for load balancers, on the public listener: they
// say up or down and nothing else (no version, database or error text).
func (s *server) healthz(w http.ResponseWriter, _ *http.Request) {
	api.JSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 only while the database answers; why not is logged.
func (s *server) readyz(w http.ResponseWriter, r *http.Request) {
	if err := s.deps.DB.Ping(r.Context()); err != nil {
		slog.WarnContext(r.Context(), "not ready", "err", err)
		api.JSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return
	}
	api.JSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// httpMetrics counts requests by route pattern and status, and their latency.
type httpMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	// shed counts shedFirst's refusals by whether they were held
	// (shed.go): "at_once" grows when the held ones' bound is reached.
	shed *prometheus.CounterVec
}

func newHTTPMetrics(reg *prometheus.Registry) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guichet_http_requests_total", Help: "HTTP requests by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "guichet_http_request_duration_seconds", Help: "HTTP request latency by route pattern.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route"}),
		shed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guichet_http_shed_refusals_total",
			Help: "Password checks refused in the first middleware, by whether the refusal was held before its answer (held) or answered at once (at_once: the held ones' bound was reached, or no hold is set).",
		}, []string{"answered"}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.latency, m.shed)
	}
	return m
}

// wrap must sit directly around the mux, which records the matched pattern
// on the request it is given.
func (m *httpMetrics) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		start := time.Now()
		next.ServeHTTP(rec, r)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		m.requests.WithLabelValues(route, spanMethod(r.Method), strconv.Itoa(rec.status)).Inc()
		m.latency.WithLabelValues(route).Observe(time.Since(start).Seconds())
	})
}

// shedRefusal counts one of shedFirst's refusals, held or not. Nil-safe.
func (m *httpMetrics) shedRefusal(held bool) {
	if m != nil {
		answered := "at_once"
		if held {
			answered = "held"
		}
		m.shed.WithLabelValues(answered).Inc()
	}
}

// overloaded counts a request refused past Config.MaxInFlight (shed.go),
// which never reaches wrap: route "overloaded", status 503, so the 5xx
// alert and the dashboard's 5xx by route see it. Nil-safe.
func (m *httpMetrics) overloaded(r *http.Request) {
	if m != nil {
		m.requests.WithLabelValues("overloaded", spanMethod(r.Method), strconv.Itoa(ErrOverloaded.Status)).Inc()
	}
}
