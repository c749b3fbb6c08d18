package httpapi

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// NewAdmin builds the operators' handler, served on a listener of its own
// (GUICHET_ADMIN_ADDR, loopback by default) and never on the public one:
// the Prometheus metrics, and the place for the insurers' admin API
// (/api/admin/v1/...).
func NewAdmin(deps Deps) http.Handler {
	mux := http.NewServeMux()
	if deps.Metrics != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(deps.Metrics, promhttp.HandlerOpts{}))
	}
	return mux
}
