package account

import (
	"context"
	"errors"
	"fmt"
	"time"

	"guichet/internal/audit"
	"guichet/internal/store"
)

// CheckTemporary is spec §7's temporary step: the holder of a temporary
// password types it (spec §4.3). Success leaves the account in its
// must-reset state (Temporary, the temporary password still valid) for
// /reset, which presents it again to ResetWithTemporary. A wrong one is
// ErrWrongTemporary; the third wrong one invalidates the temporary password
// and, like a missing or expired one, is ErrTemporaryInvalid.
func (s *Service) CheckTemporary(ctx context.Context, brand, accountID, tempPassword, ip string) error {
	e := audit.Event{Brand: brand, AccountID: accountID, IP: ip, Event: audit.LoginTemporary}
	return s.withTemporary(ctx, e, tempPassword, nil)
}

// withTemporary checks tempPassword against the account of e (admitted: a
// hashing slot, the authentication limit; a missing account is checked as
// an empty record) and, when it is right and then is not nil, runs then
// with that account's record while it still holds the slot.
func (s *Service) withTemporary(ctx context.Context, e audit.Event, tempPassword string,
	then func(ctx context.Context, r record) error) error {
	return s.admitted(ctx, e, s.byID(e.Brand, e.AccountID), func(ctx context.Context, r record, _ bool) error {
		if err := s.checkTemporary(ctx, r, tempPassword, e); err != nil || then == nil {
			return err
		}
		return then(ctx, r)
	})
}

// usableTemporary is the hash a temporary password is checked against, or ""
// when the account holds none that may be used at now.
func (r *record) usableTemporary(now time.Time) string {
	if r.ID == "" || r.Status != Temporary || r.tempHash == "" || !now.Before(r.tempExpiresAt) {
		return ""
	}
	return r.tempHash
}

// checkTemporary runs one argon2 verification against the account's
// temporary password (a dummy one when there is none) and records the
// outcome under e. An empty r.ID is an unknown account.
func (s *Service) checkTemporary(ctx context.Context, r record, tempPassword string, e audit.Event) error {
	e.Detail = "temporary"
	stored := r.usableTemporary(s.Now())
	match, _, err := s.Hasher.Verify(ctx, tempPassword, stored)
	if err != nil && !errors.Is(err, ErrMalformedHash) {
		return err
	}
	if stored == "" {
		e.Outcome = "no_temporary"
		if r.ID == "" {
			e.Outcome = "unknown_account"
		}
		if err := s.recordAlone(ctx, e); err != nil {
			return err
		}
		return ErrTemporaryInvalid
	}
	answer := ErrWrongTemporary
	err = s.inRowTx(ctx, r.ID, func(tx *store.Tx, now time.Time, cur record) error {
		if cur.usableTemporary(now) != stored {
			e.Outcome, answer = "no_temporary", ErrTemporaryInvalid
			return s.record(ctx, tx, e)
		}
		if match && !cur.DisabledAt.IsZero() {
			// The right temporary password of a disabled account.
			e.Outcome, answer = "disabled", ErrDisabled
			return s.record(ctx, tx, e)
		}
		if match {
			if cur.tempFailures != 0 {
				if _, err := tx.Exec(ctx, "UPDATE accounts SET temp_failures = 0 WHERE id = ?", r.ID); err != nil {
					return err
				}
			}
			e.Outcome, answer = "ok", nil
			return s.record(ctx, tx, e)
		}
		failures := cur.tempFailures + 1
		e.Outcome = "wrong_temporary"
		if failures >= TemporaryAttempts {
			// Spec §4.3: three failures reset the temporary password.
			if _, err := tx.Exec(ctx, "UPDATE accounts SET temp_hash = '', temp_failures = 0, temp_expires_at = 0, updated_at = ? WHERE id = ?",
				now.UnixMilli(), r.ID); err != nil {
				return err
			}
			e.Outcome, answer = "temporary_invalidated", ErrTemporaryInvalid
			return s.record(ctx, tx, e)
		}
		if _, err := tx.Exec(ctx, "UPDATE accounts SET temp_failures = ? WHERE id = ?", failures, r.ID); err != nil {
			return err
		}
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return err
	}
	return answer
}

// ResetWithTemporary is what /reset's temporary variant needs (recovery
// issue): it checks the temporary password again with CheckTemporary's
// rules, then sets newPassword (already checked and normalized with
// rules.Password), makes the account Active, clears the temporary password
// and any lockout, and runs also in the same transaction (recovery revokes
// the sessions there with sso.RevokeAll and may queue a notification).
func (s *Service) ResetWithTemporary(ctx context.Context, brand, accountID, tempPassword, newPassword, ip string,
	also func(*store.Tx, Account) error) error {
	e := audit.Event{Brand: brand, AccountID: accountID, IP: ip, Event: audit.PasswordSet}
	return s.withTemporary(ctx, e, tempPassword, func(ctx context.Context, r record) error {
		checked := r.tempHash
		return s.setPassword(ctx, r, newPassword, e, func(cur record) bool { return cur.usableTemporary(s.Now()) == checked }, also)
	})
}

// SetPassword replaces an account's password once the caller has proved the
// holder's identity its own way (reset code, reset link: recovery issue).
// newPassword is already checked and normalized with rules.Password. A
// Temporary account becomes Active; a Locked one stays locked (staff
// release it); failures, timed locks and any temporary password are
// cleared. also runs in the same transaction.
func (s *Service) SetPassword(ctx context.Context, brand, accountID, newPassword, ip string,
	also func(*store.Tx, Account) error) error {
	r, err := recordByID(ctx, s.DB, brand, accountID)
	if err != nil {
		return err
	}
	e := audit.Event{Brand: brand, AccountID: accountID, IP: ip, Event: audit.PasswordSet}
	return s.setPassword(ctx, r, newPassword, e, func(record) bool { return true }, also)
}

func (s *Service) setPassword(ctx context.Context, r record, newPassword string, e audit.Event,
	stillValid func(record) bool, also func(*store.Tx, Account) error) error {
	hash, err := s.Hasher.Hash(ctx, newPassword)
	if err != nil {
		return err
	}
	return s.inRowTx(ctx, r.ID, func(tx *store.Tx, now time.Time, cur record) error {
		if !stillValid(cur) {
			return ErrTemporaryInvalid
		}
		if !cur.DisabledAt.IsZero() {
			// The caller proved the holder's identity, so telling them is
			// no leak; a reset must not undo staff's decision (nor the
			// lock Enable gives back).
			return ErrDisabled
		}
		status := Active
		if cur.Status == Locked {
			status = Locked
		}
		if _, err := tx.Exec(ctx, `UPDATE accounts SET password_hash = ?, status = ?, temp_hash = '', temp_expires_at = 0,
			temp_failures = 0, locked_until = 0, lock_level = 0, updated_at = ? WHERE id = ?`,
			hash, string(status), now.UnixMilli(), r.ID); err != nil {
			return fmt.Errorf("set password: %w", err)
		}
		if _, err := tx.Exec(ctx, "DELETE FROM login_failures WHERE account_id = ?", r.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM login_tickets WHERE account_id = ?", r.ID); err != nil {
			return err
		}
		a := cur.Account
		a.Status, a.LockedUntil = status, time.Time{}
		if also != nil {
			if err := also(tx, a); err != nil {
				return err
			}
		}
		e.Outcome = "ok"
		return s.record(ctx, tx, e)
	})
}
