package audit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// RowQuerier is a *store.DB or a *store.Tx, for a read in the caller's
// transaction.
type RowQuerier interface {
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

// Outcomes counts the events of an account with this event and outcome
// since (exclusive), and gives the time of the nth latest of them (n from
// 1; zero when there are fewer): co-browse counts an agent's wrong join
// codes from its own audit rows and tells when the oldest one that counts
// leaves the window.
func Outcomes(ctx context.Context, q RowQuerier, brand, accountID string, event Name, outcome string, since time.Time, nth int) (count int, nthAt time.Time, err error) {
	if err := q.QueryRow(ctx, `SELECT COUNT(*) FROM audit_events WHERE brand = ? AND account_id = ? AND event = ?
		AND outcome = ? AND at > ?`, brand, accountID, string(event), outcome, since.UnixMilli()).Scan(&count); err != nil {
		return 0, time.Time{}, fmt.Errorf("audit outcomes: %w", err)
	}
	if count < nth {
		return count, time.Time{}, nil
	}
	var at int64
	err = q.QueryRow(ctx, `SELECT at FROM audit_events WHERE brand = ? AND account_id = ? AND event = ?
		AND outcome = ? ORDER BY at DESC LIMIT 1 OFFSET ?`, brand, accountID, string(event), outcome, nth-1).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return count, time.Time{}, nil
	}
	if err != nil {
		return count, time.Time{}, fmt.Errorf("audit outcomes: %w", err)
	}
	return count, time.UnixMilli(at), nil
}
