package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strconv"
	"time"

	"guichet/internal/api"
)

// errMaintenance is every API call's answer while its brand is under
// maintenance (spec §8.1: 503 -> the maintenance roadblock).
var errMaintenance = api.NewError(http.StatusServiceUnavailable, "MAINTENANCE", "error.maintenance")

// underMaintenance answers an API call 503 MAINTENANCE (with Retry-After
// when the end is known) and reports true while the call's brand is under
// maintenance, unless the call carries the staff's maintenancePageBypass
// (spec §7). Pages, /healthz and /readyz are not API calls.
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
