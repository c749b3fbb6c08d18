package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"
	"time"

	"guichet/internal/api"
)

// errMaintenance is every API call's answer while its brand is under
// maintenance (spec §8.1: 503 -> the maintenance roadblock).
var errMaintenance = api.NewError(http.StatusServiceUnavailable, "MAINTENANCE", "error.maintenance")

// withMaintenance keeps a form post (a page that acts) out while its brand
// is under maintenance.
func (s *server) withMaintenance(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.underMaintenance(w, r) {
			next.ServeHTTP(w, r)
		}
	})
}

// underMaintenance answers an API call 503 MAINTENANCE (with Retry-After
// when the end is known), and a form post with a redirect to the start page
// (whose start call lands on the maintenance roadblock), and reports true
// while the brand is under maintenance, unless the request carries the
// staff's maintenancePageBypass (spec §7). Pages, /healthz and /readyz are
// served as usual.
func (s *server) underMaintenance(w http.ResponseWriter, r *http.Request) bool {
	if s.deps.Maintenance == nil {
		return false
	}
	on, retryAfter := s.deps.Maintenance.Check(r.Context(), api.SiteOf(r).Brand.ID)
	if !on || s.maintenanceBypass(r) {
		return false
	}
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(int64((retryAfter+time.Second-1)/time.Second), 10))
	}
	if !strings.HasPrefix(r.URL.Path, "/api/") {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return true
	}
	api.WriteError(w, r, errMaintenance)
	return true
}

// maintenanceBypass compares the query parameter with the configured secret
// in constant time (of the digests, so the length does not show either).
func (s *server) maintenanceBypass(r *http.Request) bool {
	if s.cfg.MaintenanceBypass == "" {
		return false
	}
	got := sha256.Sum256([]byte(r.URL.Query().Get("maintenancePageBypass")))
	want := sha256.Sum256([]byte(s.cfg.MaintenanceBypass))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}
