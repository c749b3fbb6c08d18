package reauth

import (
	"net/http"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/rules"
	"guichet/internal/sso"
)

// Handler serves the re-authentication API (routes in
// internal/httpapi/routes.go):
//
//	GET  /api/v1/me/reauth       Status
//	POST /api/v1/me/reauth       Prove
//	POST /api/v1/me/reauth/code  SendCode
type Handler struct {
	Service  *Service
	Sessions *sso.Handler
}

// status is what Status and Prove answer: until when this session's last
// proof counts (null when it does not).
type status struct {
	FreshUntil *time.Time `json:"freshUntil"`
}

func (h *Handler) answer(w http.ResponseWriter, s sso.Session) error {
	var out status
	if h.Service.Sessions.RequireFresh(s) == nil {
		until := sso.FreshUntil(s)
		out.FreshUntil = &until
	}
	api.JSON(w, http.StatusOK, out)
	return nil
}

// Status is GET /api/v1/me/reauth: {freshUntil}; 401 without a session.
func (h *Handler) Status(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Sessions.SignedIn(r)
	if err != nil {
		return err
	}
	return h.answer(w, s)
}

// proveForm is POST /api/v1/me/reauth's body: exactly one of the two.
type proveForm struct {
	Password string `json:"password"`
	Code     string `json:"code"`
}

// Prove is POST /api/v1/me/reauth {password} or {code}: 200 {freshUntil};
// 400 WRONG_CURRENT_PASSWORD (a failed sign-in for the lockout), 400
// INVALID_ACTIVATION_CODE, 403 EXCEEDED_RETRIES_CODE_ACTIVATION or
// CODE_EXPIRED, 429 RATE_LIMITED.
func (h *Handler) Prove(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Sessions.SignedIn(r)
	if err != nil {
		return err
	}
	var f proveForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	switch {
	case f.Password != "" && f.Code == "":
		password, perr := rules.LoginPassword(f.Password)
		if perr != nil {
			return errWrongPassword
		}
		err = h.Service.ByPassword(r.Context(), s, password, api.ClientIP(r))
	case f.Code != "" && f.Password == "":
		code, cerr := rules.SecurityCode(f.Code)
		if cerr != nil {
			return cerr
		}
		err = h.Service.ByCode(r.Context(), s, code, api.ClientIP(r))
	default:
		return errVariant
	}
	if err != nil {
		return apiError(err)
	}
	// Read again: the answer is the stored proof.
	if s, err = h.Sessions.SignedIn(r); err != nil {
		return err
	}
	return h.answer(w, s)
}

// SendCode is POST /api/v1/me/reauth/code (no body): 204, a code emailed
// to the account's address in the page's language; 429 RESEND_LIMIT_REACHED
// over the limits.
func (h *Handler) SendCode(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Sessions.SignedIn(r)
	if err != nil {
		return err
	}
	if err := h.Service.SendCode(r.Context(), s, api.SiteOf(r).Language, api.ClientIP(r)); err != nil {
		return apiError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Errors of the re-authentication API; a code's are api.CodeAnswers.
var (
	errWrongPassword = api.NewError(http.StatusBadRequest, "WRONG_CURRENT_PASSWORD", "security.password.currentWrong")
	errVariant       = api.NewError(http.StatusBadRequest, "BAD_REQUEST", "error.badRequest")
)

// answers are the domain errors as the API answers them, after a code's.
var answers = []api.Answer{
	{Err: ErrWrongPassword, Answer: errWrongPassword},
	{Err: sso.ErrNoSession, Answer: api.ErrUnauthenticated},
	account.AnswerRateLimited,
	account.AnswerBusy,
}

// apiError maps the domain errors to the API's, once.
func apiError(err error) error { return api.Map(err, api.CodeAnswers, answers) }
