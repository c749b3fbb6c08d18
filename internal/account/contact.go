package account

import (
	"context"
	"fmt"
	"strings"
	"time"

	"guichet/internal/store"
)

// SetEmail replaces the account's email address, which is also its
// username (issue 31: the customer's own change, or its undo), in the
// caller's transaction. ErrEmailTaken when another account of the brand
// has it; ErrNotFound when the brand has no such account.
func SetEmail(ctx context.Context, tx *store.Tx, brand, id, email string, now time.Time) error {
	email = strings.TrimSpace(email)
	// A savepoint: PostgreSQL aborts a transaction at a unique violation,
	// and the caller goes on in it (to audit the refusal).
	if _, err := tx.Exec(ctx, "SAVEPOINT set_email"); err != nil {
		return fmt.Errorf("set email: %w", err)
	}
	res, err := tx.Exec(ctx, "UPDATE accounts SET email = ?, email_normalized = ?, updated_at = ? WHERE id = ? AND brand = ?",
		email, NormalizeEmail(email), now.UnixMilli(), id, brand)
	if store.IsUniqueViolation(err) {
		if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT set_email"); err != nil {
			return fmt.Errorf("set email: %w", err)
		}
		return ErrEmailTaken
	}
	if err := affectedOne(res, err, "set email"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "RELEASE SAVEPOINT set_email"); err != nil {
		return fmt.Errorf("set email: %w", err)
	}
	return nil
}

// SetPhone replaces the account's cell phone (issue 31), in the caller's
// transaction; phone is already checked by rules.Phone.
func SetPhone(ctx context.Context, tx *store.Tx, brand, id, phone string, now time.Time) error {
	res, err := tx.Exec(ctx, "UPDATE accounts SET phone = ?, updated_at = ? WHERE id = ? AND brand = ?", phone, now.UnixMilli(), id, brand)
	return affectedOne(res, err, "set phone")
}

// RequireReset takes the account's password away (issue 31: the undo of
// an email change someone else made): no password signs in any more, it
// answers as a wrong one, until a reset by the account's address sets a
// new one. Its sessions and sign-ins are the caller's to end.
func RequireReset(ctx context.Context, tx *store.Tx, brand, id string, now time.Time) error {
	res, err := tx.Exec(ctx, "UPDATE accounts SET password_hash = '', updated_at = ? WHERE id = ? AND brand = ?", now.UnixMilli(), id, brand)
	return affectedOne(res, err, "require a reset")
}

func affectedOne(res interface{ RowsAffected() (int64, error) }, err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}
