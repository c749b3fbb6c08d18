package httpapi

import (
	"net/http"
	"strings"

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
	// OIDC routes are the OpenID provider's (issue 30): the brand from the
	// host only; the protocol's own checks (client authentication, PKCE,
	// tokens) are zitadel/oidc's, its answers the protocol's JSON or
	// redirects.
	OIDC RouteKind = "oidc"
	// ConsolePublic routes are served on the console host only (404 on
	// brand hosts), without api key or brand: the staff sign-in, set-up
	// and the console SPA's files.
	ConsolePublic RouteKind = "console-public"
	// Console routes are ConsolePublic ones behind the staff session: the
	// handler finds staff.PrincipalFrom(ctx) set (401 SIGN_IN_REQUIRED
	// otherwise), and every method but GET and HEAD also wants a fresh
	// second factor (401 REAUTH_REQUIRED).
	Console RouteKind = "console"
	// ChatSocket is the visitor's chat WebSocket (issue 17): browsers set
	// no header on a WebSocket, so the brand from the host, no api key,
	// maintenance answered 503 before the upgrade; the handler checks the
	// origin and the chat cookie.
	ChatSocket RouteKind = "chat-socket"
	// ConsoleChat routes are the agents' chat calls and socket: a staff
	// session (401 SIGN_IN_REQUIRED), but no fresh second factor (chatting
	// is routine); the handler audits every action with the staff id.
	ConsoleChat RouteKind = "console-chat"
	// ConsoleSocket is a ConsoleChat WebSocket that refuses after the
	// upgrade, with a close code the browser sees (a status before it shows
	// as 1006): the staff member in the context when signed in, none
	// otherwise (the handler closes with 4401).
	ConsoleSocket RouteKind = "console-socket"
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
	consolePublic := func(pattern string, h api.Handler) { add(ConsolePublic, pattern, h) }
	consoleRoute := func(pattern string, h api.Handler) { add(Console, pattern, h) }

	add(Operation, "GET /healthz", http.HandlerFunc(s.healthz))
	add(Operation, "GET /readyz", http.HandlerFunc(s.readyz))

	apiRoute("GET /api/v1/welcome", s.welcome)

	// Sign in (spec §2.2, §4.3).
	if h := s.deps.Account; h != nil {
		find, authentication := api.Handler(h.Find), api.Handler(h.Authentication)
		if reg := s.deps.Registration; reg != nil {
			// Both paths are overloaded with legacy registration (overload.go).
			find = FindOverload(h.Find, reg.Find)
			authentication = AuthenticationOverload(h.Authentication, reg.Authentication, reg.Service.IsRegistration)
		}
		apiRoute("POST /api/v1/accounts/find", find)
		apiRoute("POST /api/v1/accounts/{id}/temporary", h.Temporary)
		apiRoute("POST /api/v1/accounts/{id}/authentication", authentication)
		apiRoute("POST /api/v1/accounts/{id}/notification", h.Notification)
	}
	// Web single sign-on hand-off and the session (design.md "Web SSO").
	if h := s.deps.SSO; h != nil {
		add(Form, "POST /pkmslogin.form", api.Handler(h.LoginForm))
		apiRoute("GET /api/v1/me", h.Me)
		apiRoute("POST /api/v1/logout", h.Logout)
		// Where the customer is signed in, from My account (issue 31).
		apiRoute("GET /api/v1/me/sessions", h.Devices)
		apiRoute("DELETE /api/v1/me/sessions/{id}", h.EndDevice)
		apiRoute("POST /api/v1/me/sessions/end-others", h.EndOthers)
	}
	// Password recovery (spec §2.3, §4.4).
	if h := s.deps.Recovery; h != nil {
		apiRoute("POST /api/v1/accounts/password-reset", h.RequestReset)
		apiRoute("POST /api/v1/accounts/password-reset/link", h.ExchangeLink)
		apiRoute("POST /api/v1/accounts/{id}/password-reset/{validationId}/resend", h.Resend)
		apiRoute("POST /api/v1/accounts/{id}/validations/{validationId}/{$}", h.Validate)
		apiRoute("POST /api/v1/accounts/{id}/password", h.SetPassword)
		// The signed-in customer's own change, from My account (issue 31).
		apiRoute("POST /api/v1/me/password", h.ChangePassword)
	}
	// The fresh proof a security change on My account asks for (issue 31).
	// Passkeys (issue 31, internal/passkey): My account's list and
	// changes, the login page's sign-in (its ticket goes to the SSO form
	// post), and a passkey as a re-authentication proof.
	if h := s.deps.Passkeys; h != nil {
		apiRoute("GET /api/v1/me/passkeys", h.List)
		apiRoute("POST /api/v1/me/passkeys", h.FinishRegistration)
		apiRoute("POST /api/v1/me/passkeys/registration", h.BeginRegistration)
		apiRoute("POST /api/v1/me/passkeys/offer", h.Offered)
		apiRoute("PATCH /api/v1/me/passkeys/{id}", h.Rename)
		apiRoute("DELETE /api/v1/me/passkeys/{id}", h.Remove)
		apiRoute("POST /api/v1/passkeys/login", h.BeginLogin)
		apiRoute("POST /api/v1/passkeys/login/finish", h.FinishLogin)
		apiRoute("POST /api/v1/me/reauth/passkey", h.BeginReauth)
		apiRoute("POST /api/v1/me/reauth/passkey/finish", h.FinishReauth)
	}
	if h := s.deps.Reauth; h != nil {
		apiRoute("GET /api/v1/me/reauth", h.Status)
		apiRoute("POST /api/v1/me/reauth", h.Prove)
		apiRoute("POST /api/v1/me/reauth/code", h.SendCode)
	}
	// The customer's own email and cell phone changes, and the former
	// address's undo link (issue 31).
	if h := s.deps.Contact; h != nil {
		apiRoute("POST /api/v1/me/email", h.StartEmail)
		apiRoute("POST /api/v1/me/email/confirm", h.ConfirmEmail)
		apiRoute("POST /api/v1/me/phone", h.StartPhone)
		apiRoute("POST /api/v1/me/phone/confirm", h.ConfirmPhone)
		apiRoute("POST /api/v1/email-undo", h.Undo)
	}

	// The customer's data rights on My account (issue 31, Law 25 and
	// PIPEDA): the export and the account's deletion; the emailed undo
	// link's token comes in a POST body, never in a logged path.
	if h := s.deps.Privacy; h != nil {
		apiRoute("GET /api/v1/me/privacy", h.Status)
		apiRoute("POST /api/v1/me/export", h.RequestExport)
		apiRoute("GET /api/v1/me/export.json", h.DownloadJSON)
		apiRoute("GET /api/v1/me/export.html", h.DownloadHTML)
		apiRoute("POST /api/v1/me/deletion", h.RequestDeletion)
		apiRoute("DELETE /api/v1/me/deletion", h.CancelDeletion)
		apiRoute("POST /api/v1/deletion/undo", h.UndoDeletion)
	}

	// Legacy registration (spec §2.4, §4.2); its find is accounts/find's
	// registration variant.
	if h := s.deps.Registration; h != nil {
		apiRoute("POST /api/v1/registrations/{id}/validations/{validationId}/{$}", h.Validate)
		apiRoute("POST /api/v1/registrations/{id}/authentication", h.Authentication)
		apiRoute("POST /api/v1/accounts/{id}/create", h.Create)
	}

	// Emailed magic-link tokens (spec §4.2 token routing, §7).
	if h := s.deps.Tokens; h != nil {
		apiRoute("GET /api/v1/tokens/{token}", h.Read)
		apiRoute("DELETE /api/v1/tokens/{token}", h.Delete)
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

	// Live chat (issue 17, chat.md): configuration, the visitor's
	// conversation, the message form and the visitor's socket.
	if h := s.deps.Chat; h != nil {
		apiRoute("GET /api/v1/salesforceConfig", h.Config)
		apiRoute("POST /api/v1/chat/conversations", h.Start)
		apiRoute("GET /api/v1/chat/conversation", h.Current)
		apiRoute("POST /api/v1/chat/conversation/handover", h.Handover)
		apiRoute("POST /api/v1/chat/conversation/end", h.End)
		apiRoute("POST /api/v1/chat/conversation/transcript", h.Transcript)
		apiRoute("POST /api/v1/chat/conversation/rating", h.Rating)
		apiRoute("POST /api/v1/chat/offline", h.Offline)
		add(ChatSocket, "GET /api/v1/chat/socket", api.Handler(h.Socket))
	}

	// Co-browse (issue 18, docs/cobrowse.md): the footer link's session,
	// the answer to an agent's request in chat, and the visitor's socket
	// (a ChatSocket: brand from the host, the handler checks origin and
	// the co-browse cookie).
	if h := s.deps.Cobrowse; h != nil {
		apiRoute("POST /api/v1/cobrowse/sessions", h.Start)
		apiRoute("POST /api/v1/cobrowse/sessions/{id}/consent", h.Consent)
		apiRoute("GET /api/v1/cobrowse/session", h.Current)
		apiRoute("POST /api/v1/cobrowse/session/end", h.End)
		add(ChatSocket, "GET /api/v1/cobrowse/socket", api.Handler(h.Socket))
	}

	// The OpenID provider (issue 30, internal/oidc/provider): discovery and
	// the protocol's endpoints, each served by zitadel/oidc, and the
	// hand-off to the portal's sign-in.
	if h := s.deps.OIDC; h != nil {
		for _, p := range []string{
			"GET /.well-known/openid-configuration",
			"GET /oidc/authorize", "POST /oidc/authorize", "GET /oidc/authorize/callback",
			"POST /oidc/token", "GET /oidc/userinfo", "POST /oidc/userinfo", "POST /oidc/revoke",
			"GET /oidc/end_session", "POST /oidc/end_session", "GET /oidc/keys", "POST /oidc/introspect",
		} {
			add(OIDC, p, h)
		}
		add(OIDC, "GET /oidc/login", http.HandlerFunc(h.Login))
		// The consent page's form and data, and the customer's list of the
		// third-party applications they allowed (provider/consent.go).
		add(Form, "POST /oidc/consent", api.Handler(h.ConsentForm))
		apiRoute("GET /api/v1/oidc/requests/{id}/consent", h.ConsentInfo)
		apiRoute("GET /api/v1/me/applications", h.Applications)
		apiRoute("DELETE /api/v1/me/applications/{clientId}", h.Withdraw)
	}

	apiRoute("/api/", func(http.ResponseWriter, *http.Request) error { return api.ErrNotFound })

	// The staff console (issue 16), on the console host only: its sessions
	// and set-up links (internal/staff).
	if h := s.deps.Staff; h != nil {
		consolePublic("POST /api/console/v1/session", h.SignIn)
		consolePublic("GET /api/console/v1/session", h.Me)
		consolePublic("DELETE /api/console/v1/session", h.SignOut)
		consolePublic("POST /api/console/v1/session/totp", h.Factor)
		consolePublic("POST /api/console/v1/session/reauth", h.Reauth)
		consolePublic("GET /api/console/v1/setup/{token}", h.Setup)
		consolePublic("POST /api/console/v1/setup/{token}", h.FinishSetup)
	}
	// The console's customer and supervisor APIs (internal/console, issue 16).
	if h := s.deps.Console; h != nil {
		consoleRoute("GET /api/console/v1/customers", h.Search)
		consoleRoute("GET /api/console/v1/customers/{id}", h.Customer)
		consoleRoute("POST /api/console/v1/customers/{id}/unlock", h.Unlock)
		consoleRoute("POST /api/console/v1/customers/{id}/disable", h.Disable)
		consoleRoute("POST /api/console/v1/customers/{id}/enable", h.Enable)
		consoleRoute("POST /api/console/v1/customers/{id}/passkeys/remove", h.RemovePasskeys)
		consoleRoute("POST /api/console/v1/customers/{id}/temporary-password", h.TemporaryPassword)
		consoleRoute("POST /api/console/v1/customers/{id}/reset-email", h.ResetEmail)
		consoleRoute("POST /api/console/v1/customers/{id}/invitation", h.Invitation)
		consoleRoute("POST /api/console/v1/policies/import", h.Import)
		consoleRoute("POST /api/console/v1/maintenance", h.Maintenance)
		consoleRoute("GET /api/console/v1/audit.csv", h.AuditExport)
		consoleRoute("GET /api/console/v1/staff", h.StaffList)
		consoleRoute("POST /api/console/v1/staff", h.StaffAdd)
		consoleRoute("POST /api/console/v1/staff/{id}/disable", h.StaffDisable)
		consoleRoute("GET /api/console/v1/clients", h.ClientList)
		consoleRoute("POST /api/console/v1/clients", h.ClientAdd)
		consoleRoute("POST /api/console/v1/clients/{id}/disable", h.ClientDisable)
	}

	// The agents' chat (issue 17): staff session, no fresh factor.
	if h := s.deps.ChatConsole; h != nil {
		chatRoute := func(pattern string, h api.Handler) { add(ConsoleChat, pattern, h) }
		chatRoute("GET /api/console/v1/chat/availability", h.GetAvailability)
		chatRoute("PUT /api/console/v1/chat/availability", h.PutAvailability)
		chatRoute("GET /api/console/v1/chat/queue", h.Queue)
		chatRoute("POST /api/console/v1/chat/conversations/{id}/accept", h.Accept)
		chatRoute("POST /api/console/v1/chat/conversations/{id}/transfer", h.Transfer)
		chatRoute("POST /api/console/v1/chat/conversations/{id}/end", h.End)
		chatRoute("POST /api/console/v1/chat/conversations/{id}/reply", h.Reply)
		chatRoute("GET /api/console/v1/chat/conversations/{id}", h.Conversation)
		chatRoute("GET /api/console/v1/chat/agents", h.Agents)
		chatRoute("GET /api/console/v1/chat/canned", h.Canned)
		chatRoute("GET /api/console/v1/chat/transcripts", h.Transcripts)
		chatRoute("GET /api/console/v1/chat/figures", h.Figures)
		chatRoute("GET /api/console/v1/chat/socket", h.Socket)
	}
	// The agents' co-browse (issue 18): routine like chat, every action
	// audited by the handler.
	if h := s.deps.CobrowseConsole; h != nil {
		cbRoute := func(pattern string, h api.Handler) { add(ConsoleChat, pattern, h) }
		cbRoute("POST /api/console/v1/chat/conversations/{id}/cobrowse", h.Request)
		cbRoute("POST /api/console/v1/cobrowse/join", h.Join)
		cbRoute("POST /api/console/v1/cobrowse/sessions/{id}/end", h.End)
		add(ConsoleSocket, "GET /api/console/v1/cobrowse/sessions/{id}/socket", api.Handler(h.Socket))
	}

	consolePublic("/api/", func(http.ResponseWriter, *http.Request) error { return api.ErrNotFound })
	// On brand hosts, the console's API does not exist (no api key asked).
	add(Operation, "/api/console/", api.Handler(func(http.ResponseWriter, *http.Request) error { return api.ErrNotFound }))

	// Dev-only pages.
	if s.cfg.Dev && s.deps.DevMail != nil {
		for _, p := range []string{"GET /_dev/mail", "GET /_dev/mail.json", "GET /_dev/mail.css", "GET /_dev/mail/"} {
			add(Dev, p, s.deps.DevMail)
		}
	}
	if s.cfg.Dev && s.deps.DevClock != nil {
		add(Dev, "GET /_dev/clock", s.deps.DevClock)
		add(Dev, "POST /_dev/clock", s.deps.DevClock)
	}

	// The single-page app: static files, redirects of spec §2.1, pages.
	add(Static, "GET /assets/", s.spa.assets())
	add(Static, "GET /brands/", s.spa.assets())
	add(Static, "GET /favicon.svg", s.spa.assets())
	add(Page, "/", http.HandlerFunc(s.page))
	// The console host: its SPA's files and page (web/console.html).
	add(ConsolePublic, "GET /assets/", s.spa.assets())
	add(ConsolePublic, "GET /favicon.svg", s.spa.assets())
	add(ConsolePublic, "/", http.HandlerFunc(s.consolePage))
	return t
}

// register puts the routes on the brand hosts' mux or the console host's,
// each behind its kind's middleware.
func (s *server) register(mux, consoleMux *http.ServeMux, routes []Route) {
	for _, r := range routes {
		h := r.handler
		onConsole, onPortal := false, true
		switch r.Kind {
		case ConsolePublic:
			if _, path, _ := strings.Cut(r.Pattern, " "); strings.HasPrefix(path, "/api/") {
				h = s.checkedQuery(h)
			}
			onConsole, onPortal = true, false
		case Console:
			h, onConsole, onPortal = s.staffGuard(s.checkedQuery(h)), true, false
		case ConsoleChat:
			h, onConsole, onPortal = s.staffSession(s.checkedQuery(h)), true, false
		case ConsoleSocket:
			h, onConsole, onPortal = s.staffIdentify(s.checkedQuery(h)), true, false
		case ChatSocket:
			h = s.withBrand(s.withMaintenance(s.checkedQuery(h)))
		case Operation:
			onConsole = true
		case API:
			h = s.withBrand(s.withAPI(h))
		case Page, OIDC:
			h = s.withBrand(h)
		case Form:
			h = s.withBrand(s.withMaintenance(h))
		}
		// Outermost, so that a refusal by the kind's middleware is logged
		// with the route's path too.
		h = s.logged(r, h)
		if s.deps.Tracing != nil {
			h = routeSpan(r.Pattern, h)
		}
		if onConsole {
			consoleMux.Handle(r.Pattern, h)
		}
		if onPortal {
			mux.Handle(r.Pattern, h)
		}
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
