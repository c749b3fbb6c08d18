// Package console is the staff console's API on the console host (issue
// 16): finding a customer, the account view and the actions staff take on
// it (unlock, disable, enable, temporary password, reset email, invitation),
// and the supervisors' calls (policy import, maintenance, audit export).
// Every call reads the signed-in staff member from the request's context
// (staff.PrincipalFrom) and checks the role and the brands served; every
// state-changing call wants a fresh second factor and is audited with the
// staff member as the actor.
package console

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/audit"
	"guichet/internal/brand"
	"guichet/internal/emailtoken"
	"guichet/internal/staff"
	"guichet/internal/store"
)

// Handler serves /api/console/v1's customer and supervisor calls (routes in
// internal/httpapi/routes.go, behind the staff session middleware).
type Handler struct {
	DB       *store.DB
	Accounts *account.Service
	Tokens   *emailtoken.Service
	// Staff is the staff accounts (the admins' calls).
	Staff *staff.Service
	// ConsoleOrigin is the console's scheme://host, where set-up links go.
	ConsoleOrigin string
	// Brands resolves a brand id (the registry's Get).
	Brands func(id string) (*brand.Brand, bool)
	// LinkBase is the scheme://host of a brand's site, where the links of
	// the emails sent for staff point (emailtoken.LinkBase).
	LinkBase func(b *brand.Brand) string
	Now      func() time.Time
	// Rand makes temporary passwords (crypto/rand.Reader when nil).
	Rand io.Reader
}

// Audit events written by the console (the account package writes its own
// for disable and enable).
const (
	EventView        = "console.customer_view"
	EventForbidden   = "console.forbidden"
	EventUnlock      = "console.unlock"
	EventTemporary   = "console.temporary_password"
	EventResetEmail  = "console.reset_email"
	EventInvitation  = "console.invitation"
	EventImport      = "console.policy_import"
	EventMaintenance = "console.maintenance"
	EventAuditExport = "console.audit_export"
)

// auditBrand is the audit rows' brand of console events that concern no
// customer's brand.
const auditBrand = staff.AuditBrand

// Errors of the console's calls, mapped once here.
var (
	errSignIn         = staff.ErrSignInRequired
	errReauth         = staff.ErrReauthRequired
	errForbiddenRole  = api.NewError(http.StatusForbidden, "FORBIDDEN_ROLE", "console.error.forbiddenRole")
	errForbiddenBrand = api.NewError(http.StatusForbidden, "FORBIDDEN_BRAND", "console.error.forbiddenBrand")
	errNotFound       = api.NewError(http.StatusNotFound, "NOT_FOUND", "console.error.notFound")
)

// validation is a 400 VALIDATION naming the field.
func validation(field, key string) *api.Error {
	e := api.NewError(http.StatusBadRequest, "VALIDATION", key)
	e.Fields = map[string]string{field: key}
	return e
}

// call is what a handler checks first: a signed-in staff member of at
// least min's role; for a change (state-changing call) a fresh second
// factor too. A refused role is audited.
func (h *Handler) call(r *http.Request, min staff.Role, change bool) (staff.Principal, error) {
	p, ok := staff.PrincipalFrom(r.Context())
	if !ok || p.ID == "" {
		return p, errSignIn
	}
	if change && !p.FactorFresh(h.Now()) {
		return p, errReauth
	}
	if !p.Role.AtLeast(min) {
		h.refuse(r.Context(), r, p, auditBrand, "", "forbidden_role")
		return p, errForbiddenRole
	}
	return p, nil
}

// refuse audits a refused call (a role too low, a brand not served).
func (h *Handler) refuse(ctx context.Context, r *http.Request, p staff.Principal, b, accountID, outcome string) {
	// The refusal stands whether its row is written or not; a failed write
	// is the database's trouble, reported by the next call.
	_ = audit.Record(ctx, h.DB, audit.Event{At: h.Now(), Brand: b, AccountID: accountID, IP: api.ClientIP(r),
		Event: EventForbidden, Outcome: outcome, Detail: r.Method + " " + r.Pattern, Actor: p.Actor()})
}

// customer loads the account a path names, on whatever brand, and checks
// the staff member serves its brand (403 FORBIDDEN_BRAND and an audit row
// otherwise).
func (h *Handler) customer(r *http.Request, p staff.Principal) (account.Account, error) {
	id, err := api.PathID(r, "id")
	if err != nil {
		return account.Account{}, err
	}
	var b string
	err = h.DB.QueryRow(r.Context(), "SELECT brand FROM accounts WHERE id = ?", id).Scan(&b)
	if err != nil {
		if errors.Is(store.NotFound(err), store.ErrNotFound) {
			return account.Account{}, errNotFound
		}
		return account.Account{}, err
	}
	if !p.Serves(b) {
		h.refuse(r.Context(), r, p, b, id, "forbidden_brand")
		return account.Account{}, errForbiddenBrand
	}
	a, err := account.ByID(r.Context(), h.DB, b, id)
	if errors.Is(err, account.ErrNotFound) {
		return a, errNotFound
	}
	return a, err
}

// record writes an audit row of a console action in ex (the action's
// transaction, or the database).
func (h *Handler) record(ctx context.Context, ex audit.Execer, r *http.Request, p staff.Principal, e audit.Event) error {
	e.At, e.IP, e.Actor = h.Now(), api.ClientIP(r), p.Actor()
	return audit.Record(ctx, ex, e)
}
