package passkey

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/sso"
)

// Handler serves the passkey API (routes in internal/httpapi/routes.go):
//
//	GET    /api/v1/me/passkeys                    List
//	POST   /api/v1/me/passkeys/registration       BeginRegistration (fresh)
//	POST   /api/v1/me/passkeys                    FinishRegistration (fresh)
//	PATCH  /api/v1/me/passkeys/{id}               Rename
//	DELETE /api/v1/me/passkeys/{id}               Remove (fresh)
//	POST   /api/v1/me/passkeys/offer              Offered
//	POST   /api/v1/passkeys/login                 BeginLogin
//	POST   /api/v1/passkeys/login/finish          FinishLogin
//	POST   /api/v1/me/reauth/passkey              BeginReauth
//	POST   /api/v1/me/reauth/passkey/finish       FinishReauth
type Handler struct {
	Service  *Service
	Sessions *sso.Handler
}

// RPOf is the request's relying party: the brand's host as the browser
// reached it (account.Origin keeps a Host header from choosing it).
func RPOf(r *http.Request) RP {
	site := api.SiteOf(r)
	u, _ := url.Parse(account.Origin(r))
	// As a browser writes them: lower case, no trailing dot (a Host header
	// may say BeLaIr.example.).
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	origin := u.Scheme + "://" + host
	if port := u.Port(); port != "" {
		origin += ":" + port
	}
	return RP{ID: host, Origin: origin, Name: site.Brand.Name.For(site.Language)}
}

// Errors of the passkey API.
var (
	errChallenge = api.NewError(http.StatusBadRequest, "PASSKEY_EXPIRED", "security.passkeys.expired")
	errInvalid   = api.NewError(http.StatusBadRequest, "PASSKEY_INVALID", "security.passkeys.invalid")
	errNoKeys    = api.NewError(http.StatusNotFound, "NO_PASSKEY", "security.passkeys.none")
)

// answers are the package's domain errors (and account's) as the API
// answers them.
var answers = []api.Answer{
	{Err: ErrChallenge, Answer: errChallenge},
	{Err: ErrInvalid, Answer: errInvalid},
	// The login error (3005) a wrong password answers: an unknown passkey,
	// a locked account and a failed assertion alike.
	{Err: ErrRefused, Answer: api.NewError(http.StatusBadRequest, "3005", "login.passkeyError")},
	account.AnswerDisabled,
	{Err: ErrTooMany, Answer: api.NewError(http.StatusConflict, "PASSKEY_LIMIT", "security.passkeys.limit")},
	{Err: ErrNotFound, Answer: api.ErrNotFound},
	// A bad name, as rules' field errors answer: 400 naming it.
	{Err: ErrName, Answer: api.NewError(http.StatusBadRequest, "INVALID_NAME", "security.passkeys.nameInvalid")},
	{Err: ErrRateLimited, Answer: api.TooManyRequests(time.Minute)},
	account.AnswerRateLimited,
	account.AnswerBusy,
}

func apiError(err error) error { return api.Map(err, answers) }

// passkeyAnswer is one passkey as the API lists it.
type passkeyAnswer struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

func answerOf(p Passkey) passkeyAnswer {
	a := passkeyAnswer{ID: p.ID, Name: p.Name, CreatedAt: p.CreatedAt}
	if !p.LastUsedAt.IsZero() {
		a.LastUsedAt = &p.LastUsedAt
	}
	return a
}

// List is GET /api/v1/me/passkeys: {passkeys: [...], offer}; offer is
// true while My account may offer to add one (none yet, never offered).
func (h *Handler) List(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Sessions.SignedIn(r)
	if err != nil {
		return err
	}
	list, err := h.Service.List(r.Context(), s.AccountID)
	if err != nil {
		return err
	}
	offer, err := h.Service.Offer(r.Context(), s.AccountID)
	if err != nil {
		return err
	}
	out := struct {
		Passkeys []passkeyAnswer `json:"passkeys"`
		Offer    bool            `json:"offer"`
	}{Passkeys: make([]passkeyAnswer, 0, len(list)), Offer: offer}
	for _, p := range list {
		out.Passkeys = append(out.Passkeys, answerOf(p))
	}
	api.JSON(w, http.StatusOK, out)
	return nil
}

