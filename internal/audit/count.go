package audit

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// RowQuery is a *store.DB or a *store.Tx.
type RowQuery interface {
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

// CountOutcome counts an account's events of a brand with that outcome
// after since.
func CountOutcome(ctx context.Context, q RowQuery, brand, accountID, outcome string, since time.Time) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT COUNT(*) FROM audit_events WHERE brand = ? AND account_id = ? AND at > ? AND outcome = ?`,
		brand, accountID, since.UnixMilli(), outcome).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("audit count: %w", err)
	}
	return n, nil
}
