package policy

import (
	"context"
	"fmt"
	"time"

	"guichet/internal/store"
)

// The functions below are the policy records' SQL that other packages need
// (the email tokens, smart registration, --dev seeding): insured_people and
// policies are named in SQL only in this package.

// PersonIDByEmail returns the insured person of a policy whose email on file
// is email (lower case), the policyholder first; store.ErrNotFound when none.
func PersonIDByEmail(ctx context.Context, q Reader, policyID, email string) (string, error) {
	var id string
	err := q.QueryRow(ctx, `SELECT id FROM insured_people WHERE policy_id = ? AND LOWER(email) = ?
		ORDER BY role DESC, id LIMIT 1`, policyID, email).Scan(&id)
	return id, store.NotFound(err)
}

// LockPersonRow takes the write lock of a person's row in tx (an update
// that changes nothing): of two transactions working on one person, the
// second waits for the first and then reads what it wrote.
func LockPersonRow(ctx context.Context, tx *store.Tx, personID string) error {
	if _, err := tx.Exec(ctx, "UPDATE insured_people SET updated_at = updated_at WHERE id = ?", personID); err != nil {
		return fmt.Errorf("lock person row: %w", err)
	}
	return nil
}

// UnlockPolicyPeople lifts LockPerson's lock of every person of a brand's
// policy (number as stored).
func UnlockPolicyPeople(ctx context.Context, tx *store.Tx, brand, number string) error {
	if _, err := tx.Exec(ctx, `UPDATE insured_people SET locked_until = 0
		WHERE policy_id = (SELECT id FROM policies WHERE brand = ? AND number = ?)`, brand, number); err != nil {
		return fmt.Errorf("unlock policy people: %w", err)
	}
	return nil
}

// RenewPINs dates the mailed PIN of every person named first last that has
// one at now (it is usable again for the PIN's lifetime).
func RenewPINs(ctx context.Context, tx *store.Tx, first, last string, now time.Time) error {
	if _, err := tx.Exec(ctx, `UPDATE insured_people SET pin_issued_at = ? WHERE pin_hash <> ''
		AND first_name = ? AND last_name = ?`, now.UnixMilli(), first, last); err != nil {
		return fmt.Errorf("renew pins: %w", err)
	}
	return nil
}

// SetAccountByName records accountID ("": none) as the account of the
// people named first (and last, unless empty) on a brand's policy (number
// as stored), leaving updated_at as it is.
func SetAccountByName(ctx context.Context, tx *store.Tx, brand, number, first, last, accountID string) error {
	var account any = accountID
	if accountID == "" {
		account = nil
	}
	q := `UPDATE insured_people SET account_id = ?
		WHERE brand = ? AND first_name = ? AND policy_id = (SELECT id FROM policies WHERE brand = ? AND number = ?)`
	args := []any{account, brand, first, brand, number}
	if last != "" {
		q += " AND last_name = ?"
		args = append(args, last)
	}
	if _, err := tx.Exec(ctx, q, args...); err != nil {
		return fmt.Errorf("person account by name: %w", err)
	}
	return nil
}
