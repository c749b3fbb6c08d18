package console

import (
	"crypto/rand"
	"errors"
	"io"
	"net/http"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/audit"
	"guichet/internal/emailtoken"
	"guichet/internal/notify"
	"guichet/internal/staff"
	"guichet/internal/store"
)

// TemporaryTTL is how long a temporary password issued by staff works.
const TemporaryTTL = 24 * time.Hour

// temporaryAlphabet has no look-alikes (0/O, 1/I/L) so the password can be
// read on the phone; temporaryLength of them carry about 49 bits, and the
// password works once, for 24 hours, three tries.
const (
	temporaryAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
	temporaryLength   = 10
)

var (
	errRateLimited = api.NewError(http.StatusTooManyRequests, "RATE_LIMITED", "console.error.rateLimited")
	errNoPolicy    = api.NewError(http.StatusNotFound, "POLICY_NUMBER_NOT_FOUND", "console.invitation.noPerson")
	errInactive    = api.NewError(http.StatusConflict, "POLICY_INACTIVE", "console.invitation.inactive")
)

// actionError maps the domain errors of the customer actions once.
func actionError(err error) error {
	var invalid *emailtoken.InvalidError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, account.ErrNotFound):
		return errNotFound
	case errors.Is(err, account.ErrRateLimited):
		return errRateLimited
	case errors.Is(err, emailtoken.ErrNoPerson):
		return errNoPolicy
	case errors.Is(err, emailtoken.ErrInactive):
		return errInactive
	case errors.Is(err, emailtoken.ErrSource):
		return validation("source", "console.invitation.source")
	case errors.As(err, &invalid):
		field := invalid.Field
		if field == "policy_number" {
			field = "policyNumber"
		}
		return validation(field, "console.invitation."+field)
	}
	return err
}

// answer sends the customer as they are after an action.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, a account.Account) error {
	a, err := account.ByID(r.Context(), h.DB, a.Brand, a.ID)
	if err != nil {
		return actionError(err)
	}
	api.JSON(w, http.StatusOK, customerOf(a, h.Now()))
	return nil
}

// act starts a customer action: an agent or more, a fresh factor, the
// customer of a brand served.
func (h *Handler) act(r *http.Request) (staff.Principal, account.Account, error) {
	p, err := h.call(r, staff.RoleAgent, true)
	if err != nil {
		return p, account.Account{}, err
	}
	a, err := h.customer(r, p)
	return p, a, err
}

// Unlock is POST /customers/{id}/unlock: the staff lock (status locked)
// and the timed lock of failed attempts end, the failed attempts are
// forgotten. An account holding a live temporary password gets back the
// temporary status.
func (h *Handler) Unlock(w http.ResponseWriter, r *http.Request) error {
	p, a, err := h.act(r)
	if err != nil {
		return err
	}
	err = h.DB.InTx(r.Context(), func(tx *store.Tx) error {
		now := h.Now()
		var failures int
		if err := tx.QueryRow(r.Context(), "SELECT COUNT(*) FROM login_failures WHERE account_id = ?", a.ID).Scan(&failures); err != nil {
			return err
		}
		res, err := tx.Exec(r.Context(), `UPDATE accounts SET status = CASE WHEN status <> ? THEN status
			WHEN temp_hash <> '' AND temp_expires_at > ? THEN ? ELSE ? END,
			locked_until = 0, lock_level = 0, updated_at = ?
			WHERE id = ? AND (status = ? OR locked_until > ? OR lock_level > 0)`,
			string(account.Locked), now.UnixMilli(), string(account.Temporary), string(account.Active), now.UnixMilli(),
			a.ID, string(account.Locked), now.UnixMilli())
		if err != nil {
			return err
		}
		if _, err := tx.Exec(r.Context(), "DELETE FROM login_failures WHERE account_id = ?", a.ID); err != nil {
			return err
		}
		outcome := "ok"
		if n, _ := res.RowsAffected(); n == 0 && failures == 0 {
			outcome = "unchanged"
		}
		return h.record(r.Context(), tx, r, p, audit.Event{Brand: a.Brand, AccountID: a.ID, Event: EventUnlock, Outcome: outcome})
	})
	if err != nil {
		return actionError(err)
	}
	return h.answer(w, r, a)
}

// Disable is POST /customers/{id}/disable (account.Disable, audited there
// with the staff member as actor).
func (h *Handler) Disable(w http.ResponseWriter, r *http.Request) error {
	p, a, err := h.act(r)
	if err != nil {
		return err
	}
	if err := h.Accounts.Disable(r.Context(), a.Brand, a.ID, p.Actor(), api.ClientIP(r)); err != nil {
		return actionError(err)
	}
	return h.answer(w, r, a)
}

// Enable is POST /customers/{id}/enable (account.Enable).
func (h *Handler) Enable(w http.ResponseWriter, r *http.Request) error {
	p, a, err := h.act(r)
	if err != nil {
		return err
	}
	if err := h.Accounts.Enable(r.Context(), a.Brand, a.ID, p.Actor(), api.ClientIP(r)); err != nil {
		return actionError(err)
	}
	return h.answer(w, r, a)
}

type temporaryForm struct {
	Delivery string `json:"delivery"`
}

type temporaryAnswer struct {
	Delivery          string    `json:"delivery"`
	TemporaryPassword string    `json:"temporaryPassword,omitempty"`
	ExpiresAt         time.Time `json:"expiresAt"`
}