// Offered is POST /api/v1/me/passkeys/offer: My account made its one
// offer to add a passkey; 204.
func (h *Handler) Offered(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Sessions.SignedIn(r)
	if err != nil {
		return err
	}
	if err := h.Service.Offered(r.Context(), s.AccountID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ceremony is what a begin call answers: the ceremony's id and the options
// for navigator.credentials.create or .get ({publicKey: ...}).
type ceremony struct {
	ChallengeID string `json:"challengeId"`
	Options     any    `json:"options"`
}

// BeginRegistration is POST /api/v1/me/passkeys/registration (a fresh
// session: 403 REAUTH_REQUIRED otherwise): 200 {challengeId, options}.
func (h *Handler) BeginRegistration(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Sessions.Fresh(r)
	if err != nil {
		return err
	}
	id, creation, err := h.Service.BeginRegistration(r.Context(), s, RPOf(r), api.ClientIP(r))
	return begun(w, id, creation, err)
}

// begun answers a begin call: 200 {challengeId, options}, or its error.
func begun(w http.ResponseWriter, id string, options any, err error) error {
	if errors.Is(err, ErrNotFound) {
		return errNoKeys
	}
	return api.Reply(w, http.StatusOK, ceremony{ChallengeID: id, Options: options}, apiError(err))
}

// finishForm is a finish call's body: the ceremony's id, the browser's
// PublicKeyCredential (toJSON()), and for a registration its name.
type finishForm struct {
	ChallengeID string          `json:"challengeId"`
	Name        string          `json:"name,omitempty"`
	Credential  json.RawMessage `json:"credential"`
}

// finishing is what a signed-in ceremony's finish reads: the session, as
// session reads it (sso.Handler's Fresh or SignedIn), then the body.
func finishing(w http.ResponseWriter, r *http.Request, session func(*http.Request) (sso.Session, error)) (sso.Session, finishForm, error) {
	s, err := session(r)
	if err != nil {
		return s, finishForm{}, err
	}
	f, err := decodeFinish(w, r)
	return s, f, err
}

func decodeFinish(w http.ResponseWriter, r *http.Request) (finishForm, error) {
	var f finishForm
	if err := api.Decode(w, r, &f); err != nil {
		return f, err
	}
	if !api.IsID(f.ChallengeID) {
		return f, errChallenge
	}
	if len(f.Credential) == 0 || f.Credential[0] != '{' {
		return f, errInvalid
	}
	return f, nil
}

// FinishRegistration is POST /api/v1/me/passkeys {challengeId, name,
// credential} (fresh): 201 the passkey; 400 PASSKEY_EXPIRED,
// PASSKEY_INVALID, INVALID_NAME; 409 PASSKEY_LIMIT.
func (h *Handler) FinishRegistration(w http.ResponseWriter, r *http.Request) error {
	s, f, err := finishing(w, r, h.Sessions.Fresh)
	if err != nil {
		return err
	}
	name, err := Name(f.Name)
	if err != nil {
		return apiError(err)
	}
	p, err := h.Service.FinishRegistration(r.Context(), s, RPOf(r), f.ChallengeID, name, f.Credential, api.ClientIP(r))
	return api.Reply(w, http.StatusCreated, answerOf(p), apiError(err))
}

type renameForm struct {
	Name string `json:"name"`
}

// Rename is PATCH /api/v1/me/passkeys/{id} {name}: 204; 404 when the
// account has no such passkey.
func (h *Handler) Rename(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Sessions.SignedIn(r)
	if err != nil {
		return err
	}
	var f renameForm
	id, err := api.PathAndBody(w, r, "id", &f)
	if err != nil {
		return err
	}
	name, err := Name(f.Name)
	if err != nil {
		return apiError(err)
	}
	if err := h.Service.Rename(r.Context(), s.Brand, s.AccountID, id, name, api.ClientIP(r)); err != nil {
		return apiError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Remove is DELETE /api/v1/me/passkeys/{id} (fresh): 204; 404 when the
// account has no such passkey.
func (h *Handler) Remove(w http.ResponseWriter, r *http.Request) error {
	id, err := api.PathID(r, "id")
	if err != nil {
		return err
	}
	s, err := h.Sessions.Fresh(r)
	if err != nil {
		return err
	}
	if err := h.Service.Remove(r.Context(), s.Brand, s.AccountID, id, api.ClientIP(r)); err != nil {
		return apiError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// BeginLogin is POST /api/v1/passkeys/login: 200 {challengeId, options}
// for a discoverable sign-in (the button, or the autofill's conditional
// mediation); no account named.
func (h *Handler) BeginLogin(w http.ResponseWriter, r *http.Request) error {
	id, assertion, err := h.Service.BeginLogin(r.Context(), api.SiteOf(r).Brand.ID, RPOf(r), api.ClientIP(r))
	return begun(w, id, assertion, err)
}

type loginAnswer struct {
	LoginTicket string `json:"loginTicket"`
	Email       string `json:"email"`
}

// FinishLogin is POST /api/v1/passkeys/login/finish {challengeId,
// credential}: 200 {loginTicket, email}, which the SSO form post presents
// (username and ticket) as after a password; 400 PASSKEY_EXPIRED, 400
// 3005 (unknown passkey, locked account, failed assertion), 403 3001
// (disabled), 429.
func (h *Handler) FinishLogin(w http.ResponseWriter, r *http.Request) error {
	f, err := decodeFinish(w, r)
	if err != nil {
		return err
	}
	in, err := h.Service.FinishLogin(r.Context(), api.SiteOf(r).Brand.ID, RPOf(r), f.ChallengeID, f.Credential, api.ClientIP(r))
	return api.Reply(w, http.StatusOK, loginAnswer{LoginTicket: in.Ticket, Email: in.Email}, apiError(err))
}

// BeginReauth is POST /api/v1/me/reauth/passkey: 200 {challengeId,
// options} naming this account's passkeys; 404 NO_PASSKEY without one.
func (h *Handler) BeginReauth(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Sessions.SignedIn(r)
	if err != nil {
		return err
	}
	id, assertion, err := h.Service.BeginReauth(r.Context(), s, RPOf(r), api.ClientIP(r))
	return begun(w, id, assertion, err)
}

// FinishReauth is POST /api/v1/me/reauth/passkey/finish {challengeId,
// credential}: 200 {freshUntil} as POST /api/v1/me/reauth answers; 400
// PASSKEY_EXPIRED or PASSKEY_INVALID.
func (h *Handler) FinishReauth(w http.ResponseWriter, r *http.Request) error {
	s, f, err := finishing(w, r, h.Sessions.SignedIn)
	if err != nil {
		return err
	}
	if err := h.Service.FinishReauth(r.Context(), s, RPOf(r), f.ChallengeID, f.Credential, api.ClientIP(r)); err != nil {
		return apiError(err)
	}
	until := h.Service.Now().Add(sso.FreshFor)
	api.JSON(w, http.StatusOK, map[string]time.Time{"freshUntil": until})
	return nil
}
