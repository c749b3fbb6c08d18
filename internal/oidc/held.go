package oidc

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"guichet/internal/store"
)

// What the OpenID provider keeps on a customer, for their data export and
// their account's erasure (issue 31, internal/privacy): the consents they
// gave third-party applications and the grants of their sign-ins.

type heldConsent struct {
	Application string    `json:"application"`
	ClientID    string    `json:"clientId"`
	Scopes      []string  `json:"scopes"`
	GrantedAt   time.Time `json:"grantedAt"`
}

type heldGrant struct {
	Application string    `json:"application"`
	ClientID    string    `json:"clientId"`
	Scopes      []string  `json:"scopes"`
	CreatedAt   time.Time `json:"createdAt"`
	ExpiresAt   time.Time `json:"expiresAt"`
	RevokedAt   time.Time `json:"revokedAt,omitzero"`
}

// HeldData is the account's consents and grants (never a token), for its
// data export.
func (s *Service) HeldData(ctx context.Context, brand, accountID string) (map[string]any, error) {
	consents, err := s.Consents(ctx, brand, accountID)
	if err != nil {
		return nil, err
	}
	out := make([]heldConsent, 0, len(consents))
	for _, c := range consents {
		out = append(out, heldConsent{Application: c.ClientName, ClientID: c.ClientID, Scopes: c.Scopes, GrantedAt: c.GrantedAt})
	}
	rows, err := s.DB.Query(ctx, `SELECT g.client_id, COALESCE(c.name, ''), g.scopes, g.created_at, g.expires_at, g.revoked_at
		FROM oidc_grants g LEFT JOIN oidc_clients c ON c.id = g.client_id
		WHERE g.account_id = ? AND g.brand = ? ORDER BY g.created_at, g.id`, accountID, brand)
	if err != nil {
		return nil, fmt.Errorf("held grants: %w", err)
	}
	grants, err := store.Collect(rows, func(r *sql.Rows) (heldGrant, error) {
		var g heldGrant
		var scopes string
		var created, expires, revoked int64
		err := r.Scan(&g.ClientID, &g.Application, &scopes, &created, &expires, &revoked)
		g.Scopes, g.CreatedAt, g.ExpiresAt, g.RevokedAt = words(scopes), store.FromMillis(created), store.FromMillis(expires), store.FromMillis(revoked)
		return g, err
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"consents": out, "grants": grants}, nil
}

// EraseHeld ends the account's grants (their clients are told by
// back-channel logout, as at a sign-out) and deletes its consents, grants,
// refresh tokens and sign-in requests, in the erasure's transaction.
func (s *Service) EraseHeld(ctx context.Context, tx *store.Tx, brand, accountID string) error {
	if err := s.EndAccount(ctx, tx, accountID); err != nil {
		return err
	}
	return tx.ExecEach(ctx, "erase oidc", []string{
		"DELETE FROM oidc_consents WHERE account_id = ?",
		"DELETE FROM oidc_refresh_tokens WHERE grant_id IN (SELECT id FROM oidc_grants WHERE account_id = ?)",
		"DELETE FROM oidc_grants WHERE account_id = ?",
		"DELETE FROM oidc_auth_requests WHERE account_id = ?",
	}, accountID)
}
