package account

import (
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"

	"guichet/internal/api"
	"guichet/internal/rules"
)

// Handler serves the sign-in calls of spec §7 (routes in
// internal/httpapi/routes.go):
//
//	POST /api/v1/accounts/find                  Find
//	POST /api/v1/accounts/{id}/temporary        Temporary
//	POST /api/v1/accounts/{id}/authentication   Authentication
//	POST /api/v1/accounts/{id}/notification     Notification
type Handler struct {
	Service *Service
}

type findForm struct {
	Email string `json:"email"`
}

// Find is the login variant of POST api/v1/accounts/find (the route table
// sends a body naming a policyNumber to registration: httpapi's
// FindOverload): {"email"}. 200 {id, status: "A"|"T", email}; 404 when no account
// has that email.
func (h *Handler) Find(w http.ResponseWriter, r *http.Request) error {
	var f findForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	email, err := rules.Email(f.Email)
	if err != nil {
		return err
	}
	found, err := h.Service.Find(r.Context(), api.SiteOf(r).Brand.ID, email, api.ClientIP(r))
	return api.Reply(w, http.StatusOK, found, apiError(err))
}

type temporaryForm struct {
	TempPassword string `json:"tempPassword"`
}

// Temporary is POST api/v1/accounts/{id}/temporary: {"tempPassword"}.
// 200 {} when right (the SPA goes to /reset and sends it again there);
// 400 3005 when wrong; 409 TEMPORARY_PASSWORD_INVALID when none is usable
// any more (the third wrong try included): the SPA shows the temporary
// roadblock; 403 3001 for the right one of an account staff disabled.
func (h *Handler) Temporary(w http.ResponseWriter, r *http.Request) error {
	var f temporaryForm
	id, err := api.PathAndBody(w, r, "id", &f)
	if err != nil {
		return err
	}
	temp, err := rules.LoginPassword(f.TempPassword)
	if err != nil {
		return err
	}
	err = h.Service.CheckTemporary(r.Context(), api.SiteOf(r).Brand.ID, id, temp, api.ClientIP(r))
	return api.Reply(w, http.StatusOK, struct{}{}, apiError(err))
}

type authenticationForm struct {
	Password    string `json:"password"`
	DateOfBirth string `json:"dateOfBirth"`
	PostalCode  string `json:"postalCode"`
}

type authenticationAnswer struct {
	LoginTicket string `json:"loginTicket"`
}

// Authentication is POST api/v1/accounts/{id}/authentication (for a
// registration id the route table calls registration: httpapi's
// AuthenticationOverload):
// {"password", "dateOfBirth"?, "postalCode"?}. 200 {"loginTicket"} (the
// SSO form post sends it as "ticket"); 400 3005 for a wrong password, an
// unknown account or a locked one alike; 400 1002 for a wrong date of birth
// or postal code; 403 3001 when every credential was right but staff disabled
// the account (the block roadblock); 429 RATE_LIMITED.
func (h *Handler) Authentication(w http.ResponseWriter, r *http.Request) error {
	var f authenticationForm
	id, err := api.PathAndBody(w, r, "id", &f)
	if err != nil {
		return err
	}
	site := api.SiteOf(r)
	c := Credentials{Brand: site.Brand.ID, AccountID: id, IP: api.ClientIP(r)}
	if c.Password, err = rules.LoginPassword(f.Password); err != nil {
		return err
	}
	if f.DateOfBirth != "" {
		// Checked and normalized like registration's, then compared with
		// the account's.
		if c.DateOfBirth, err = rules.DateOfBirth(f.DateOfBirth, h.Service.Now()); err != nil {
			return err
		}
	}
	if f.PostalCode != "" {
		if c.PostalCode, err = rules.PostalCode(f.PostalCode); err != nil {
			return err
		}
	}
	ticket, err := h.Service.Authenticate(r.Context(), c)
	return api.Reply(w, http.StatusOK, authenticationAnswer{LoginTicket: ticket}, apiError(err))
}

type notificationForm struct {
	MediumType       string `json:"mediumType"`
	NotificationType string `json:"notificationType"`
}

// Notification is POST api/v1/accounts/{id}/notification:
// {"mediumType": "EMAIL", "notificationType": "LOCKED_ACCOUNT"|"RESET_PSW"}.
// 200 {} once the email is queued, and the same for an id that names no
// account (a decoy of password reset), which sends nothing.
func (h *Handler) Notification(w http.ResponseWriter, r *http.Request) error {
	var f notificationForm
	id, err := api.PathAndBody(w, r, "id", &f)
	if err != nil {
		return err
	}
	if f.MediumType != "EMAIL" {
		return errBadMedium
	}
	site := api.SiteOf(r)
	err = h.Service.Notify(r.Context(), NotifyRequest{
		Brand: site.Brand.ID, AccountID: id, Type: f.NotificationType,
		IP: api.ClientIP(r), BaseURL: Origin(r),
	})
	return api.Reply(w, http.StatusOK, struct{}{}, apiError(err))
}

