package staff

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/rules"
)

// Handler serves the console's session and set-up API on the console host
// (routes in internal/httpapi/routes.go):
//
//	POST   /api/console/v1/session          SignIn (password: pending session)
//	POST   /api/console/v1/session/totp     Factor (TOTP or recovery code)
//	GET    /api/console/v1/session          Me
//	DELETE /api/console/v1/session          SignOut
//	POST   /api/console/v1/session/reauth   Reauth
//	GET    /api/console/v1/setup/{token}    Setup
//	POST   /api/console/v1/setup/{token}    FinishSetup
type Handler struct {
	Service *Service
	// Dev: over plain http the cookie drops its __Host- prefix and Secure
	// (as the customers' does); never outside --dev.
	Dev bool
}

// Cookie names: the __Host- prefix makes the browser insist on Secure,
// Path=/ and no Domain; different from the customers' cookie.
const (
	CookieName    = "__Host-guichet-staff"
	DevCookieName = "guichet-staff"
)

// The API's errors ({errorCode, messageKey}).
var (
	ErrSignInRequired     = api.NewError(http.StatusUnauthorized, "SIGN_IN_REQUIRED", "console.error.signInRequired")
	ErrReauthRequired     = api.NewError(http.StatusUnauthorized, "REAUTH_REQUIRED", "console.error.reauthRequired")
	errInvalidCredentials = api.NewError(http.StatusUnauthorized, "INVALID_CREDENTIALS", "console.error.invalidCredentials")
	errInvalidCode        = api.NewError(http.StatusUnauthorized, "INVALID_CODE", "console.error.invalidCode")
	errValidation         = api.NewError(http.StatusBadRequest, "VALIDATION", "error.badRequest")
)

// answers are the domain's errors as the API answers them.
var answers = []api.Answer{
	{Err: ErrInvalidCredentials, Answer: errInvalidCredentials},
	{Err: ErrInvalidCode, Answer: errInvalidCode},
	{Err: ErrNoSession, Answer: ErrSignInRequired},
	{Err: ErrLinkNotFound, Answer: api.ErrNotFound},
	{Err: ErrRateLimited, With: api.Throttled},
}

// apiError maps the domain's errors, once: the hasher busy is a 429 with
// its wait (a *account.BusyError is no other error), the rest a lookup.
func apiError(err error) error {
	var busy *account.BusyError
	if errors.As(err, &busy) {
		return api.TooManyRequests(busy.Wait)
	}
	return api.Map(err, answers)
}

// Me is the signed-in staff member's answer.
type Me struct {
	ID       string    `json:"id"`
	Email    string    `json:"email"`
	Name     string    `json:"name"`
	Role     Role      `json:"role"`
	Brands   []string  `json:"brands"`
	FactorAt time.Time `json:"factorAt"`
}

// MeOf is the answer for p.
func MeOf(p Principal) Me {
	brands := p.Brands
	if brands == nil {
		brands = []string{}
	}
	return Me{ID: p.ID, Email: p.Email, Name: p.Name, Role: p.Role, Brands: brands, FactorAt: p.FactorAt.UTC()}
}

type signInRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// SignIn is POST /api/console/v1/session.
func (h *Handler) SignIn(w http.ResponseWriter, r *http.Request) error {
	var in signInRequest
	if err := api.Decode(w, r, &in); err != nil {
		return err
	}
	email, err := rules.Email(in.Email)
	if err != nil {
		return errInvalidCredentials
	}
	password, err := rules.LoginPassword(in.Password)
	if err != nil {
		return errInvalidCredentials
	}
	token, err := h.Service.SignIn(r.Context(), email, password, h.token(r), api.ClientIP(r))
	if err != nil {
		return apiError(err)
	}
	h.setCookie(w, r, token)
	api.JSON(w, http.StatusOK, map[string]string{"next": "totp"})
	return nil
}

type codeRequest struct {
	Code         string `json:"code"`
	RecoveryCode string `json:"recoveryCode"`
}

func decodeCode(w http.ResponseWriter, r *http.Request, recoveryAllowed bool) (codeRequest, error) {
	var in codeRequest
	if err := api.Decode(w, r, &in); err != nil {
		return in, err
	}
	in.Code = strings.TrimSpace(in.Code)
	if (in.Code == "") == (in.RecoveryCode == "") || (!recoveryAllowed && in.RecoveryCode != "") || len(in.RecoveryCode) > 64 {
		return in, errValidation
	}
	if in.Code != "" && len(in.Code) > 16 {
		return in, errInvalidCode
	}
	return in, nil
}

// Factor is POST /api/console/v1/session/totp.
func (h *Handler) Factor(w http.ResponseWriter, r *http.Request) error {
	in, err := decodeCode(w, r, true)
	if err != nil {
		return err
	}
	opened, err := h.Service.Factor(r.Context(), h.token(r), in.Code, in.RecoveryCode, api.ClientIP(r))
	if err != nil {
		return apiError(err)
	}
	h.setCookie(w, r, opened.Token)
	api.JSON(w, http.StatusOK, map[string]Me{"staff": MeOf(opened.Principal)})
	return nil
}

