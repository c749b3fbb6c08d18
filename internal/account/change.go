package account

import (
	"context"
	"errors"

	"guichet/internal/audit"
	"guichet/internal/store"
)

// VerifyPassword is a signed-in customer's proof by password (issue 31:
// the current password of a change, or a re-authentication): checked
// exactly as a sign-in checks it (the rate limit, the lockout, one hash
// whatever the case, a wrong one counting toward the lock), audited with
// event e (its Brand, AccountID and IP name the account and the client).
// A locked, unknown or wrong one is ErrWrongPassword.
func (s *Service) VerifyPassword(ctx context.Context, password string, e audit.Event) error {
	return s.admitted(ctx, e, s.byID(e.Brand, e.AccountID), func(ctx context.Context, r record, found bool) error {
		return s.checkPassword(ctx, r, found && r.Status != Temporary,
			Credentials{Brand: e.Brand, AccountID: e.AccountID, Password: password, IP: e.IP}, e,
			func(*store.Tx, Account) error { return nil })
	})
}

// ChangePassword is a signed-in customer's own change (issue 31): the
// current password is checked by VerifyPassword (audited password.check),
// then the new one is set as a reset sets it (failures, locks and tickets
// cleared). newPassword is already checked and normalized with
// rules.Password. also runs in the transaction that sets it. A password
// changed meanwhile (another device) is ErrWrongPassword.
func (s *Service) ChangePassword(ctx context.Context, brand, accountID, current, newPassword, ip string,
	also func(*store.Tx, Account) error) error {
	if err := s.VerifyPassword(ctx, current, audit.Event{Brand: brand, AccountID: accountID, IP: ip, Event: audit.PasswordCheck}); err != nil {
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
