package account

import (
	"context"
	"errors"

	"guichet/internal/audit"
	"guichet/internal/store"
)

// ChangePassword is a signed-in customer's own change (issue 31): the
// current password is checked exactly as a sign-in checks it (the rate
// limit, the lockout, one hash whatever the case, a wrong one counting
// toward the lock), then the new one is set as a reset sets it (failures,
// locks and tickets cleared). newPassword is already checked and
// normalized with rules.Password. also runs in the transaction that sets
// it. A password changed meanwhile (another device) is ErrWrongPassword.
func (s *Service) ChangePassword(ctx context.Context, brand, accountID, current, newPassword, ip string,
	also func(*store.Tx, Account) error) error {
	e := audit.Event{Brand: brand, AccountID: accountID, IP: ip, Event: audit.PasswordCheck}
	err := func() error {
		ctx, release, err := s.Hasher.Admit(ctx)
		if err != nil {
			return err
		}
		defer release()
		if err := s.allow(ctx, s.Limits.Authenticate, ip, e); err != nil {
			return err
		}
		r, err := recordByID(ctx, s.DB, brand, accountID)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		found := err == nil && r.Status != Temporary
		return s.checkPassword(ctx, r, found, Credentials{Brand: brand, AccountID: accountID, Password: current, IP: ip}, e,
			func(*store.Tx, Account) error { return nil })
	}()
	if err != nil {
		return err
	}
	// Read again: the check may have upgraded the hash.
	checked, err := recordByID(ctx, s.DB, brand, accountID)
	if err != nil {
		return err
	}
	set := audit.Event{Brand: brand, AccountID: accountID, IP: ip, Event: audit.PasswordSet, Detail: "change"}
	err = s.setPassword(ctx, checked, newPassword, set, func(cur record) bool { return cur.passwordHash == checked.passwordHash }, also)
	if errors.Is(err, ErrTemporaryInvalid) {
		return ErrWrongPassword // changed by someone else since the check
	}
	return err
}
