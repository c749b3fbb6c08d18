package httpapi

import (
	"net/http"

	"guichet/internal/api"
)

// routes lists every route of Guichet; API paths are spec §7's (documented in
// api/openapi.yaml). API routes get the API middleware (api key, province and
// language headers); page routes only the brand.
func (s *server) routes(mux *http.ServeMux) {
	// Operations: no brand needed (load balancers call them by IP).
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)

	apiRoute := func(pattern string, h api.Handler) { mux.Handle(pattern, s.withBrand(s.withAPI(h))) }
	pageRoute := func(pattern string, h api.Handler) { mux.Handle(pattern, s.withBrand(h)) }

	apiRoute("GET /api/v1/welcome", s.welcome)

	// Sign in (spec §2.2, §4.3).
	if h := s.deps.Account; h != nil {
		apiRoute("POST /api/v1/accounts/find", h.Find)
		apiRoute("POST /api/v1/accounts/{id}/temporary", h.Temporary)
		apiRoute("POST /api/v1/accounts/{id}/authentication", h.Authentication)
		apiRoute("POST /api/v1/accounts/{id}/notification", h.Notification)
	}
	// Web single sign-on hand-off and the session (design.md "Web SSO").
	if h := s.deps.SSO; h != nil {
		pageRoute("POST /pkmslogin.form", h.LoginForm)
		apiRoute("GET /api/v1/me", h.Me)
		apiRoute("POST /api/v1/logout", h.Logout)
	}
	// Password recovery (spec §2.3, §4.4).
	if h := s.deps.Recovery; h != nil {
		apiRoute("POST /api/v1/accounts/password-reset", h.RequestReset)
		apiRoute("POST /api/v1/accounts/password-reset/link", h.ExchangeLink)
		apiRoute("POST /api/v1/accounts/{id}/password-reset/{validationId}/resend", h.Resend)
		apiRoute("POST /api/v1/accounts/{id}/validations/{validationId}/{$}", h.Validate)
		apiRoute("POST /api/v1/accounts/{id}/password", h.SetPassword)
	}

	apiRoute("/api/", func(http.ResponseWriter, *http.Request) error { return api.ErrNotFound })

	// Dev-only pages.
	if s.cfg.Dev && s.deps.DevMail != nil {
		for _, p := range []string{"GET /_dev/mail", "GET /_dev/mail.json", "GET /_dev/mail.css", "GET /_dev/mail/"} {
			mux.Handle(p, s.deps.DevMail)
		}
	}

	// The single-page app: static files, redirects of spec §2.1, pages.
	mux.Handle("GET /assets/", s.spa.assets())
	mux.Handle("GET /brands/", s.spa.assets())
	mux.Handle("GET /favicon.svg", s.spa.assets())
	mux.Handle("/", s.withBrand(http.HandlerFunc(s.page)))
}

// welcome is spec §7's GET api/v1/welcome, called by the SPA on start (its
// answer is ignored there); it tells which brand, province and language the
// server resolved.
func (s *server) welcome(w http.ResponseWriter, r *http.Request) error {
	site := api.SiteOf(r)
	api.JSON(w, http.StatusOK, map[string]string{
		"brand": site.Brand.ID, "province": site.Province, "language": site.Language,
	})
	return nil
}
