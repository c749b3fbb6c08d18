package sso

import (
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/codes"
	"guichet/internal/policy"
	"guichet/internal/rules"
)

// Handler serves the web SSO endpoint and the session API (routes in
// internal/httpapi/routes.go):
//
//	POST /pkmslogin.form   LoginForm (a page route: no api key, browser form post)
//	GET  /api/v1/me        Me
//	POST /api/v1/logout    Logout
type Handler struct {
	Service *Service
	// Continue, when set, is asked where a successful form post goes
	// instead of /my-account: the OpenID provider's callback when the
	// browser came from a client's /authorize (oidc/provider.Continue).
	// It reads the session the form opened with session, only when a
	// request is pending: a plain sign-in reads nothing more (issue 34).
	Continue func(w http.ResponseWriter, r *http.Request, session func() (Session, error)) (target string, ok bool)
}

// Cookie names (design.md): the __Host- prefix makes the browser insist on
// Secure, Path=/ and no Domain. Over plain http in --dev a __Host- cookie
// would be refused, so the session cookie drops the prefix there.
const (
	CookieName    = "__Host-guichet_session"
	DevCookieName = "guichet_session"
)

// The session cookie and the device cookie (newdevice.go).
var (
	sessionCookie = api.Cookie{Name: CookieName, DevName: DevCookieName}
	deviceCookie  = api.Cookie{Name: DeviceCookie, DevName: DevDeviceCookie}
)

// Where the form post sends the browser.
const (
	AccountPage = "/my-account"
	WebsealPage = "/webseal.do"
)

// Spec §8.5 codes the form post answers with (as /webseal.do?error=CODE).
const (
	// CodeLoginError: wrong email or password, an unknown or a locked
	// account alike; the SPA goes back to / with the login error.
	CodeLoginError = "0x132120c8"
	// CodeMustReset: the password given is the account's temporary
	// password; the SPA shows the forgot-password roadblock.
	CodeMustReset = "0x13212132"
	// CodeTooMany: the client went over the rate limit of password checks;
	// the SPA shows the forgot-password roadblock.
	CodeTooMany = "0x132120ea"
	// CodeTechnical: a technical failure or an unknown login-form-type;
	// the SPA shows the technical roadblock.
	CodeTechnical = "0x38cf04d7"
)

// maxFormBytes bounds the form post (three short fields and a ticket).
const maxFormBytes = 8 << 10

// LoginForm is POST /pkmslogin.form: login-form-type=pwd, username,
// password and, after the authentication call, ticket. Success: a new
// session cookie and 303 to /my-account. Failure: 303 to
// /webseal.do?error=<spec §8.5 code>. It never answers JSON.
func (h *Handler) LoginForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return h.fail(w, r, CodeLoginError)
	}
	if r.PostForm.Get("login-form-type") != "pwd" {
		return h.fail(w, r, CodeTechnical)
	}
	site := api.SiteOf(r)
	device := deviceID(r)
	in := SignIn{Brand: site.Brand.ID, Ticket: r.PostForm.Get("ticket"), IP: api.ClientIP(r), OldToken: sessionToken(r), UserAgent: r.UserAgent(),
		Device: NewDevice{ID: device, Province: site.Province, Link: account.Origin(r) + "/forgot?lang=" + site.Language}}
	var err error
	if in.Username, err = rules.Email(r.PostForm.Get("username")); err != nil {
		return h.fail(w, r, CodeLoginError)
	}
	if in.Password, err = rules.LoginPassword(r.PostForm.Get("password")); err != nil && in.Ticket == "" {
		return h.fail(w, r, CodeLoginError)
	}
	token, accountID, err := h.Service.SignIn(r.Context(), in)
	switch {
	case err == nil:
	case errors.Is(err, account.ErrWrongPassword), errors.Is(err, account.ErrTicketInvalid),
		// §8.5 has no code for it: the login error, then the sign-in's
		// authentication call answers 3001 (the block roadblock).
		errors.Is(err, account.ErrDisabled):
		return h.fail(w, r, CodeLoginError)
	case errors.Is(err, account.ErrMustReset):
		return h.fail(w, r, CodeMustReset)
	case errors.Is(err, account.ErrRateLimited):
		return h.fail(w, r, CodeTooMany)
	case errors.Is(err, account.ErrBusy):
		// Load shed, not a failure to log: §8.5 has no "busy", so technical.
		return h.fail(w, r, CodeTechnical)
	default:
		slog.ErrorContext(r.Context(), "sso sign-in failed", "err", err)
		return h.fail(w, r, CodeTechnical)
	}
	name, secure := sessionCookie.For(r)
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: token, Path: "/", HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode,
	})
	setDeviceCookie(w, r, device)
	h.setPass(w, r, accountID)
	w.Header().Set("Cache-Control", "no-store")
	target := AccountPage
	if h.Continue != nil {
		session := func() (Session, error) { return h.Service.Lookup(r.Context(), site.Brand.ID, token) }
		if t, ok := h.Continue(w, r, session); ok {
			target = t
		}
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
	return nil
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, code string) error {
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, WebsealPage+"?error="+url.QueryEscape(code), http.StatusSeeOther)
	return nil
}

