package registration

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"guichet/internal/store"
)

// OpenRegistration is a registration still under way, as the staff console shows it.
type OpenRegistration struct {
	ID        string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// OpenQuerier is a *store.DB or a *store.Tx.
type OpenQuerier interface {
	Query(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// OpenFor lists a brand's registrations not closed nor expired at now whose
// email is email (normalized: trimmed, lower case) or whose person is one
// of personIDs, the newest first (the console's customer view).
func OpenFor(ctx context.Context, q OpenQuerier, brand, email string, personIDs []string, now time.Time) ([]OpenRegistration, error) {
	who, args := "LOWER(email) = ?", []any{brand, now.UnixMilli(), email}
	if len(personIDs) > 0 {
		who += " OR person_id IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(personIDs)), ", ") + ")"
		for _, id := range personIDs {
			args = append(args, id)
		}
	}
	rows, err := q.Query(ctx, `SELECT id, created_at, expires_at FROM registrations WHERE brand = ? AND closed_at = 0
		AND expires_at > ? AND (`+who+`) ORDER BY created_at DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("open registrations: %w", err)
	}
	return store.Collect(rows, func(rows *sql.Rows) (OpenRegistration, error) {
		var o OpenRegistration
		var created, expires int64
		err := rows.Scan(&o.ID, &created, &expires)
		o.CreatedAt, o.ExpiresAt = time.UnixMilli(created).UTC(), time.UnixMilli(expires).UTC()
		return o, err
	})
}
