package account

import (
	"context"
	"errors"

	"guichet/internal/audit"
	"guichet/internal/store"
)

// AuthenticateByKey is a sign-in whose proof was checked outside this
// package: a passkey's assertion (internal/passkey). proved says whether
// it verified. Everything else is a password sign-in's, in the same code
// (settle): the client's rate limit, a locked account refused as a wrong
// password, a failed proof counted toward the lockout, a disabled account
// ErrDisabled, an account holding a temporary password refused (it goes
// through /temporary). On success the failures are cleared, onSuccess runs
// in the transaction that records it (sso.login, detail passkey) and a
// login ticket is returned: the SSO form post redeems it as it redeems a
// password's, so the session opens exactly as after a password.
func (s *Service) AuthenticateByKey(ctx context.Context, brand, accountID, ip string, proved bool,
	onSuccess func(*store.Tx, Account) error) (ticket string, err error) {
	e := audit.Event{Brand: brand, AccountID: accountID, IP: ip, Event: audit.SSOLogin, Detail: "passkey"}
	if err := s.allow(ctx, s.Limits.Authenticate, ip, e); err != nil {
		return "", err
	}
	r, err := recordByID(ctx, s.DB, brand, accountID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return "", err
	}
	found := err == nil
	if found && r.Status == Temporary {
		found = false
		e.Detail = "passkey_temporary"
	}
	err = s.settle(ctx, r, found, proved, Credentials{Brand: brand, AccountID: accountID, IP: ip}, e, nil,
		func(tx *store.Tx, a Account) error {
			if err := onSuccess(tx, a); err != nil {
				return err
			}
			t, err := issueTicket(ctx, tx, a, s.Now())
			ticket = t
			return err
		})
	return ticket, err
}