// Origin is the scheme://host links in emails point to: the brand site the
// visitor used when its host is one of the brand's (a default brand may serve
// any Host header, which must not choose where a reset link goes), else the
// brand's first host. Plain http only in --dev.
func Origin(r *http.Request) string {
	site := api.SiteOf(r)
	b := site.Brand
	scheme := "https"
	if r.TLS == nil && site.Dev {
		scheme = "http"
	}
	hostname, port := r.Host, ""
	if h, p, err := net.SplitHostPort(r.Host); err == nil {
		hostname, port = h, p
	}
	hostname = strings.TrimSuffix(strings.ToLower(hostname), ".")
	known := slices.Contains(b.Hosts, hostname)
	if site.Dev {
		known = known || slices.Contains(b.DevHosts, hostname) ||
			hostname == "localhost" || hostname == "127.0.0.1" || hostname == "::1"
	}
	switch {
	case known:
		return scheme + "://" + r.Host
	case site.Dev && len(b.DevHosts) > 0:
		if port != "" {
			return scheme + "://" + net.JoinHostPort(b.DevHosts[0], port)
		}
		return scheme + "://" + b.DevHosts[0]
	case len(b.Hosts) > 0:
		return "https://" + b.Hosts[0]
	}
	return scheme + "://" + r.Host
}

// errWrongPassword is spec §8.3 Authentication 3005, on 400: a wrong
// password or temporary password, an unknown account or a locked one.
var errWrongPassword = api.NewError(http.StatusBadRequest, "3005", "login.error")

var errBadMedium = api.NewError(http.StatusBadRequest, "UNSUPPORTED_MEDIUM", "error.badRequest")

// answers are the sign-in API's errors, with spec §8's statuses and codes.
var answers = []api.Answer{
	{Err: ErrWrongPassword, Answer: errWrongPassword},
	AnswerWrongTemporary,
	// Spec §8.3 Authentication 1002.
	{Err: ErrSecurityAnswers, Answer: api.NewError(http.StatusBadRequest, "1002", "login.securityQuestions")},
	AnswerDisabled,
	AnswerTemporaryInvalid,
	{Err: ErrNotFound, Answer: api.NewError(http.StatusNotFound, "ACCOUNT_NOT_FOUND", "login.error")},
	AnswerRateLimited,
	{Err: ErrUnknownNotification, Answer: api.NewError(http.StatusBadRequest, "UNSUPPORTED_NOTIFICATION", "error.badRequest")},
	AnswerBusy,
}

// The sign-in's answers that other handler packages' tables share
// (passkey, reauth, recovery's temporary variant, registration).
var (
	AnswerWrongTemporary = api.Answer{Err: ErrWrongTemporary, Answer: errWrongPassword}
	// A temporary password no longer usable: 409 marks the flow
	// roadblocked (spec §8.1) and the temporary step sends the visitor to
	// /roadblock/temporary.
	AnswerTemporaryInvalid = api.Answer{Err: ErrTemporaryInvalid,
		Answer: api.NewError(http.StatusConflict, "TEMPORARY_PASSWORD_INVALID", "roadblock.temporary")}
	// Every credential right but staff disabled the account: spec §8.1's
	// 403 3001, the block roadblock.
	AnswerDisabled    = api.Answer{Err: ErrDisabled, Answer: api.NewError(http.StatusForbidden, "3001", "roadblock.block")}
	AnswerRateLimited = api.Answer{Err: ErrRateLimited, With: api.Throttled}
	AnswerBusy        = api.Answer{Err: ErrBusy, With: BusyAnswer}
)

// apiError maps the package's domain errors to the API's, once.
func apiError(err error) error { return api.Map(err, answers) }

// BusyAnswer is the API's answer to ErrBusy: 429 BUSY, not RATE_LIMITED, so
// the SPA says "try again in a few seconds" on the form, with Retry-After
// from the expected wait.
func BusyAnswer(err error) *api.Error {
	a := api.NewError(http.StatusTooManyRequests, "BUSY", "error.busy")
	var busy *BusyError
	if errors.As(err, &busy) {
		a.RetryAfter = busy.RetryAfter()
	}
	return a
}
