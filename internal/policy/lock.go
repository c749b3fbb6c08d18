package policy

import (
	"context"
	"fmt"
	"time"

	"guichet/internal/store"
)

// LockPerson locks an insured person until: the 24-hour lock after a wrong
// cell phone in an email token's account creation, before any account
// exists to lock.
func LockPerson(ctx context.Context, tx *store.Tx, personID string, until, now time.Time) error {
	if _, err := tx.Exec(ctx, "UPDATE insured_people SET locked_until = ?, updated_at = ? WHERE id = ?",
		until.UnixMilli(), now.UnixMilli(), personID); err != nil {
		return fmt.Errorf("lock person: %w", err)
	}
	return nil
}

// PersonLocked reports whether LockPerson's lock still holds at now.
func PersonLocked(ctx context.Context, q Reader, personID string, now time.Time) (bool, error) {
	var until int64
	if err := q.QueryRow(ctx, "SELECT locked_until FROM insured_people WHERE id = ?", personID).Scan(&until); err != nil {
		return false, fmt.Errorf("person lock: %w", store.NotFound(err))
	}
	return now.UnixMilli() < until, nil
}
