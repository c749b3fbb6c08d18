package account

import (
	"context"
	"fmt"
	"time"

	"guichet/internal/store"
)

// What an account row holds, for the customer's data export and the
// account's erasure (issue 31, internal/privacy). Never its password hash,
// temporary password or lock counters.

type heldAccount struct {
	Email       string    `json:"email"`
	FirstName   string    `json:"firstName"`
	LastName    string    `json:"lastName"`
	Language    string    `json:"language"`
	PostalCode  string    `json:"postalCode,omitempty"`
	Phone       string    `json:"phone,omitempty"`
	DateOfBirth string    `json:"dateOfBirth,omitempty"`
	UBIDriver   bool      `json:"ubiDriver"`
	Status      string    `json:"status"`
	CreatedAt   time.Time `json:"createdAt"`
	DisabledAt  time.Time `json:"disabledAt,omitzero"`
}

// HeldData is the account itself, for its data export.
func (s *Service) HeldData(ctx context.Context, brand, accountID string) (map[string]any, error) {
	a, err := ByID(ctx, s.DB, brand, accountID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"account": heldAccount{Email: a.Email, FirstName: a.FirstName, LastName: a.LastName, Language: a.Language,
		PostalCode: a.PostalCode, Phone: a.Phone, DateOfBirth: a.DateOfBirth, UBIDriver: a.UBIDriver, Status: string(a.Status),
		CreatedAt: a.CreatedAt, DisabledAt: a.DisabledAt}}, nil
}

// EraseHeld deletes the account row, in the erasure's transaction; its
// sign-in failures, tickets and reset tokens go with it (foreign keys).
func (s *Service) EraseHeld(ctx context.Context, tx *store.Tx, brand, accountID string) error {
	if _, err := tx.Exec(ctx, "DELETE FROM accounts WHERE id = ? AND brand = ?", accountID, brand); err != nil {
		return fmt.Errorf("erase account: %w", err)
	}
	return nil
}
