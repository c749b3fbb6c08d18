package httpapi

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"guichet/internal/api"
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
	if deps.Tokens != nil {
		// The insurers' systems issue invitations (per-brand service keys).
		mux.Handle("POST /api/admin/v1/tokens", api.Handler(deps.Tokens.AdminIssue))
		mux.Handle("/api/", api.Handler(func(http.ResponseWriter, *http.Request) error { return api.ErrNotFound }))
	}
	return mux
}
