package console

import (
	"context"
	"net/http"
	"time"

	"guichet/internal/api"
	"guichet/internal/staff"
)

type memberJSON struct {
	ID          string     `json:"id"`
	Email       string     `json:"email"`
	Name        string     `json:"name"`
	Role        string     `json:"role"`
	Brands      []string   `json:"brands"`
	Enrolled    bool       `json:"enrolled"`
	Disabled    bool       `json:"disabled"`
	LockedUntil *time.Time `json:"lockedUntil"`
	CreatedAt   time.Time  `json:"createdAt"`
}

func memberOf(m staff.Member, now time.Time) memberJSON {
	out := memberJSON{ID: m.ID, Email: m.Email, Name: m.Name, Role: string(m.Role), Brands: m.Brands,
		Enrolled: m.Enrolled, Disabled: m.Disabled, CreatedAt: m.CreatedAt}
	if out.Brands == nil {
		out.Brands = []string{}
	}
	if now.Before(m.LockedUntil) {
		out.LockedUntil = &m.LockedUntil
	}
	return out
}

// StaffList is GET /api/console/v1/staff (admin): every staff member.
func (h *Handler) StaffList(w http.ResponseWriter, r *http.Request) error {
	return list(h, w, r, staff.RoleAdmin, "staff", func(ctx context.Context, _ Caller) ([]staff.Member, error) {
		return h.Service.StaffList(ctx)
	}, memberOf)
}

type addForm struct {
	Email  string   `json:"email"`
	Name   string   `json:"name"`
	Role   string   `json:"role"`
	Brands []string `json:"brands"`
}

// StaffAdd is POST /api/console/v1/staff (admin) {email, name, role,
// brands}: a new member and the one-time set-up link to give them
// (audited by staff.Service.Add with the admin as actor).
func (h *Handler) StaffAdd(w http.ResponseWriter, r *http.Request) error {
	var f addForm
	c, err := h.callWith(w, r, staff.RoleAdmin, &f)
	if err != nil {
		return err
	}
	m, token, err := h.Service.StaffAdd(r.Context(), c, staff.NewMember{Email: f.Email, Name: f.Name, Role: staff.Role(f.Role), Brands: f.Brands})
	return api.Reply(w, http.StatusOK, map[string]any{"staff": memberOf(m, h.Service.Now()), "setupLink": h.ConsoleOrigin + "/setup#" + token},
		apiError(err))
}

// StaffDisable is POST /api/console/v1/staff/{id}/disable (admin): the
// member can no longer sign in; their sessions end at once. An admin cannot
// disable themselves (409 STAFF_SELF).
func (h *Handler) StaffDisable(w http.ResponseWriter, r *http.Request) error {
	c, id, err := h.adminOn(r)
	if err != nil {
		return err
	}
	m, err := h.Service.StaffDisable(r.Context(), c, id)
	return api.Reply(w, http.StatusOK, memberOf(m, h.Service.Now()), apiError(err))
}

// adminOn starts an admin's change of the path's {id} (a staff member, a
// client): the caller, an admin with a fresh factor, and the id.
func (h *Handler) adminOn(r *http.Request) (Caller, string, error) {
	c, err := h.call(r, staff.RoleAdmin, true)
	if err != nil {
		return c, "", err
	}
	id, err := api.PathID(r, "id")
	return c, id, err
}
