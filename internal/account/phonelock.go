package account

import (
	"context"
	"fmt"
	"time"

	"guichet/internal/audit"
	"guichet/internal/store"
)

// PhoneLock is spec §9's account lock after a wrong phone number.
const PhoneLock = 24 * time.Hour

// OutcomeWrongPhone is the audit outcome of a wrong phone number: the
// account is locked PhoneLock from it (LockForWrongPhone, PhoneLocked).
const OutcomeWrongPhone = "wrong_phone"

// LockForWrongPhone records a wrong phone number given for the account (e,
// audited with OutcomeWrongPhone) and locks it for PhoneLock: sign-in
// answers as for a wrong password, and every phone check of the account
// answers PhoneLocked until then (the wrong-cellphone roadblock).
func LockForWrongPhone(ctx context.Context, tx *store.Tx, id string, e audit.Event, now time.Time) error {
	if err := Lock(ctx, tx, id, now.Add(PhoneLock), now); err != nil {
		return err
	}
	e.AccountID, e.Outcome, e.At = id, OutcomeWrongPhone, now
	return audit.Record(ctx, tx, e)
}

// PhoneLocked reports whether a wrong phone number locked the account less
// than PhoneLock ago. The audit trail is the record: a lock of the failed
// sign-ins is not one (recovery is the way out of those).
func PhoneLocked(ctx context.Context, q Querier, brand, id string, now time.Time) (bool, error) {
	n, err := audit.CountSince(ctx, q, brand, id, OutcomeWrongPhone, now.Add(-PhoneLock))
	if err != nil {
		return false, fmt.Errorf("phone lock: %w", err)
	}
	return n > 0, nil
}