// errUnauthenticated answers the session API without a live session.
var errUnauthenticated = api.ErrUnauthenticated

// Current returns the request's live session for the site's brand, or
// ErrNoSession.
func (h *Handler) Current(r *http.Request) (Session, error) {
	return h.Service.Lookup(r.Context(), api.SiteOf(r).Brand.ID, sessionToken(r))
}

// SignedIn is the request's live session for a call of the signed-in
// customer: 401 UNAUTHENTICATED without one, another error as it is.
func (h *Handler) SignedIn(r *http.Request) (Session, error) {
	s, err := h.Current(r)
	if errors.Is(err, ErrNoSession) {
		return Session{}, errUnauthenticated
	}
	return s, err
}

// Me is GET /api/v1/me: the signed-in policyholder for /my-account, or 401.
func (h *Handler) Me(w http.ResponseWriter, r *http.Request) error {
	s, err := h.SignedIn(r)
	if err != nil {
		return err
	}
	a, err := account.ByID(r.Context(), h.Service.DB, s.Brand, s.AccountID)
	if errors.Is(err, account.ErrNotFound) {
		return errUnauthenticated
	}
	if err != nil {
		return err
	}
	linked, err := policy.ForAccount(r.Context(), h.Service.DB, a.ID)
	if err != nil {
		return err
	}
	me := meAnswer{
		FirstName: a.FirstName, LastName: a.LastName, Email: a.Email, Brand: a.Brand,
		Language: a.Language, UBIDriver: a.UBIDriver, Policies: make([]mePolicy, 0, len(linked)),
	}
	for _, p := range linked {
		me.Policies = append(me.Policies, mePolicy{Number: p.Number, Kind: string(p.Kind), Province: p.Province, Role: string(p.Role)})
	}
	api.JSON(w, http.StatusOK, me)
	return nil
}

type meAnswer struct {
	FirstName string     `json:"firstName"`
	LastName  string     `json:"lastName"`
	Email     string     `json:"email"`
	Brand     string     `json:"brand"`
	Language  string     `json:"language"`
	UBIDriver bool       `json:"ubiDriver"`
	Policies  []mePolicy `json:"policies"`
}

type mePolicy struct {
	Number   string `json:"number"`   // letters and digits; the SPA applies the brand's mask
	Kind     string `json:"kind"`     // home | auto
	Province string `json:"province"` // lower case
	Role     string `json:"role"`     // holder | driver
}

// Logout is POST /api/v1/logout: the session is revoked server-side and the
// cookie cleared; 204 whether or not there was one.
func (h *Handler) Logout(w http.ResponseWriter, r *http.Request) error {
	site := api.SiteOf(r)
	if err := h.Service.Logout(r.Context(), site.Brand.ID, sessionToken(r), api.ClientIP(r)); err != nil {
		return err
	}
	name, secure := sessionCookie.For(r)
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode,
	})
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deviceID is the browser's device id (its device cookie), or a new one
// when it has none (newdevice.go).
func deviceID(r *http.Request) string {
	if v := deviceCookie.Value(r); api.IsID(v) {
		return v
	}
	id, err := codes.RandomID(rand.Reader)
	if err != nil {
		return "" // no notice rather than no sign-in
	}
	return id
}

