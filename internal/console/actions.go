package console

import (
	"context"
	"net/http"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
)

// answer sends the customer as they are after an action (or the action's
// error).
func (h *Handler) answer(w http.ResponseWriter, a account.Account, err error) error {
	return api.Reply(w, http.StatusOK, customerOf(a, h.Service.Now()), apiError(err))
}

// customerAction runs change on the path's customer (act) and answers the
// customer as change leaves them.
func (h *Handler) customerAction(w http.ResponseWriter, r *http.Request,
	change func(context.Context, Caller, account.Account) (account.Account, error)) error {
	c, a, err := h.act(r)
	if err != nil {
		return err
	}
	a, err = change(r.Context(), c, a)
	return h.answer(w, a, err)
}

// Unlock is POST /customers/{id}/unlock: the staff lock (status locked)
// and the timed lock of failed attempts end, the failed attempts are
// forgotten. An account holding a live temporary password gets back the
// temporary status.
func (h *Handler) Unlock(w http.ResponseWriter, r *http.Request) error {
	return h.customerAction(w, r, h.Service.Unlock)
}

// Disable is POST /customers/{id}/disable (account.Disable, audited there
// with the staff member as actor).
func (h *Handler) Disable(w http.ResponseWriter, r *http.Request) error {
	return h.customerAction(w, r, h.Service.Disable)
}

// RemovePasskeys is POST /customers/{id}/passkeys/remove: every passkey
// of the account removed (issue 31).
func (h *Handler) RemovePasskeys(w http.ResponseWriter, r *http.Request) error {
	return h.customerAction(w, r, h.Service.RemovePasskeys)
}

// Enable is POST /customers/{id}/enable (account.Enable).
func (h *Handler) Enable(w http.ResponseWriter, r *http.Request) error {
	return h.customerAction(w, r, h.Service.Enable)
}

type temporaryForm struct {
	Delivery string `json:"delivery"`
}

type temporaryAnswer struct {
	Delivery          string    `json:"delivery"`
	TemporaryPassword string    `json:"temporaryPassword,omitempty"`
	ExpiresAt         time.Time `json:"expiresAt"`
}

// TemporaryPassword is POST /customers/{id}/temporary-password {delivery}:
// a new temporary password (hashed; single use; 24 hours; the next sign-in
// must reset), answered once for show, emailed to the customer for email.
func (h *Handler) TemporaryPassword(w http.ResponseWriter, r *http.Request) error {
	var f temporaryForm
	c, a, err := h.actWith(w, r, &f)
	if err != nil {
		return err
	}
	t, err := h.Service.TemporaryPassword(r.Context(), c, a, f.Delivery)
	return api.Reply(w, http.StatusOK, temporaryAnswer{Delivery: t.Delivery, TemporaryPassword: t.Password, ExpiresAt: t.ExpiresAt},
		apiError(err))
}

// ResetEmail is POST /customers/{id}/reset-email: the password-reset link
// email (account.Notify's RESET_PSW) to the customer, the link on the
// brand's site.
func (h *Handler) ResetEmail(w http.ResponseWriter, r *http.Request) error {
	return h.customerAction(w, r, h.Service.ResetEmail)
}

type invitationForm struct {
	PolicyNumber string `json:"policyNumber"`
	Source       string `json:"source"`
}

// Invitation is POST /customers/{id}/invitation {policyNumber, source}: a
// registration invitation (an email token issued by staff:<id>) for the
// policy's insured person whose email is the customer's, sent by email.
func (h *Handler) Invitation(w http.ResponseWriter, r *http.Request) error {
	var f invitationForm
	c, a, err := h.actWith(w, r, &f)
	if err != nil {
		return err
	}
	expires, err := h.Service.Invitation(r.Context(), c, a, f.PolicyNumber, f.Source)
	return api.Reply(w, http.StatusOK, map[string]time.Time{"expiresAt": expires}, apiError(err))
}
