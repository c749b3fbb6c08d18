package console

import (
	"context"
	"net/http"
	"strings"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/staff"
)

// customerJSON is a customer in a list: who, and whether they can sign in.
type customerJSON struct {
	ID       string `json:"id"`
	Brand    string `json:"brand"`
	Email    string `json:"email"`
	Name     string `json:"name"`
	Status   string `json:"status"`
	Locked   bool   `json:"locked"`
	Disabled bool   `json:"disabled"`
}

func customerOf(a account.Account, now time.Time) customerJSON {
	return customerJSON{ID: a.ID, Brand: a.Brand, Email: a.Email,
		Name:   strings.TrimSpace(a.FirstName + " " + a.LastName),
		Status: string(a.Status), Locked: a.Status == account.Locked || now.Before(a.LockedUntil),
		Disabled: !a.DisabledAt.IsZero()}
}

// Search is GET /api/console/v1/customers?q=&brand=: the customers whose
// email starts with q, whose first, last or full name starts with q, who
// hold the policy numbered q or whose phone is q, within the brands the
// staff member serves (and brand, when given). 400 VALIDATION for a q
// shorter than 2 characters.
func (h *Handler) Search(w http.ResponseWriter, r *http.Request) error {
	return list(h, w, r, staff.RoleAgent, "customers", func(ctx context.Context, c Caller) ([]account.Account, error) {
		return h.Service.Search(ctx, c, r.URL.Query().Get("q"), r.URL.Query().Get("brand"))
	}, customerOf)
}

type policyJSON struct {
	Number string `json:"number"`
	Kind   string `json:"kind"`
	Role   string `json:"role"`
}

type registrationJSON struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

type eventJSON struct {
	At      time.Time `json:"at"`
	Event   string    `json:"event"`
	Outcome string    `json:"outcome"`
	Detail  string    `json:"detail"`
	Actor   string    `json:"actor"`
	IP      string    `json:"ip"`
}

type detailJSON struct {
	customerJSON
	Language           string             `json:"language"`
	Phone              string             `json:"phone"`
	CreatedAt          time.Time          `json:"createdAt"`
	LockedUntil        *time.Time         `json:"lockedUntil"`
	DisabledAt         *time.Time         `json:"disabledAt"`
	TemporaryExpiresAt *time.Time         `json:"temporaryExpiresAt"`
	FailedAttempts     int                `json:"failedAttempts"`
	Policies           []policyJSON       `json:"policies"`
	LastSignIns        []time.Time        `json:"lastSignIns"`
	OpenRegistrations  []registrationJSON `json:"openRegistrations"`
	Events             []eventJSON        `json:"events"`
	Passkeys           int                `json:"passkeys"`
	DeletionAt         *time.Time         `json:"deletionAt"`
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func detailOf(d Detail) detailJSON {
	a := d.Account
	out := detailJSON{customerJSON: customerOf(a, d.At), Language: a.Language, Phone: a.Phone, CreatedAt: a.CreatedAt,
		LockedUntil: timeOrNil(d.LockedUntil), DisabledAt: timeOrNil(a.DisabledAt),
		TemporaryExpiresAt: timeOrNil(d.TemporaryExpiresAt), FailedAttempts: d.FailedAttempts, Passkeys: d.Passkeys,
		DeletionAt: timeOrNil(d.DeletionAt),
		Policies:   []policyJSON{}, LastSignIns: []time.Time{}, OpenRegistrations: []registrationJSON{}, Events: []eventJSON{}}
	for _, p := range d.Policies {
		out.Policies = append(out.Policies, policyJSON{Number: p.Number, Kind: string(p.Kind), Role: string(p.Role)})
	}
	out.LastSignIns = append(out.LastSignIns, d.LastSignIns...)
	for _, o := range d.OpenRegistrations {
		out.OpenRegistrations = append(out.OpenRegistrations, registrationJSON{ID: o.ID, CreatedAt: o.CreatedAt, ExpiresAt: o.ExpiresAt})
	}
	for _, e := range d.Events {
		out.Events = append(out.Events, eventJSON{At: e.At, Event: string(e.Event), Outcome: e.Outcome, Detail: e.Detail, Actor: e.Actor, IP: e.IP})
	}
	return out
}

// Customer is GET /api/console/v1/customers/{id}: the account, its
// policies, last sign-ins, failed attempts, lock, open registrations and
// its 50 most recent audit events. The view is audited.
func (h *Handler) Customer(w http.ResponseWriter, r *http.Request) error {
	c, err := h.call(r, staff.RoleAgent, false)
	if err != nil {
		return err
	}
	a, err := h.customer(r, c)
	if err != nil {
		return err
	}
	d, err := h.Service.View(r.Context(), c, a)
	return api.Reply(w, http.StatusOK, detailOf(d), apiError(err))
}
