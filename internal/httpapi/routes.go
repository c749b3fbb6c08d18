package httpapi

import (
	"net/http"

	"guichet/internal/api"
	"guichet/internal/smartreg"
)

// RouteKind says which middleware a route gets on top of the common one.
type RouteKind string

// Route kinds.
const (
	// Operation routes need no brand: load balancers call them by IP.
	Operation RouteKind = "operation"
	// API routes get the brand and the API middleware (api key, province
	// and language headers); their answers are JSON.
	API RouteKind = "api"
	// Page routes get the brand only.
	Page RouteKind = "page"
	// Form routes are pages that act (the SSO form post): the brand, and
	// maintenance mode like API calls, so nobody signs in through it then.
	Form RouteKind = "form"
	// Static routes serve the SPA's files, whatever the host.
	Static RouteKind = "static"
	// Dev routes exist with --dev only.
	Dev RouteKind = "dev"
)

// Route is one entry of the route table: an http.ServeMux pattern, its kind
// and its handler.
type Route struct {
	Pattern string
	Kind    RouteKind
	handler http.Handler
}

// routes is the route table of Guichet, every route in this one place; API
// paths are spec §7's (documented in api/openapi.yaml). Tests walk it
// (internal/app: hostile path values, decoy ids), so a new route joins them
// by construction.
func (s *server) routes() []Route {
	var t []Route
	add := func(kind RouteKind, pattern string, h http.Handler) {
		t = append(t, Route{Pattern: pattern, Kind: kind, handler: h})
	}
	apiRoute := func(pattern string, h api.Handler) { add(API, pattern, h) }

	add(Operation, "GET /healthz", http.HandlerFunc(s.healthz))
	add(Operation, "GET /readyz", http.HandlerFunc(s.readyz))

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
		add(Form, "POST /pkmslogin.form", api.Handler(h.LoginForm))
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

	// Legacy registration (spec §2.4, §4.2); its find is accounts/find's
	// registration variant.
	if h := s.deps.Registration; h != nil {
		apiRoute("POST /api/v1/registrations/{id}/validations/{validationId}/{$}", h.Validate)
		apiRoute("POST /api/v1/registrations/{id}/authentication", h.Authentication)
		apiRoute("POST /api/v1/accounts/{id}/create", h.Create)
	}

	// Smart registration (spec §2.5, §4.1, §7 api/v2): every answer carries
	// the session token header; refusals have the smart client's shape.
	if h := s.deps.Smart; h != nil {
		for _, r := range []struct {
			pattern string
			h       api.Handler
		}{
			{"GET /api/v2/registration", h.Start},
			{"GET /api/v2/registration/fields", h.Fields},
			{"POST /api/v2/registration/identify", h.Identify},
			{"GET /api/v2/verify/options", h.Options},
			{"POST /api/v2/verify/send", h.Send},
			{"GET /api/v2/verify/resend", h.Resend},
			{"POST /api/v2/registration/verify", h.Verify},
			{"POST /api/v2/verify/email", h.ConfirmEmail},
			{"POST /api/v2/choose-username", h.ChooseUsername},
			{"POST /api/v2/create", h.Create},
			{"GET /api/v2/account-info", h.AccountInfo},
			{"GET /api/v2/back", h.Back},
		} {
			apiRoute(r.pattern, smartreg.Wrap(r.h))
		}
	}

	apiRoute("/api/", func(http.ResponseWriter, *http.Request) error { return api.ErrNotFound })

	// Dev-only pages.
	if s.cfg.Dev && s.deps.DevMail != nil {
		for _, p := range []string{"GET /_dev/mail", "GET /_dev/mail.json", "GET /_dev/mail.css", "GET /_dev/mail/"} {
			add(Dev, p, s.deps.DevMail)
		}
	}

	// The single-page app: static files, redirects of spec §2.1, pages.
	add(Static, "GET /assets/", s.spa.assets())
	add(Static, "GET /brands/", s.spa.assets())
	add(Static, "GET /favicon.svg", s.spa.assets())
	add(Page, "/", http.HandlerFunc(s.page))
	return t
}

// register puts the routes on the mux, each behind its kind's middleware.
func (s *server) register(mux *http.ServeMux, routes []Route) {
	for _, r := range routes {
		h := r.handler
		switch r.Kind {
		case API:
			h = s.withBrand(s.withAPI(h))
		case Page:
			h = s.withBrand(h)
		case Form:
			h = s.withBrand(s.withMaintenance(h))
		}
		mux.Handle(r.Pattern, h)
	}
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
