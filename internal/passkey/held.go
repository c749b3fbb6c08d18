package passkey

import (
	"context"
	"fmt"
	"time"

	"guichet/internal/audit"
	"guichet/internal/store"
)

// What passkey keeps on a customer, for their data export and their
// account's erasure (issue 31, internal/privacy): the passkeys by name
// (never their keys), the offer, the user handles and challenges.

// heldPasskey is a passkey as the export shows it (never its key).
type heldPasskey struct {
	Name       string    `json:"name"`
	CreatedAt  time.Time `json:"createdAt"`
	LastUsedAt time.Time `json:"lastUsedAt,omitzero"`
}

// HeldData is the account's passkeys by name, with when each was added and
// last used.
func (s *Service) HeldData(ctx context.Context, _, accountID string) (map[string]any, error) {
	keys, err := s.List(ctx, accountID)
	if err != nil {
		return nil, fmt.Errorf("held passkeys: %w", err)
	}
	held := make([]heldPasskey, 0, len(keys))
	for _, k := range keys {
		held = append(held, heldPasskey{Name: k.Name, CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt})
	}
	return map[string]any{"passkeys": held}, nil
}

// EraseHeld deletes the account's passkeys, user handles, challenges and
// offer in the erasure's transaction.
func (s *Service) EraseHeld(ctx context.Context, tx *store.Tx, _, accountID string) error {
	return tx.ExecEach(ctx, "erase passkeys", []string{
		"DELETE FROM passkeys WHERE account_id = ?",
		"DELETE FROM passkey_users WHERE account_id = ?",
		"DELETE FROM passkey_challenges WHERE account_id = ?",
		"DELETE FROM passkey_offers WHERE account_id = ?",
	}, accountID)
}

// RemoveForUndo deletes the account's passkeys in tx when the former
// address undoes an email change (internal/contact): an intruder who
// changed the address may have added one, and the undo must leave nothing
// that signs in before a reset. Audited passkey.remove (detail "undo").
func (s *Service) RemoveForUndo(ctx context.Context, tx *store.Tx, brand, accountID string) error {
	res, err := tx.Exec(ctx, "DELETE FROM passkeys WHERE account_id = ?", accountID)
	if err != nil {
		return fmt.Errorf("remove passkeys: %w", err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return audit.Record(ctx, tx, audit.Event{Brand: brand, AccountID: accountID, Event: audit.PasskeyRemove, Outcome: "ok",
			Detail: "undo", At: s.Now()})
	}
	return nil
}
