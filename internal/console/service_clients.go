package console

import (
	"context"
	"errors"
	"slices"

	"guichet/internal/oidc"
)

// The admins' calls on the OpenID provider's clients (issue 30): after
// Authorize with RoleAdmin, as the staff calls. The clients are oidc's
// (table oidc_clients); its Service writes the audit rows, with the admin as
// actor.

// Clients lists the clients of the brands the caller serves, by brand then
// name.
func (s *Service) Clients(ctx context.Context, c Caller) ([]oidc.Client, error) {
	all, err := s.OIDC.Clients(ctx, "")
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(cl oidc.Client) bool { return !c.Staff.Serves(cl.Brand) }), nil
}

// ClientAdd registers a client of a brand the caller serves and answers it
// with its secret (a confidential client's, shown this once; "" for a
// public one).
func (s *Service) ClientAdd(ctx context.Context, c Caller, in oidc.NewClient) (oidc.Client, string, error) {
	if _, ok := s.Brands(in.Brand); !ok {
		return oidc.Client{}, "", invalid("brand", "console.clients.invalid.brand")
	}
	if !c.Staff.Serves(in.Brand) {
		s.refuse(ctx, c, in.Brand, "", "forbidden_brand")
		return oidc.Client{}, "", ErrForbiddenBrand
	}
	return s.OIDC.AddClient(ctx, in, c.Staff.Actor())
}

// ClientDisable disables the client id, of a brand the caller serves: it
// can no longer start a sign-in, trade a code or refresh a token. A
// disabled client stays disabled (no second audit row).
func (s *Service) ClientDisable(ctx context.Context, c Caller, id string) (oidc.Client, error) {
	cl, err := s.OIDC.Client(ctx, id)
	if errors.Is(err, oidc.ErrUnknownClient) {
		return cl, ErrNotFound
	}
	if err != nil {
		return cl, err
	}
	if !c.Staff.Serves(cl.Brand) {
		s.refuse(ctx, c, cl.Brand, "", "forbidden_brand")
		return oidc.Client{}, ErrForbiddenBrand
	}
	if err := s.OIDC.DisableClient(ctx, id, c.Staff.Actor()); err != nil {
		return oidc.Client{}, err
	}
	return s.OIDC.Client(ctx, id)
}
