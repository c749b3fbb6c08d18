package recovery

import (
	"context"
	"errors"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/emailtoken"
	"guichet/internal/policy"
	"guichet/internal/store"
)

// resetWithEmailToken is ResetWithToken with an emailed invitation's token
// (issue 14, action reset-password-login) as the proof instead of a reset
// token: a live email token of the brand whose person already has this
// account (emailtoken.Accounts). The postal code (a UBI driver's phone) is
// checked as with a reset token; the ResetAttempts-th wrong one kills the
// token, a wrong phone kills it and locks the account. The token is
// consumed with the new password, in one transaction.
func (s *Service) resetWithEmailToken(ctx context.Context, req TokenReset, e audit.Event) (account.Account, error) {
	e.Detail = "email_token"
	now := s.Now()
	t, err := emailtoken.Lookup(ctx, s.DB, req.Brand, req.Token)
	if errors.Is(err, emailtoken.ErrNotFound) {
		return account.Account{}, s.refuseToken(ctx, e, "invalid_token")
	}
	if err != nil {
		return account.Account{}, err
	}
	if !t.Live(now) {
		return account.Account{}, s.refuseToken(ctx, e, "invalid_token")
	}
	p, err := policy.PersonByID(ctx, s.DB, t.Brand, t.PersonID)
	if err != nil {
		return account.Account{}, err
	}
	own, _, err := emailtoken.Accounts(ctx, s.DB, t, p)
	if err != nil {
		return account.Account{}, err
	}
	if own == "" || own != req.ID {
		return account.Account{}, s.refuseToken(ctx, e, "invalid_token")
	}
	e.AccountID = own
	a, password, wrong, err := s.prove(ctx, req, e)
	if err != nil {
		return account.Account{}, err
	}
	if wrong != nil {
		return account.Account{}, s.wrongEmailTokenIdentity(ctx, t, a.ID, e, wrong)
	}
	var done account.Account
	err = s.Accounts.SetPassword(ctx, req.Brand, req.ID, password, req.IP, func(tx *store.Tx, cur account.Account) error {
		if err := emailtoken.Consume(ctx, tx, t, "reset", s.Now()); err != nil {
			if errors.Is(err, emailtoken.ErrUsed) {
				return ErrTokenInvalid
			}
			return err
		}
		done = cur
		return s.passwordSet(ctx, tx, cur, req.Language, req.Province, e)
	})
	return s.resetDone(ctx, e, done, err)
}

// wrongEmailTokenIdentity counts a wrong postal code on the email token
// (ErrWrongPostalCode, then ErrTokenInvalid once dead); a wrong phone kills
// the token and locks the account (ErrWrongCellphone).
func (s *Service) wrongEmailTokenIdentity(ctx context.Context, t emailtoken.Token, accountID string, e audit.Event, wrong error) error {
	answer := wrong
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		if errors.Is(wrong, ErrWrongPhone) {
			answer = ErrWrongCellphone
			if err := emailtoken.Kill(ctx, tx, t); err != nil {
				return err
			}
			return account.LockForWrongPhone(ctx, tx, accountID, e, s.Now())
		}
		dead, err := emailtoken.CountWrong(ctx, tx, t)
		if err != nil {
			return err
		}
		e.Outcome = "wrong_identity"
		if dead {
			e.Outcome, answer = "token_killed", ErrTokenInvalid
		}
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return err
	}
	return answer
}
