package contact

import (
	"errors"
	"net/http"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/codes"
	"guichet/internal/rules"
	"guichet/internal/sso"
)

// Handler serves the changes (routes in internal/httpapi/routes.go):
//
//	POST /api/v1/me/email          StartEmail   (a fresh proof)
//	POST /api/v1/me/email/confirm  ConfirmEmail
//	POST /api/v1/me/phone          StartPhone   (a fresh proof)
//	POST /api/v1/me/phone/confirm  ConfirmPhone
//	POST /api/v1/email-undo        Undo         (no session: the former address's link)
type Handler struct {
	Service  *Service
	Sessions *sso.Handler
}

// UndoPage is the SPA page the former address's link opens.
const UndoPage = "/email-undo"

type emailForm struct {
	Email string `json:"email"`
}

type phoneForm struct {
	Phone string `json:"phone"`
}

type codeForm struct {
	Code string `json:"code"`
}

type undoForm struct {
	Token string `json:"token"`
}

// StartEmail is POST /api/v1/me/email {email}: 204, a code sent to the
// new address; 403 REAUTH_REQUIRED; 400 with the email rule or
// SAME_EMAIL; 409 EMAIL_ALREADY_EXISTS (another account's, or the former
// address of a change that may still be undone) or EMAIL_CHANGE_PENDING
// (this account's last change may still be undone, 72 hours); 429
// RESEND_LIMIT_REACHED.
func (h *Handler) StartEmail(w http.ResponseWriter, r *http.Request) error {
	var f emailForm
	return h.start(w, r, &f, Email, func() (string, error) { return rules.Email(f.Email) })
}

// StartPhone is POST /api/v1/me/phone {phone}: 204, a code sent by SMS to
// the new number; as StartEmail (400 with the phone rule or SAME_PHONE).
func (h *Handler) StartPhone(w http.ResponseWriter, r *http.Request) error {
	var f phoneForm
	return h.start(w, r, &f, Phone, func() (string, error) { return rules.Phone(f.Phone, true) })
}

func (h *Handler) start(w http.ResponseWriter, r *http.Request, form any, kind string, check func() (string, error)) error {
	s, err := h.Sessions.Fresh(r)
	if err != nil {
		return err
	}
	if err := api.Decode(w, r, form); err != nil {
		return err
	}
	value, err := check()
	if err != nil {
		return err
	}
	err = h.Service.Start(r.Context(), Start{Session: s, Kind: kind, Value: value, Language: api.SiteOf(r).Language, IP: api.ClientIP(r)})
	if err != nil {
		return apiError(err, kind)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ConfirmEmail is POST /api/v1/me/email/confirm {code}: 200 {email}, the
// account's new address (its username); 400 INVALID_ACTIVATION_CODE, 403
// EXCEEDED_RETRIES_CODE_ACTIVATION or CODE_EXPIRED, 409
// EMAIL_ALREADY_EXISTS (taken since the code was sent).
func (h *Handler) ConfirmEmail(w http.ResponseWriter, r *http.Request) error {
	return h.confirm(w, r, Email)
}

// ConfirmPhone is POST /api/v1/me/phone/confirm {code}: 200 {phone}; as
// ConfirmEmail.
func (h *Handler) ConfirmPhone(w http.ResponseWriter, r *http.Request) error {
	return h.confirm(w, r, Phone)
}

func (h *Handler) confirm(w http.ResponseWriter, r *http.Request, kind string) error {
	s, err := h.Sessions.SignedIn(r)
	if err != nil {
		return err
	}
	var f codeForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	code, err := rules.SecurityCode(f.Code)
	if err != nil {
		return err
	}
	site := api.SiteOf(r)
	value, err := h.Service.Confirm(r.Context(), Confirm{Session: s, Kind: kind, Code: code, Language: site.Language,
		Province: site.Province, IP: api.ClientIP(r), UndoBase: account.Origin(r) + UndoPage,
		ForgotLink: account.Origin(r) + "/forgot?lang=" + site.Language})
	if err != nil {
		return apiError(err, kind)
	}
	api.JSON(w, http.StatusOK, map[string]string{kind: value})
	return nil
}

// undoTokenLength is the undo link's token: two random ids.
const undoTokenLength = 2 * api.IDLength

// Undo is POST /api/v1/email-undo {token}: 204, the former address is the
// account's again, its password is gone until a reset and it is signed
// out everywhere; 403 UNDO_INVALID for a token unknown, used or past its
// 72 hours.
func (h *Handler) Undo(w http.ResponseWriter, r *http.Request) error {
	var f undoForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	if !api.IsBase64URL(f.Token, undoTokenLength) {
		return errUndoInvalid
	}
	if _, err := h.Service.Undo(r.Context(), api.SiteOf(r).Brand.ID, f.Token, api.ClientIP(r)); err != nil {
		return apiError(err, Email)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Errors of the contact API; a code's are api.CodeAnswers.
var (
	errSameEmail = &api.Error{Status: http.StatusBadRequest, Code: "SAME_EMAIL", MessageKey: "security.contact.same",
		Fields: map[string]string{rules.FieldEmail: "security.contact.same"}}
	errSamePhone = &api.Error{Status: http.StatusBadRequest, Code: "SAME_PHONE", MessageKey: "security.contact.same",
		Fields: map[string]string{rules.FieldPhone: "security.contact.same"}}
	errTaken = &api.Error{Status: http.StatusConflict, Code: "EMAIL_ALREADY_EXISTS", MessageKey: "security.email.taken",
		Fields: map[string]string{rules.FieldEmail: "security.email.taken"}}
	errUndoInvalid = api.NewError(http.StatusForbidden, "UNDO_INVALID", "security.undo.invalid")
	errUndoPending = &api.Error{Status: http.StatusConflict, Code: "EMAIL_CHANGE_PENDING", MessageKey: "security.email.pending",
		Fields: map[string]string{rules.FieldEmail: "security.email.pending"}}
	errSendLimit = api.NewError(http.StatusTooManyRequests, "RESEND_LIMIT_REACHED", "security.contact.sendLimit")
)

// answers are the domain errors as the API answers them, after a code's;
// ErrSame, which names the field changed, is code.
var answers = []api.Answer{
	{Err: ErrTaken, Answer: errTaken},
	{Err: ErrUndoInvalid, Answer: errUndoInvalid},
	{Err: ErrUndoPending, Answer: errUndoPending},
}

// apiError maps the domain errors to the API's, once; kind (Email or
// Phone) is the contact the call changes.
func apiError(err error, kind string) error {
	switch {
	case errors.Is(err, codes.ErrSendLimit):
		return errSendLimit
	case errors.Is(err, ErrSame) && kind == Phone:
		return errSamePhone
	case errors.Is(err, ErrSame):
		return errSameEmail
	}
	return api.Map(err, api.CodeAnswers, answers)
}
