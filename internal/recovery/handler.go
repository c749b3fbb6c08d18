package recovery

import (
	"errors"
	"net/http"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/rules"
	"guichet/internal/sso"
)

// Handler serves the recovery calls (routes in internal/httpapi/routes.go):
//
//	POST /api/v1/accounts/password-reset                                  RequestReset
//	POST /api/v1/accounts/{id}/password-reset/{validationId}/resend       Resend
//	POST /api/v1/accounts/{id}/validations/{validationId}/{$}             Validate
//	POST /api/v1/accounts/password-reset/link                             ExchangeLink
//	POST /api/v1/accounts/{id}/password                                   SetPassword
//	POST /api/v1/me/password                                              ChangePassword
type Handler struct {
	Service *Service
	// Sessions reads the signed-in customer's session (ChangePassword).
	Sessions *sso.Handler
}

// changeForm is POST /api/v1/me/password's body.
type changeForm struct {
	CurrentPassword string `json:"currentPassword"`
	NewPassword     string `json:"newPassword"`
}

// ChangePassword is POST /api/v1/me/password {currentPassword, newPassword}:
// the signed-in customer's own change (issue 31). 204; 401 UNAUTHENTICATED
// without a session; 400 WRONG_CURRENT_PASSWORD (counted as a failed
// sign-in: the lockout applies, and a locked account answers the same);
// 400 with spec §5's password rule; 429 RATE_LIMITED. This device stays
// signed in; every other one is signed out.
func (h *Handler) ChangePassword(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Sessions.Current(r)
	if err != nil {
		return errUnauthenticated
	}
	var f changeForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	site := api.SiteOf(r)
	err = h.Service.ChangePassword(r.Context(), Change{
		Brand: s.Brand, AccountID: s.AccountID, Current: f.CurrentPassword, Password: f.NewPassword, Session: h.Sessions.Token(r),
		Language: site.Language, Province: site.Province, IP: api.ClientIP(r),
		Link: account.Origin(r) + "/forgot?lang=" + site.Language,
	})
	if errors.Is(err, account.ErrWrongPassword) {
		return errWrongCurrent
	}
	if err != nil {
		return apiError(err)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type requestForm struct {
	Email string `json:"email"`
}

// RequestReset is POST api/v1/accounts/password-reset: {"email"}. Always 200
// {id, validationId} for a well-formed email, known or not; 400 with the
// email rule's key otherwise; 429 RATE_LIMITED.
func (h *Handler) RequestReset(w http.ResponseWriter, r *http.Request) error {
	var f requestForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	email, err := rules.Email(f.Email)
	if err != nil {
		return err
	}
	site := api.SiteOf(r)
	out, err := h.Service.RequestReset(r.Context(), Request{
		Brand: site.Brand.ID, Email: email, Language: site.Language, Province: site.Province, IP: api.ClientIP(r),
	})
	return api.Reply(w, http.StatusOK, out, apiError(err))
}

// Resend is POST api/v1/accounts/{id}/password-reset/{validationId}/resend
// (no body read). 200 {id, validationId} with a new validation id; 409
// RESEND_LIMIT_REACHED after MaxResends, 409 RESET_CLOSED once the code was
// used, 404 RESET_NOT_FOUND for ids that name no request: each marks the flow
// roadblocked (spec §8.1), /roadblock/resend-reset-password.
func (h *Handler) Resend(w http.ResponseWriter, r *http.Request) error {
	id, validationID, err := pathIDs(r)
	if err != nil {
		return err
	}
	site := api.SiteOf(r)
	out, err := h.Service.Resend(r.Context(), ResendRequest{
		Brand: site.Brand.ID, ID: id, ValidationID: validationID,
		Language: site.Language, Province: site.Province, IP: api.ClientIP(r),
	})
	return api.Reply(w, http.StatusOK, out, apiError(err))
}

type validationForm struct {
	ValidationValue string `json:"validationValue"`
}

// Validate is POST api/v1/accounts/{id}/validations/{validationId}/:
// {"validationValue": "123456"}. 200 {id, action: "reset-password-login",
// token, ubiDriver}; 400 INVALID_ACTIVATION_CODE (code.validation.wrong) for
// a wrong code; 403 EXCEEDED_RETRIES_CODE_ACTIVATION when its guesses are
// used up (the fifth wrong one included); 403 CODE_EXPIRED when expired,
// replaced, used or unknown; 400 errorCodeRequired / errorCodeFormat for
// anything but 6 digits (not counted as a guess).
func (h *Handler) Validate(w http.ResponseWriter, r *http.Request) error {
	id, validationID, err := pathIDs(r)
	if err != nil {
		return err
	}
	var f validationForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	code, err := rules.SecurityCode(f.ValidationValue)
	if err != nil {
		return err
	}
	out, err := h.Service.Verify(r.Context(), VerifyRequest{
		Brand: api.SiteOf(r).Brand.ID, ID: id, ValidationID: validationID,
		Code: code, IP: api.ClientIP(r),
	})
	return api.Reply(w, http.StatusOK, out, apiError(err))
}

// pathIDs reads the two ids of a code's path.
func pathIDs(r *http.Request) (id, validationID string, err error) {
	if id, err = api.PathID(r, "id"); err != nil {
		return "", "", err
	}
	if validationID, err = api.PathID(r, "validationId"); err != nil {
		return "", "", err
	}
	return id, validationID, nil
}

type linkForm struct {
	Token string `json:"token"`
}

// ExchangeLink is POST api/v1/accounts/password-reset/link: {"token"} from
// a /reset?token=… email link. 200 {id, action, token, ubiDriver} as
// Validate; 403 3004 (token-expired roadblock) for a used, expired or
// unknown link.
func (h *Handler) ExchangeLink(w http.ResponseWriter, r *http.Request) error {
	var f linkForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	out, err := h.Service.ExchangeLink(r.Context(), api.SiteOf(r).Brand.ID, f.Token, api.ClientIP(r))
	return api.Reply(w, http.StatusOK, out, apiError(err))
}

type passwordForm struct {
	Password     string `json:"password"`
	Token        string `json:"token"`
	PostalCode   string `json:"postalCode"`
	CellPhone    string `json:"cellPhone"`
	TempPassword string `json:"tempPassword"`
}

type passwordAnswer struct {
	// Email lets the SPA sign in through the SSO form with the new password.
	Email string `json:"email"`
}

// SetPassword is POST api/v1/accounts/{id}/password, either
// {password, token, postalCode | cellPhone} or {password, tempPassword}.
// 200 {email}. 400 2001 (rule broken; key in messageKey and fields.password)
// or 2002 (contains the email); 400 1002 wrong postal code; 403
// WRONG_CELLPHONE a UBI driver's wrong phone (the account locked 24 hours);
// 403 3004 reset token dead (the fifth wrong postal code included); 400
// with a field key for a malformed postal code or phone; temporary variant:
// 400 3005 wrong temporary password, 409 TEMPORARY_PASSWORD_INVALID none
// usable, 403 3001 the right one of an account staff disabled; 429
// RATE_LIMITED.
func (h *Handler) SetPassword(w http.ResponseWriter, r *http.Request) error {
	var f passwordForm
	id, err := api.PathAndBody(w, r, "id", &f)
	if err != nil {
		return err
	}
	site := api.SiteOf(r)
	var a account.Account
	switch {
	case f.TempPassword != "" && f.Token == "" && f.PostalCode == "" && f.CellPhone == "":
		temp, terr := rules.LoginPassword(f.TempPassword)
		if terr != nil {
			return terr
		}
		a, err = h.Service.ResetWithTemporary(r.Context(), TemporaryReset{
			Brand: site.Brand.ID, ID: id, TempPassword: temp, Password: f.Password,
			Language: site.Language, Province: site.Province, IP: api.ClientIP(r),
		})
	case f.Token != "" && f.TempPassword == "":
		a, err = h.Service.ResetWithToken(r.Context(), TokenReset{
			Brand: site.Brand.ID, ID: id, Token: f.Token, Password: f.Password,
			PostalCode: f.PostalCode, CellPhone: f.CellPhone,
			Language: site.Language, Province: site.Province, IP: api.ClientIP(r),
		})
	default:
		return errVariant
	}
	return api.Reply(w, http.StatusOK, passwordAnswer{Email: a.Email}, apiError(err))
}

// Errors the recovery API answers itself.
var (
	errUnauthenticated = api.ErrUnauthenticated
	errWrongCurrent    = api.NewError(http.StatusBadRequest, "WRONG_CURRENT_PASSWORD", "security.password.currentWrong")
	// errVariant: neither or both of token and tempPassword.
	errVariant = api.NewError(http.StatusBadRequest, "BAD_REQUEST", "error.badRequest")
)

// Spec §8.3 Password set codes.
const (
	codePasswordViolation = "2001"
	codePasswordContent   = "2002"
)

// answers are the domain errors of recovery (and of account, for the
// temporary variant) with spec §8's statuses and codes.
var answers = []api.Answer{
	{Err: ErrWrongCode, Answer: api.ErrCodeWrong},
	{Err: ErrCodeExceeded, Answer: api.ErrCodeExceeded},
	{Err: ErrCodeExpired, Answer: api.ErrCodeExpired},
	// 404 and 409 mark the flow roadblocked (spec §8.1): the SPA shows
	// /roadblock/resend-reset-password.
	{Err: ErrResetNotFound, Answer: api.NewError(http.StatusNotFound, "RESET_NOT_FOUND", "roadblock.resendResetPassword")},
	{Err: ErrResendLimit, Answer: api.NewError(http.StatusConflict, "RESEND_LIMIT_REACHED", "roadblock.resendResetPassword")},
	{Err: ErrResetClosed, Answer: api.NewError(http.StatusConflict, "RESET_CLOSED", "roadblock.resendResetPassword")},
	// Spec §8.1's 403 3004: the token-expired roadblock.
	{Err: ErrTokenInvalid, Answer: api.NewError(http.StatusForbidden, "3004", "roadblock.tokenExpired")},
	{Err: ErrWrongPostalCode, Answer: &api.Error{Status: http.StatusBadRequest, Code: "1002",
		MessageKey: "resetPassword.wrongPostalCode", Fields: map[string]string{rules.FieldPostalCode: "resetPassword.wrongPostalCode"}}},
	// The wrong-cellphone roadblock (account locked 24 hours after a
	// wrong phone).
	{Err: ErrWrongCellphone, Answer: api.NewError(http.StatusForbidden, "WRONG_CELLPHONE", "roadblock.wrongCellphone")},
	// Spec §8.1's 403 3006 (the two-factor roadblock): the account's
	// second factor is not on file, only an agent can help.
	{Err: ErrNoSecondFactor, Answer: api.NewError(http.StatusForbidden, "3006", "roadblock.twoFactor")},
	// Temporary variant: the sign-in's answers (account.Handler).
	account.AnswerWrongTemporary,
	account.AnswerTemporaryInvalid,
	account.AnswerDisabled,
	{Err: ErrRateLimited, With: api.Throttled},
	account.AnswerRateLimited,
	account.AnswerBusy,
}

// apiError maps the domain errors of recovery and account to the API's,
// once: a PasswordError names its rule's code, the rest is a lookup.
func apiError(err error) error {
	var pe PasswordError
	if errors.As(err, &pe) {
		code := codePasswordViolation
		if pe.Key == rules.KeyPasswordContainsEmail {
			code = codePasswordContent
		}
		return &api.Error{Status: http.StatusBadRequest, Code: code, MessageKey: pe.Key,
			Fields: map[string]string{rules.FieldPassword: pe.Key}}
	}
	return api.Map(err, answers)
}
