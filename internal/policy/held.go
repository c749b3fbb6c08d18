package policy

import (
	"context"
	"fmt"

	"guichet/internal/store"
)

// What the policy records hold of a customer's account, for their data
// export and their account's erasure (issue 31, internal/privacy): the
// links between the account and its policies. The policies and the insured
// people are the insurer's records: an erasure unlinks them and keeps them.

type heldPolicy struct {
	Number   string `json:"number"`
	Kind     string `json:"kind"`
	Province string `json:"province"`
	Role     string `json:"role"`
}

// HeldData is the policies linked to the account, for its data export.
func HeldData(ctx context.Context, q Querier, accountID string) (map[string]any, error) {
	linked, err := ForAccount(ctx, q, accountID)
	if err != nil {
		return nil, err
	}
	out := make([]heldPolicy, 0, len(linked))
	for _, l := range linked {
		out = append(out, heldPolicy{Number: l.Number, Kind: string(l.Kind), Province: l.Province, Role: string(l.Role)})
	}
	return map[string]any{"policies": out}, nil
}

// Unlink takes the account off its policies and insured people, which
// stay, in the erasure's transaction.
func Unlink(ctx context.Context, tx *store.Tx, accountID string) error {
	if _, err := tx.Exec(ctx, "DELETE FROM account_policies WHERE account_id = ?", accountID); err != nil {
		return fmt.Errorf("unlink policies: %w", err)
	}
	if _, err := tx.Exec(ctx, "UPDATE insured_people SET account_id = NULL WHERE account_id = ?", accountID); err != nil {
		return fmt.Errorf("unlink insured people: %w", err)
	}
	return nil
}
