package emailtoken

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"time"

	"guichet/internal/api"
	"guichet/internal/brand"
)

// Handler serves the token calls (public routes in
// internal/httpapi/routes.go; the admin one on the admin listener):
//
//	GET    /api/v1/tokens/{token}   Read
//	DELETE /api/v1/tokens/{token}   Delete
//	POST   /api/admin/v1/tokens     AdminIssue (admin listener)
type Handler struct {
	Service *Service
	// ServiceKey returns the brand's service key of the admin API ("" when
	// none is configured: every call for that brand is refused).
	ServiceKey func(brand string) string
	// Brands lists the brands whose keys are tried.
	Brands func() []*brand.Brand
}

// Read is GET /api/v1/tokens/{token}[?src=]: 200 Answer; 404 NOT_FOUND for
// a malformed, unknown, another brand's or another source's token, or one
// not started; 429 RATE_LIMITED.
func (h *Handler) Read(w http.ResponseWriter, r *http.Request) error {
	raw := r.PathValue("token")
	if !WellFormed(raw) {
		return api.ErrNotFound
	}
	site := api.SiteOf(r)
	src, has := r.URL.Query()["src"]
	rd := Read{Brand: site.Brand.ID, Token: raw, HasSource: has, Language: site.Language, Province: site.Province,
		IP: api.ClientIP(r)}
	if has {
		rd.Source = src[0]
	}
	out, err := h.Service.Read(r.Context(), rd)
	return api.Reply(w, http.StatusOK, out, apiError(err))
}

// Delete is DELETE /api/v1/tokens/{token}: 204, idempotent; 404 NOT_FOUND.
func (h *Handler) Delete(w http.ResponseWriter, r *http.Request) error {
	raw := r.PathValue("token")
	if !WellFormed(raw) {
		return api.ErrNotFound
	}
	if err := h.Service.Delete(r.Context(), api.SiteOf(r).Brand.ID, raw, api.ClientIP(r)); err != nil {
		return apiError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type adminForm struct {
	Brand        string  `json:"brand"`
	PolicyNumber string  `json:"policyNumber"`
	Email        string  `json:"email"`
	Source       string  `json:"source"`
	Language     string  `json:"language"`
	Send         bool    `json:"send"`
	StartDate    *string `json:"startDate"`
	Days         *int    `json:"days"`
}

type adminAnswer struct {
	ID        string    `json:"id"`
	Link      string    `json:"link"`
	StartDate time.Time `json:"startDate"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// AdminIssue is POST /api/admin/v1/tokens (admin listener), authenticated
// by the brand's service key (Authorization: Bearer <key>): 201 {id, link,
// startDate, expiresAt}; 401 UNAUTHORIZED without a bearer key; 403
// FORBIDDEN for a key that is not the body's brand's; 400 VALIDATION,
// INVALID_SOURCE, POLICY_INACTIVE; 404 NO_PERSON.
func (h *Handler) AdminIssue(w http.ResponseWriter, r *http.Request) error {
	key, ok := bearer(r.Header.Get("Authorization"))
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="guichet-admin"`)
		return errUnauthorized
	}
	keyBrands := map[string]bool{}
	for _, b := range h.Brands() {
		want := h.ServiceKey(b.ID)
		// Every configured key is compared, in constant time.
		if want != "" && subtle.ConstantTimeCompare([]byte(key), []byte(want)) == 1 {
			keyBrands[b.ID] = true
		}
	}
	if len(keyBrands) == 0 {
		return errForbidden
	}
	var f adminForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	if !keyBrands[f.Brand] {
		return errForbidden
	}
	req := Request{Brand: f.Brand, PolicyNumber: f.PolicyNumber, Email: f.Email, Source: f.Source, Language: f.Language,
		Send: f.Send, IssuedBy: IssuedByAdmin, IP: api.ClientIP(r)}
	if f.StartDate != nil {
		start, err := time.Parse(time.RFC3339, *f.StartDate)
		if err != nil {
			return invalid("startDate", "token.startDate")
		}
		req.Start = start
	}
	if f.Days != nil {
		if *f.Days < 1 || *f.Days > brand.MaxTokenExpiryDays {
			return invalid("days", "token.days")
		}
		req.Expiry = time.Duration(*f.Days) * 24 * time.Hour
	}
	out, err := h.Service.Issue(r.Context(), req)
	return api.Reply(w, http.StatusCreated, adminAnswer{ID: out.ID, Link: out.Link, StartDate: out.StartAt, ExpiresAt: out.ExpiresAt}, apiError(err))
}

// bearer reads "Bearer <key>"; false when absent, empty or another scheme.
func bearer(h string) (string, bool) {
	scheme, key, ok := strings.Cut(strings.TrimSpace(h), " ")
	key = strings.TrimSpace(key)
	if !ok || !strings.EqualFold(scheme, "Bearer") || key == "" || len(key) > 256 {
		return "", false
	}
	return key, true
}

// Errors of the token API.
var (
	errUnauthorized = api.NewError(http.StatusUnauthorized, "UNAUTHORIZED", "error.unauthorized")
	errForbidden    = api.NewError(http.StatusForbidden, "FORBIDDEN", "error.forbidden")
)

func invalid(field, key string) *api.Error {
	return &api.Error{Status: http.StatusBadRequest, Code: "VALIDATION", MessageKey: key, Field: field,
		Fields: map[string]string{field: key}}
}

// answers are the package's domain errors as the API answers them.
var answers = []api.Answer{
	{Err: ErrNotFound, Answer: api.ErrNotFound},
	// Spec §8.1's 412 (the inconsistency roadblock).
	{Err: ErrInconsistent, Answer: api.NewError(http.StatusPreconditionFailed, "INCONSISTENT", "roadblock.inconsistency")},
	{Err: ErrSource, Answer: api.NewError(http.StatusBadRequest, "INVALID_SOURCE", "token.source")},
	{Err: ErrNoPerson, Answer: api.NewError(http.StatusNotFound, "NO_PERSON", "token.noPerson")},
	{Err: ErrInactive, Answer: api.NewError(http.StatusBadRequest, "POLICY_INACTIVE", "token.policyInactive")},
	{Err: ErrBrand, Answer: invalid("brand", "token.brand")},
	{Err: ErrRateLimited, With: api.Throttled},
}

// apiError maps the package's domain errors to the API's, once: an
// *InvalidError names its field, the rest is a lookup.
func apiError(err error) error {
	var inv *InvalidError
	if errors.As(err, &inv) {
		field := map[string]string{"policy_number": "policyNumber", "start": "startDate"}[inv.Field]
		if field == "" {
			field = inv.Field
		}
		return invalid(field, "token."+field)
	}
	return api.Map(err, answers)
}