// newTemporary draws a temporary password from the readable alphabet
// (rejection sampling: every letter equally likely).
func newTemporary(rnd io.Reader) (string, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	out := make([]byte, 0, temporaryLength)
	limit := 256 - 256%len(temporaryAlphabet)
	buf := make([]byte, 32)
	for len(out) < temporaryLength {
		if _, err := io.ReadFull(rnd, buf); err != nil {
			return "", err
		}
		for _, b := range buf {
			if int(b) < limit && len(out) < temporaryLength {
				out = append(out, temporaryAlphabet[int(b)%len(temporaryAlphabet)])
			}
		}
	}
	return string(out), nil
}

// TemporaryPassword is POST /customers/{id}/temporary-password {delivery}:
// a new temporary password (hashed; single use; 24 hours; the next sign-in
// must reset), answered once for show, emailed to the customer for email.
func (h *Handler) TemporaryPassword(w http.ResponseWriter, r *http.Request) error {
	p, a, err := h.act(r)
	if err != nil {
		return err
	}
	var f temporaryForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	if f.Delivery != "show" && f.Delivery != "email" {
		return validation("delivery", "console.temporary.delivery")
	}
	password, err := newTemporary(h.Rand)
	if err != nil {
		return err
	}
	hash, err := h.Accounts.Hasher.Hash(r.Context(), password)
	if err != nil {
		return err
	}
	out := temporaryAnswer{Delivery: f.Delivery}
	err = h.DB.InTx(r.Context(), func(tx *store.Tx) error {
		now := h.Now()
		out.ExpiresAt = time.UnixMilli(now.Add(TemporaryTTL).UnixMilli()).UTC()
		if err := account.SetTemporaryPassword(r.Context(), tx, a.ID, hash, out.ExpiresAt, now); err != nil {
			return err
		}
		if f.Delivery == "email" {
			if _, err := notify.Enqueue(r.Context(), tx, notify.Message{Brand: a.Brand, Language: a.Language,
				Channel: notify.ChannelEmail, To: a.Email, Template: notify.TemplateTemporaryPassword,
				Data:      map[string]string{notify.DataCode: password, notify.DataExpires: out.ExpiresAt.Format(time.DateOnly)},
				Sensitive: true, ExpiresAt: out.ExpiresAt}); err != nil {
				return err
			}
		}
		return h.record(r.Context(), tx, r, p, audit.Event{Brand: a.Brand, AccountID: a.ID, Event: EventTemporary,
			Outcome: "ok", Detail: f.Delivery})
	})
	if err != nil {
		return actionError(err)
	}
	if f.Delivery == "email" {
		h.poke()
	} else {
		out.TemporaryPassword = password
	}
	w.Header().Set("Cache-Control", "no-store")
	api.JSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) poke() {
	if h.Accounts.Poke != nil {
		h.Accounts.Poke()
	}
}

// ResetEmail is POST /customers/{id}/reset-email: the password-reset link
// email (account.Notify's RESET_PSW) to the customer, the link on the
// brand's site.
func (h *Handler) ResetEmail(w http.ResponseWriter, r *http.Request) error {
	p, a, err := h.act(r)
	if err != nil {
		return err
	}
	b, ok := h.Brands(a.Brand)
	if !ok {
		return errNotFound
	}
	if err := h.Accounts.Notify(r.Context(), account.NotifyRequest{Brand: a.Brand, AccountID: a.ID,
		Type: account.NotifyResetPassword, IP: api.ClientIP(r), BaseURL: h.LinkBase(b)}); err != nil {
		return actionError(err)
	}
	if err := h.record(r.Context(), h.DB, r, p, audit.Event{Brand: a.Brand, AccountID: a.ID, Event: EventResetEmail,
		Outcome: "ok"}); err != nil {
		return err
	}
	return h.answer(w, r, a)
}

type invitationForm struct {
	PolicyNumber string `json:"policyNumber"`
	Source       string `json:"source"`
}

// Invitation is POST /customers/{id}/invitation {policyNumber, source}: a
// registration invitation (an email token issued by staff:<id>) for the
// policy's insured person whose email is the customer's, sent by email.
func (h *Handler) Invitation(w http.ResponseWriter, r *http.Request) error {
	p, a, err := h.act(r)
	if err != nil {
		return err
	}
	var f invitationForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	var issued emailtoken.Issued
	err = h.DB.InTx(r.Context(), func(tx *store.Tx) error {
		var err error
		issued, err = h.Tokens.IssueTx(r.Context(), tx, emailtoken.Request{Brand: a.Brand, PolicyNumber: f.PolicyNumber,
			Email: a.Email, Source: f.Source, Send: true, IssuedBy: p.Actor(), IP: api.ClientIP(r)})
		if err != nil {
			return err
		}
		return h.record(r.Context(), tx, r, p, audit.Event{Brand: a.Brand, AccountID: a.ID, Event: EventInvitation,
			Outcome: "ok", Detail: f.Source})
	})
	if err != nil {
		return actionError(err)
	}
	if h.Tokens.Poke != nil {
		h.Tokens.Poke()
	}
	api.JSON(w, http.StatusOK, map[string]time.Time{"expiresAt": issued.ExpiresAt})
	return nil
}
