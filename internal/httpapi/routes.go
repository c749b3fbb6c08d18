package httpapi

import (
	"net/http"

	"guichet/internal/api"
)

// routes lists every route of Guichet. Domain flows add theirs through
// Flow.Routes, which lands here too (see Deps.Flows); their patterns are the
// spec's §7 paths.
func (s *server) routes(mux *http.ServeMux) {
	// Operations: no brand needed (load balancers call them by IP).
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", s.metricsHandler())

	r := &router{mux: mux, s: s}

	// API (spec §7).
	r.API("GET /api/v1/welcome", api.Handler(s.welcome))
	for _, f := range s.deps.Flows {
		f.Routes(r)
	}
	r.API("/api/", api.Handler(func(http.ResponseWriter, *http.Request) error { return api.ErrNotFound }))

	// Dev-only pages.
	if s.cfg.Dev && s.deps.DevMail != nil {
		mux.Handle("/_dev/mail", s.withBrand(s.deps.DevMail))
		mux.Handle("/_dev/mail.json", s.withBrand(s.deps.DevMail))
		mux.Handle("/_dev/mail/", s.withBrand(s.deps.DevMail))
	}

	// The single-page app: static files, redirects of spec §2.1, pages.
	mux.Handle("GET /assets/", s.spa.assets())
	mux.Handle("GET /brands/", s.spa.assets())
	mux.Handle("GET /favicon.svg", s.spa.assets())
	mux.Handle("/", s.withBrand(http.HandlerFunc(s.page)))
}

// router lets flows add routes with the right middleware.
type router struct {
	mux *http.ServeMux
	s   *server
}

func (r *router) API(pattern string, h http.Handler) {
	r.mux.Handle(pattern, r.s.withBrand(r.s.withAPI(h)))
}

func (r *router) Page(pattern string, h http.Handler) {
	r.mux.Handle(pattern, r.s.withBrand(h))
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
