package sso

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/store"
)

// Where a customer is signed in (issue 31): My account lists the account's
// live sessions and ends one, or every one but this browser's.

// Device is one live session as My account shows it.
type Device struct {
	ID         string // "" for a session opened before migration 0018
	Browser    string // "" when the User-Agent names none known
	System     string
	CreatedAt  time.Time
	LastSeenAt time.Time
}

// Devices lists the live sessions of an account of a brand, the latest
// used first.
func (s *Service) Devices(ctx context.Context, brand, accountID string) ([]Device, error) {
	now := s.Now()
	rows, err := s.DB.Query(ctx, `SELECT id, user_agent, created_at, last_seen_at FROM sessions
		WHERE account_id = ? AND brand = ? AND expires_at > ? AND last_seen_at > ? ORDER BY last_seen_at DESC, created_at DESC`,
		accountID, brand, now.UnixMilli(), now.Add(-IdleTimeout).UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("devices: %w", err)
	}
	return store.Collect(rows, func(r *sql.Rows) (Device, error) {
		var d Device
		var ua string
		var created, seen int64
		err := r.Scan(&d.ID, &ua, &created, &seen)
		d.Browser, d.System = Browser(ua), System(ua)
		d.CreatedAt, d.LastSeenAt = store.FromMillis(created), store.FromMillis(seen)
		return d, err
	})
}

// EndDevice signs one session of the account out (ErrNoSession when the
// account has none of that id).
func (s *Service) EndDevice(ctx context.Context, brand, accountID, id, ip string) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.Exec(ctx, "DELETE FROM sessions WHERE account_id = ? AND brand = ? AND id = ? AND id <> ''", accountID, brand, id)
		if err != nil {
			return fmt.Errorf("end session: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrNoSession
		}
		return audit.Record(ctx, tx, audit.Event{At: s.Now(), Brand: brand, AccountID: accountID, IP: ip, Event: audit.SSOSessionEnd, Outcome: "ok", Detail: "one"})
	})
}

// EndOthers signs every session of the account out but the one of token,
// and returns how many ended.
func (s *Service) EndOthers(ctx context.Context, brand, accountID, token, ip string) (int, error) {
	var n int64
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.Exec(ctx, "DELETE FROM sessions WHERE account_id = ? AND brand = ? AND token_hash <> ?", accountID, brand, codes.TokenHash(token))
		if err != nil {
			return fmt.Errorf("end other sessions: %w", err)
		}
		n, _ = res.RowsAffected()
		return audit.Record(ctx, tx, audit.Event{At: s.Now(), Brand: brand, AccountID: accountID, IP: ip, Event: audit.SSOSessionEnd, Outcome: "ok",
			Detail: fmt.Sprintf("others:%d", n)})
	})
	return int(n), err
}
