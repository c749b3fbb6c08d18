package contact

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"guichet/internal/store"
)

// What contact keeps on a customer, for their data export and their
// account's erasure (issue 31, internal/privacy): an email or cell phone
// change waiting for its code, and the former addresses' undo links (never
// a code or a token).

type heldChange struct {
	Kind      string    `json:"kind"`
	NewValue  string    `json:"newValue"`
	ExpiresAt time.Time `json:"expiresAt"`
}

type heldUndo struct {
	FormerEmail string    `json:"formerEmail"`
	NewEmail    string    `json:"newEmail"`
	ExpiresAt   time.Time `json:"expiresAt"`
	UsedAt      time.Time `json:"usedAt,omitzero"`
}

// HeldData is the account's pending changes and undo links, for its data
// export.
func (s *Service) HeldData(ctx context.Context, brand, accountID string) (map[string]any, error) {
	rows, err := s.DB.Query(ctx, "SELECT kind, new_value, expires_at FROM contact_changes WHERE account_id = ? AND brand = ? ORDER BY kind",
		accountID, brand)
	if err != nil {
		return nil, fmt.Errorf("held changes: %w", err)
	}
	changes, err := store.Collect(rows, func(r *sql.Rows) (heldChange, error) {
		var c heldChange
		var expires int64
		err := r.Scan(&c.Kind, &c.NewValue, &expires)
		c.ExpiresAt = store.FromMillis(expires)
		return c, err
	})
	if err != nil {
		return nil, err
	}
	rows, err = s.DB.Query(ctx, "SELECT old_email, new_email, expires_at, used_at FROM email_undos WHERE account_id = ? AND brand = ? ORDER BY expires_at",
		accountID, brand)
	if err != nil {
		return nil, fmt.Errorf("held undos: %w", err)
	}
	undos, err := store.Collect(rows, func(r *sql.Rows) (heldUndo, error) {
		var u heldUndo
		var expires, used int64
		err := r.Scan(&u.FormerEmail, &u.NewEmail, &expires, &used)
		u.ExpiresAt, u.UsedAt = store.FromMillis(expires), store.FromMillis(used)
		return u, err
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"contactChanges": changes, "emailUndos": undos}, nil
}

// EraseHeld deletes the account's pending changes and undo links, in the
// erasure's transaction.
func (s *Service) EraseHeld(ctx context.Context, tx *store.Tx, brand, accountID string) error {
	return tx.ExecEach(ctx, "erase contact changes", []string{
		"DELETE FROM contact_changes WHERE account_id = ?", "DELETE FROM email_undos WHERE account_id = ?",
	}, accountID)
}