// setDeviceCookie gives (or renews) the browser its device id.
func setDeviceCookie(w http.ResponseWriter, r *http.Request, id string) {
	if id != "" {
		setBrowserCookie(w, r, deviceCookie, id, DeviceCookieAge)
	}
}

// passCookie is the returning browsers' pass (account/returning.go).
var passCookie = api.Cookie{Name: account.PassCookie, DevName: account.DevPassCookie}

// setPass gives the browser that has just signed in to accountID its pass
// to the hashers' returning lane (renewed at each sign-in). Nothing
// without the account service's passes.
func (h *Handler) setPass(w http.ResponseWriter, r *http.Request, accountID string) {
	if passes := h.Service.Accounts.Passes; passes != nil && accountID != "" {
		setBrowserCookie(w, r, passCookie, passes.Issue(accountID), account.PassAge)
	}
}

// setBrowserCookie sets one of the cookies a browser keeps past its
// session (the device id, the pass): for age, HttpOnly, SameSite=Lax.
func setBrowserCookie(w http.ResponseWriter, r *http.Request, c api.Cookie, value string, age time.Duration) {
	name, secure := c.For(r)
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: int(age / time.Second), HttpOnly: true,
		Secure: secure, SameSite: http.SameSiteLaxMode})
}

// Token is the request's session cookie value, "" without one.
func (h *Handler) Token(r *http.Request) string { return sessionToken(r) }

// sessionToken is the session cookie's value, "" without one.
func sessionToken(r *http.Request) string { return sessionCookie.Value(r) }

// deviceAnswer is one entry of GET /api/v1/me/sessions.
type deviceAnswer struct {
	ID         string    `json:"id"`
	Browser    string    `json:"browser"`
	System     string    `json:"system"`
	FirstSeen  time.Time `json:"firstSeen"`
	LastSeen   time.Time `json:"lastSeen"`
	ThisDevice bool      `json:"thisDevice"`
}

// Devices is GET /api/v1/me/sessions: where the signed-in customer is
// signed in, this browser marked, the latest used first (issue 31).
func (h *Handler) Devices(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Current(r)
	if err != nil {
		return errUnauthenticated
	}
	devices, err := h.Service.Devices(r.Context(), s.Brand, s.AccountID)
	if err != nil {
		return err
	}
	out := struct {
		Sessions []deviceAnswer `json:"sessions"`
	}{Sessions: make([]deviceAnswer, 0, len(devices))}
	for _, d := range devices {
		out.Sessions = append(out.Sessions, deviceAnswer{ID: d.ID, Browser: d.Browser, System: d.System, FirstSeen: d.CreatedAt,
			LastSeen: d.LastSeenAt, ThisDevice: d.ID != "" && d.ID == s.ID})
	}
	api.JSON(w, http.StatusOK, out)
	return nil
}

// EndDevice is DELETE /api/v1/me/sessions/{id}: signs that session out
// (this browser's too, which is a sign-out). 204; 404 when the account has
// no such session.
func (h *Handler) EndDevice(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Current(r)
	if err != nil {
		return errUnauthenticated
	}
	id, err := api.PathID(r, "id")
	if err != nil {
		return err
	}
	if err := h.Service.EndDevice(r.Context(), s.Brand, s.AccountID, id, api.ClientIP(r)); errors.Is(err, ErrNoSession) {
		return api.ErrNotFound
	} else if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// EndOthers is POST /api/v1/me/sessions/end-others: signs out every session
// of the account but this browser's; 200 {"ended": n}.
func (h *Handler) EndOthers(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Current(r)
	if err != nil {
		return errUnauthenticated
	}
	n, err := h.Service.EndOthers(r.Context(), s.Brand, s.AccountID, sessionToken(r), api.ClientIP(r))
	if err != nil {
		return err
	}
	api.JSON(w, http.StatusOK, map[string]int{"ended": n})
	return nil
}
