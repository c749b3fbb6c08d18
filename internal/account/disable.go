package account

import (
	"context"
	"errors"
	"fmt"

	"guichet/internal/audit"
	"guichet/internal/store"
)

// ErrDisabled: the credentials were right, but staff disabled the account
// (spec §8.1 403 3001, the block roadblock). Only a right password (or
// temporary password) learns it: a wrong one, or any while the account is
// locked, answers as for any other account.
var ErrDisabled = errors.New("account: disabled by staff")

// Disable stops the account from signing in until Enable: its right
// password answers ErrDisabled, its login tickets and sessions stop working.
// actor names the staff member (audited as the event's actor), ip their address.
// Disabling a disabled account changes nothing and is audited as such.
func (s *Service) Disable(ctx context.Context, brand, accountID, actor, ip string) error {
	return s.setDisabled(ctx, brand, accountID, actor, ip, true)
}

// Enable gives a disabled account back the state it had (active, holding a
// temporary password, locked).
func (s *Service) Enable(ctx context.Context, brand, accountID, actor, ip string) error {
	return s.setDisabled(ctx, brand, accountID, actor, ip, false)
}

func (s *Service) setDisabled(ctx context.Context, brand, accountID, actor, ip string, disable bool) error {
	if actor == "" {
		return fmt.Errorf("%w: a staff change needs its actor", ErrInvalid)
	}
	e := audit.Event{Brand: brand, AccountID: accountID, IP: ip, Event: audit.AccountEnable, Actor: actor}
	if disable {
		e.Event = audit.AccountDisable
	}
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		if _, err := recordByID(ctx, tx, brand, accountID); err != nil {
			return err
		}
		q, args := "UPDATE accounts SET disabled_at = 0, updated_at = ? WHERE id = ? AND disabled_at <> 0",
			[]any{now.UnixMilli(), accountID}
		if disable {
			q, args = "UPDATE accounts SET disabled_at = ?, updated_at = ? WHERE id = ? AND disabled_at = 0",
				[]any{now.UnixMilli(), now.UnixMilli(), accountID}
		}
		res, err := tx.Exec(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Event, err)
		}
		e.Outcome = "ok"
		if n, _ := res.RowsAffected(); n == 0 {
			e.Outcome = "unchanged"
		} else if disable {
			if err := s.EndSignIns(ctx, tx, accountID); err != nil {
				return err
			}
		}
		return s.record(ctx, tx, e)
	})
}
