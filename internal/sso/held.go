package sso

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"guichet/internal/store"
)

// What sso keeps on a customer, for their data export and their account's
// erasure (issue 31, internal/privacy): the sessions and the browsers the
// account was signed in from.

// heldSession is a session as the export shows it (never its token).
type heldSession struct {
	ID         string    `json:"id,omitempty"`
	Browser    string    `json:"browser"`
	System     string    `json:"system"`
	UserAgent  string    `json:"userAgent"`
	CreatedAt  time.Time `json:"createdAt"`
	LastSeenAt time.Time `json:"lastSeenAt"`
	ExpiresAt  time.Time `json:"expiresAt"`
}

// heldDevice is a known browser as the export shows it (never its
// cookie's hash).
type heldDevice struct {
	Browser    string    `json:"browser"`
	System     string    `json:"system"`
	UserAgent  string    `json:"userAgent"`
	FirstSeen  time.Time `json:"firstSeen"`
	LastSeen   time.Time `json:"lastSeen"`
	NotifiedAt time.Time `json:"notifiedAt,omitzero"`
}

// HeldData is the account's sessions (live or not yet pruned) and known
// browsers, for its data export.
func (s *Service) HeldData(ctx context.Context, brand, accountID string) (map[string]any, error) {
	rows, err := s.DB.Query(ctx, `SELECT id, user_agent, created_at, last_seen_at, expires_at FROM sessions
		WHERE account_id = ? AND brand = ? ORDER BY created_at, id`, accountID, brand)
	if err != nil {
		return nil, fmt.Errorf("held sessions: %w", err)
	}
	sessions, err := store.Collect(rows, func(r *sql.Rows) (heldSession, error) {
		var h heldSession
		var created, seen, expires int64
		err := r.Scan(&h.ID, &h.UserAgent, &created, &seen, &expires)
		h.Browser, h.System = Browser(h.UserAgent), System(h.UserAgent)
		h.CreatedAt, h.LastSeenAt, h.ExpiresAt = store.FromMillis(created), store.FromMillis(seen), store.FromMillis(expires)
		return h, err
	})
	if err != nil {
		return nil, err
	}
	rows, err = s.DB.Query(ctx, `SELECT user_agent, first_seen, last_seen, notified_at FROM known_devices
		WHERE account_id = ? AND brand = ? ORDER BY first_seen`, accountID, brand)
	if err != nil {
		return nil, fmt.Errorf("held devices: %w", err)
	}
	devices, err := store.Collect(rows, func(r *sql.Rows) (heldDevice, error) {
		var h heldDevice
		var first, last, notified int64
		err := r.Scan(&h.UserAgent, &first, &last, &notified)
		h.Browser, h.System = Browser(h.UserAgent), System(h.UserAgent)
		h.FirstSeen, h.LastSeen = store.FromMillis(first), store.FromMillis(last)
		if notified > 0 {
			h.NotifiedAt = store.FromMillis(notified)
		}
		return h, err
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"sessions": sessions, "knownDevices": devices}, nil
}

// EraseHeld deletes the account's sessions and known browsers, in the
// erasure's transaction.
func (s *Service) EraseHeld(ctx context.Context, tx *store.Tx, brand, accountID string) error {
	if _, err := tx.Exec(ctx, "DELETE FROM sessions WHERE account_id = ?", accountID); err != nil {
		return fmt.Errorf("erase sessions: %w", err)
	}
	if _, err := tx.Exec(ctx, "DELETE FROM known_devices WHERE account_id = ?", accountID); err != nil {
		return fmt.Errorf("erase known devices: %w", err)
	}
	return nil
}
