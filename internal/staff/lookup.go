package staff

import (
	"context"
	"database/sql"
	"fmt"
)

// What other domains read of the staff accounts (chat's agents): the
// staff_accounts table stays this package's, its columns named only here.

// MembersSQL is a subquery of the enabled staff accounts with the columns
// id, name, role and brands (comma-separated, "" for every brand), for a
// query of another domain to join (as LiveSQL's condition): chat lists its
// agents with their presence in one round trip, on the path of every
// visitor's chat configuration.
func MembersSQL() string {
	return "(SELECT id, name, role, brands FROM staff_accounts WHERE disabled_at = 0)"
}

// RowQuerier is a *store.DB or a *store.Tx.
type RowQuerier interface {
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

// Enabled tells whether the staff account id exists and is not disabled.
func Enabled(ctx context.Context, q RowQuerier, id string) (bool, error) {
	var n int
	if err := q.QueryRow(ctx, "SELECT COUNT(*) FROM staff_accounts WHERE id = ? AND disabled_at = 0", id).Scan(&n); err != nil {
		return false, fmt.Errorf("staff enabled: %w", err)
	}
	return n > 0, nil
}

// ParseBrands is a staff account's brands column as a list (nil: every
// brand).
func ParseBrands(s string) []string { return splitBrands(s) }
