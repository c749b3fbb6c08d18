// Package console is the staff console's API on the console host (issue
// 16): finding a customer, the account view and the actions staff take on
// it (unlock, disable, enable, temporary password, reset email, invitation),
// the supervisors' calls (policy import, maintenance, audit export) and the
// admins' (staff members; the OpenID provider's clients, issue 30).
// Every call reads the signed-in staff member from the request's context
// (staff.PrincipalFrom) and checks the role and the brands served; every
// state-changing call wants a fresh second factor and is audited with the
// staff member as the actor.
//
// The handlers (customers.go, actions.go, supervisor.go, staffadmin.go,
// clients.go) decode a call, hand it to the Service (service*.go), which
// holds the rules and reaches the tables through their owners (account,
// policy, audit, registration, staff, maintenance, oidc), and turn its
// domain errors into answers in one place (apiError, errors.go).
package console

import (
	"context"
	"net/http"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/staff"
)

// Handler serves /api/console/v1's customer and supervisor calls (routes in
// internal/httpapi/routes.go, behind the staff session middleware).
type Handler struct {
	Service *Service
	// ConsoleOrigin is the console's scheme://host, where set-up links go.
	ConsoleOrigin string
}

// auditBrand is the audit rows' brand of console events that concern no
// customer's brand.
const auditBrand = staff.AuditBrand

// caller is who makes the call r.
func caller(r *http.Request) Caller {
	p, _ := staff.PrincipalFrom(r.Context())
	return Caller{Staff: p, IP: api.ClientIP(r), Call: r.Method + " " + r.Pattern}
}

// call is what a handler does first: the caller, authorized for min's role
// (and a fresh factor for a change).
func (h *Handler) call(r *http.Request, min staff.Role, change bool) (Caller, error) {
	c := caller(r)
	return c, apiError(h.Service.Authorize(r.Context(), c, min, change))
}

// callWith is call for a change, then the request body decoded into v
// (api.Decode): what a call that sends a form does first.
func (h *Handler) callWith(w http.ResponseWriter, r *http.Request, min staff.Role, v any) (Caller, error) {
	c, err := h.call(r, min, true)
	if err != nil {
		return c, err
	}
	return c, api.Decode(w, r, v)
}

// list answers a list call: the caller authorized for min, then 200 {key:
// [view(item, now), …]} of what fetch returns (an empty list as []), or
// fetch's error as apiError maps it.
func list[T, J any](h *Handler, w http.ResponseWriter, r *http.Request, min staff.Role, key string,
	fetch func(context.Context, Caller) ([]T, error), view func(T, time.Time) J) error {
	c, err := h.call(r, min, false)
	if err != nil {
		return err
	}
	items, err := fetch(r.Context(), c)
	if err != nil {
		return apiError(err)
	}
	now := h.Service.Now()
	out := make([]J, 0, len(items))
	for _, it := range items {
		out = append(out, view(it, now))
	}
	api.JSON(w, http.StatusOK, map[string]any{key: out})
	return nil
}

// act starts a customer action: an agent or more, a fresh factor, the
// customer of the path's id, of a brand served.
func (h *Handler) act(r *http.Request) (Caller, account.Account, error) {
	c, err := h.call(r, staff.RoleAgent, true)
	if err != nil {
		return c, account.Account{}, err
	}
	a, err := h.customer(r, c)
	return c, a, err
}

// actWith is act, then the request body decoded into v (api.Decode).
func (h *Handler) actWith(w http.ResponseWriter, r *http.Request, v any) (Caller, account.Account, error) {
	c, a, err := h.act(r)
	if err != nil {
		return c, a, err
	}
	return c, a, api.Decode(w, r, v)
}

// customer loads the account the path names for c.
func (h *Handler) customer(r *http.Request, c Caller) (account.Account, error) {
	id, err := api.PathID(r, "id")
	if err != nil {
		return account.Account{}, err
	}
	a, err := h.Service.Customer(r.Context(), c, id)
	return a, apiError(err)
}
