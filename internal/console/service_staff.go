package console

import (
	"context"

	"guichet/internal/staff"
)

// The admins' calls: after Authorize with RoleAdmin.

// StaffList lists every staff member.
func (s *Service) StaffList(ctx context.Context) ([]staff.Member, error) {
	return s.Staff.List(ctx)
}

// StaffAdd adds a member and answers the one-time set-up token to give them
// (audited by staff.Service.Add with the admin as actor).
func (s *Service) StaffAdd(ctx context.Context, c Caller, m staff.NewMember) (staff.Member, string, error) {
	return s.Staff.Add(ctx, m, c.Staff.Actor())
}

// StaffDisable disables the member id: they can no longer sign in; their
// sessions end at once. An admin cannot disable themselves (ErrSelf).
func (s *Service) StaffDisable(ctx context.Context, c Caller, id string) (staff.Member, error) {
	if id == c.Staff.ID {
		return staff.Member{}, ErrSelf
	}
	members, err := s.Staff.List(ctx)
	if err != nil {
		return staff.Member{}, err
	}
	for _, m := range members {
		if m.ID != id {
			continue
		}
		if err := s.Staff.Disable(ctx, m.Email, c.Staff.Actor()); err != nil {
			return staff.Member{}, err
		}
		m.Disabled = true
		return m, nil
	}
	return staff.Member{}, ErrNotFound
}
