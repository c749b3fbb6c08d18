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

// heldBrowser is the browser of a session or a known device as the export
// names it: read from its user agent, which it shows too.
type heldBrowser struct {
	Browser   string `json:"browser"`
	System    string `json:"system"`
	UserAgent string `json:"userAgent"`
}

func browserOf(userAgent string) heldBrowser {
	return heldBrowser{Browser: Browser(userAgent), System: System(userAgent), UserAgent: userAgent}
}

// heldSession is a session as the export shows it (never its token).
type heldSession struct {
	ID string `json:"id,omitempty"`
	heldBrowser
	CreatedAt  time.Time `json:"createdAt"`
	LastSeenAt time.Time `json:"lastSeenAt"`
	ExpiresAt  time.Time `json:"expiresAt"`
}

// heldDevice is a known browser as the export shows it (never its
// cookie's hash).
type heldDevice struct {
	heldBrowser
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
		var ua string
		var created, seen, expires int64
		err := r.Scan(&h.ID, &ua, &created, &seen, &expires)
		h.heldBrowser = browserOf(ua)
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
		var ua string
		var first, last, notified int64
		err := r.Scan(&ua, &first, &last, &notified)
		h.heldBrowser = browserOf(ua)
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
