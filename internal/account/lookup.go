package account

import (
	"context"
	"fmt"
	"time"

	"guichet/internal/store"
)

// The functions below are the accounts' SQL that other packages need (web
// SSO, --dev seeding): accounts and login_failures are named in SQL only
// in this package.

// DisabledAtSQL is an SQL expression for the disabled_at of the account
// whose id is in column (-1 when there is no such account), for a caller
// that reads it in the same query as its own table: web SSO's session
// look-up stays one round trip.
func DisabledAtSQL(column string) string {
	return "COALESCE((SELECT disabled_at FROM accounts WHERE id = " + column + "), -1)"
}

// UsableTemporaryHash returns the hash of the account's temporary password
// while it is usable at now ("" when none is).
func UsableTemporaryHash(ctx context.Context, q Querier, brand, id string, now time.Time) (string, error) {
	r, err := recordByID(ctx, q, brand, id)
	if err != nil {
		return "", err
	}
	return r.usableTemporary(now), nil
}

// ClearSignInState makes an account active with no lock, no temporary
// password and no failed sign-ins on record.
func ClearSignInState(ctx context.Context, tx *store.Tx, id string, now time.Time) error {
	if _, err := tx.Exec(ctx, `UPDATE accounts SET status = ?, locked_until = 0, lock_level = 0, temp_hash = '',
		temp_expires_at = 0, temp_failures = 0, updated_at = ? WHERE id = ?`, string(Active), now.UnixMilli(), id); err != nil {
		return fmt.Errorf("clear sign-in state: %w", err)
	}
	if _, err := tx.Exec(ctx, "DELETE FROM login_failures WHERE account_id = ?", id); err != nil {
		return fmt.Errorf("clear sign-in state: %w", err)
	}
	return nil
}

// SetDisabledAt records when staff disabled an account (zero: enabled),
// leaving updated_at as it is.
func SetDisabledAt(ctx context.Context, tx *store.Tx, id string, at time.Time) error {
	disabledAt := int64(0)
	if !at.IsZero() {
		disabledAt = at.UnixMilli()
	}
	if _, err := tx.Exec(ctx, "UPDATE accounts SET disabled_at = ? WHERE id = ?", disabledAt, id); err != nil {
		return fmt.Errorf("set disabled: %w", err)
	}
	return nil
}
