package policy

import (
	"context"
	"fmt"

	"guichet/internal/store"
)

// What the staff console reads of policies and insured people
// (internal/console): the accounts holding a policy number and the insured
// people an account is linked to.

// AccountsHolding lists the ids of the accounts linked to a policy
// numbered number (normalized, NormalizeNumber), on any brand.
func AccountsHolding(ctx context.Context, q Querier, number string) ([]string, error) {
	return staffIDs(ctx, q, `SELECT DISTINCT ap.account_id FROM account_policies ap
		JOIN policies p ON p.id = ap.policy_id WHERE p.number = ?`, number)
}

// PeopleOfAccount lists the ids of the insured people linked to an
// account.
func PeopleOfAccount(ctx context.Context, q Querier, accountID string) ([]string, error) {
	return staffIDs(ctx, q, "SELECT id FROM insured_people WHERE account_id = ?", accountID)
}

func staffIDs(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("policy ids: %w", err)
	}
	return store.Strings(rows)
}