// Me is GET /api/console/v1/session.
func (h *Handler) Me(w http.ResponseWriter, r *http.Request) error {
	p, err := h.Service.Lookup(r.Context(), h.token(r))
	return api.Reply(w, http.StatusOK, MeOf(p), apiError(err))
}

// SignOut is DELETE /api/console/v1/session: 204 whether or not there was
// a session; the cookie is cleared.
func (h *Handler) SignOut(w http.ResponseWriter, r *http.Request) error {
	if err := h.Service.SignOut(r.Context(), h.token(r), api.ClientIP(r)); err != nil {
		return err
	}
	name, secure := sessionCookie.ForDev(r, h.Dev)
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode})
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Reauth is POST /api/console/v1/session/reauth.
func (h *Handler) Reauth(w http.ResponseWriter, r *http.Request) error {
	in, err := decodeCode(w, r, false)
	if err != nil {
		return err
	}
	p, err := h.Service.Reauth(r.Context(), h.token(r), in.Code, api.ClientIP(r))
	return api.Reply(w, http.StatusOK, map[string]Me{"staff": MeOf(p)}, apiError(err))
}

// setupToken is the path's token: 43 characters of base64url, else 404.
func setupToken(r *http.Request) (string, error) {
	t := r.PathValue("token")
	if len(t) != 43 {
		return "", api.ErrNotFound
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "", api.ErrNotFound
		}
	}
	return t, nil
}

// Setup is GET /api/console/v1/setup/{token}.
func (h *Handler) Setup(w http.ResponseWriter, r *http.Request) error {
	token, err := setupToken(r)
	if err != nil {
		return err
	}
	info, err := h.Service.Setup(r.Context(), token)
	if err != nil {
		return apiError(err)
	}
	api.JSON(w, http.StatusOK, map[string]string{
		"email": info.Email, "name": info.Name, "secret": EncodeSecret(info.Secret), "otpauthUri": OTPAuthURI(info.Email, info.Secret),
	})
	return nil
}

type setupRequest struct {
	Password string `json:"password"`
	Code     string `json:"code"`
}

// FinishSetup is POST /api/console/v1/setup/{token}.
func (h *Handler) FinishSetup(w http.ResponseWriter, r *http.Request) error {
	token, err := setupToken(r)
	if err != nil {
		return err
	}
	var in setupRequest
	if err := api.Decode(w, r, &in); err != nil {
		return err
	}
	opened, recovery, err := h.Service.CompleteSetup(r.Context(), token, in.Password, strings.TrimSpace(in.Code), api.ClientIP(r))
	if err != nil {
		return apiError(err)
	}
	h.setCookie(w, r, opened.Token)
	api.JSON(w, http.StatusOK, map[string]any{"recoveryCodes": recovery, "staff": MeOf(opened.Principal)})
	return nil
}

// Authenticate puts the signed-in staff member in the request's context
// (PrincipalFrom), or answers 401 SIGN_IN_REQUIRED.
func (h *Handler) Authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := h.Service.Lookup(r.Context(), h.token(r))
		if err != nil {
			api.WriteError(w, r, apiError(err))
			return
		}
		next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
	})
}

// Identify is Authenticate for a WebSocket that says "signed out" with a
// close code after the upgrade (a browser sees no status before it): the
// principal in the context when the session is valid, none when there is
// no valid session (the handler refuses); other errors answer as usual.
func (h *Handler) Identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := h.Service.Lookup(r.Context(), h.token(r))
		if err == nil {
			r = r.WithContext(WithPrincipal(r.Context(), p))
		} else if !errors.Is(apiError(err), ErrSignInRequired) {
			api.WriteError(w, r, apiError(err))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// RequireFresh answers 401 REAUTH_REQUIRED to a state-changing call (any
// method but GET and HEAD) whose principal's second factor is older than
// FreshFactor; without a principal, 401 SIGN_IN_REQUIRED.
func RequireFresh(now func() time.Time) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, ok := PrincipalFrom(r.Context())
			if !ok {
				api.WriteError(w, r, ErrSignInRequired)
				return
			}
			if r.Method != http.MethodGet && r.Method != http.MethodHead && !p.FactorFresh(now()) {
				api.WriteError(w, r, ErrReauthRequired)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// Guard is Authenticate then RequireFresh on the service's clock: what
// every console route but the session's own goes through.
func (h *Handler) Guard(next http.Handler) http.Handler {
	return h.Authenticate(RequireFresh(h.Service.Now)(next))
}

// sessionCookie is the staff session's cookie; the console's requests carry
// no site, so --dev is the handler's Dev.
var sessionCookie = api.Cookie{Name: CookieName, DevName: DevCookieName}

// Token is the request's staff session token ("" without one).
func (h *Handler) Token(r *http.Request) string { return h.token(r) }

func (h *Handler) token(r *http.Request) string { return sessionCookie.ValueDev(r, h.Dev) }

func (h *Handler) setCookie(w http.ResponseWriter, r *http.Request, token string) {
	name, secure := sessionCookie.ForDev(r, h.Dev)
	http.SetCookie(w, &http.Cookie{Name: name, Value: token, Path: "/", HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode})
	w.Header().Set("Cache-Control", "no-store")
}
