// Package httpapi is Guichet's HTTP layer: the router (all routes in
// routes.go), the middleware every request goes through, the single-page app
// with its injected site configuration, and the operational endpoints.
//
// Size: about 2,100 lines: the route table, the middleware chain, the
// single-page app with its assets and preload hints, the trusted-proxy rules
// and the health endpoints. They share the request's resolved site and the
// middleware order, and each file is one of those parts.
package httpapi

import (
	"io/fs"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"guichet/internal/account"
	"guichet/internal/brand"
	"guichet/internal/chat/chatapi"
	"guichet/internal/cobrowse"
	"guichet/internal/console"
	"guichet/internal/contact"
	"guichet/internal/emailtoken"
	"guichet/internal/maintenance"
	"guichet/internal/oidc/provider"
	"guichet/internal/passkey"
	"guichet/internal/privacy"
	"guichet/internal/reauth"
	"guichet/internal/recovery"
	"guichet/internal/registration"
	"guichet/internal/smartreg"
	"guichet/internal/sso"
	"guichet/internal/staff"
	"guichet/internal/store"
)

// Config holds what the HTTP layer needs to know of the deployment.
type Config struct {
	Dev bool
	// Env picks the brand files' SSO URLs ("dev" or "prod").
	Env string
	// DefaultBrand serves unknown hosts when set; otherwise they get the
	// 'unknown site' page.
	DefaultBrand string
	// TrustedProxies are the load balancers in front: X-Forwarded-For and
	// X-Forwarded-Proto count only when the direct peer is one of them.
	TrustedProxies Proxies
	// MaintenanceBypass is the maintenancePageBypass value that lets staff
	// through maintenance; empty: none does.
	MaintenanceBypass string
	// ConsoleHost is the staff console's host (GUICHET_CONSOLE_HOST; in
	// --dev also console.localhost), any port; empty outside --dev: no
	// console.
	ConsoleHost string
	// MaxInFlight bounds the requests under way (GUICHET_MAX_IN_FLIGHT;
	// shed.go); 0: no bound.
	MaxInFlight int
	// ShedHold is how long a request refused in the first middleware waits
	// for its 429 (shed.go; DefaultShedHold in `guichet serve`); 0: none.
	ShedHold time.Duration
}

// Deps are the services the routes call.
type Deps struct {
	Brands   *brand.Registry
	DB       *store.DB
	SPA      fs.FS  // the built SPA (web.Dist())
	SPAPaths []byte // the SPA's route list (web.Paths())
	Metrics  *prometheus.Registry
	// Maintenance tells which brands are under maintenance (nil: none).
	Maintenance *maintenance.Reader
	// DevMail serves /_dev/mail and /_dev/mail.json in --dev (may be nil).
	DevMail http.Handler
	// DevClock serves GET and POST /_dev/clock in --dev: the server's clock,
	// moved forward by browser tests of an expiry (may be nil).
	DevClock http.Handler
	// The domain handlers; routes.go registers each of their routes. A nil
	// handler's routes are left out (tests of this package alone).
	Account  *account.Handler
	SSO      *sso.Handler
	Recovery *recovery.Handler
	// Privacy is the customer's data export and account deletion (issue 31).
	Privacy *privacy.Handler
	Reauth  *reauth.Handler
	// Passkeys is the customer's passkeys (issue 31): My account, the
	// login page's sign-in and the re-authentication proof.
	Passkeys *passkey.Handler
	Contact  *contact.Handler
	// Registration is legacy registration (accounts/find and
	// accounts/{id}/authentication are dispatched between it and Account
	// in overload.go).
	Registration *registration.Handler
	// Tokens is the emailed magic-link tokens (issue 14): public reads and
	// the admin API (NewAdmin).
	Tokens *emailtoken.Handler
	// Smart is smart registration (api/v2).
	Smart *smartreg.Handler
	// Staff is the console's sessions and set-up (issue 16), on the console
	// host only; its Guard protects every Console route.
	Staff *staff.Handler
	// Console is the console's customer and supervisor calls (issue 16),
	// Console routes behind Staff's session.
	Console *console.Handler
	// Chat is the visitor's live chat (issue 17) on the brand hosts;
	// ChatConsole the agents' side on the console host.
	Chat        *chatapi.VisitorHandler
	ChatConsole *chatapi.ConsoleHandler
	// Cobrowse is the visitor's co-browse (issue 18, docs/cobrowse.md);
	// CobrowseConsole the agents' side.
	Cobrowse        *cobrowse.Handler
	CobrowseConsole *cobrowse.ConsoleHandler
	// OIDC is the OpenID provider (issue 30) on the brand hosts.
	OIDC *provider.Provider
	// Tracing starts a server span per request (tracing.go); nil: none.
	Tracing trace.TracerProvider
}

// Server is the whole HTTP handler, with its route table.
type Server struct {
	http.Handler
	routes []Route
}

// Routes returns the route table the handler serves.
func (s *Server) Routes() []Route { return s.routes }

// New builds the whole HTTP handler.
func New(cfg Config, deps Deps) (*Server, error) {
	s := &server{cfg: cfg, deps: deps, formActions: externalFormActions(deps.Brands, cfg.Env),
		replaySources: replaySources(deps.Brands, cfg.Dev)}
	app, err := newSPA(deps.SPA, deps.SPAPaths, deps.Brands)
	if err != nil {
		return nil, err
	}
	s.spa = app
	s.metrics = newHTTPMetrics(deps.Metrics)
	if s.console, err = newConsolePage(deps.SPA); err != nil {
		return nil, err
	}
	mux, consoleMux := http.NewServeMux(), http.NewServeMux()
	routes := s.routes()
	s.register(mux, consoleMux, routes)
	return &Server{Handler: traced(deps.Tracing, s.middleware(s.byHost(mux, consoleMux))), routes: routes}, nil
}

type server struct {
	cfg     Config
	deps    Deps
	spa     *spa
	console *consolePage
	metrics *httpMetrics
	// formActions lists external SSO origins the login form may post to.
	formActions string
	// replaySources lists the brand hosts whose styles, images and fonts
	// the console's co-browse viewer shows (the visitor's page).
	replaySources string
	// held counts the refusals shedFirst holds (shed.go), its capacity
	// their bound.
	held chan struct{}
}
