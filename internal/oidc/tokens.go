package oidc

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"strings"

	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/store"
)

// What the provider's endpoints ask of grants beyond a sign-in's own steps:
// access token ids, the revocation endpoint, RP-initiated logout.

// AccessTokenID names a new access token of a grant: the grant's id, a dot,
// then 64 random bits (the token's own "jti"). The userinfo endpoint finds
// the grant from it, so an access token dies with its grant.
func AccessTokenID(grantID string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return grantID + "." + hex.EncodeToString(b[:]), nil
}

// GrantOfAccessToken is the grant id an access token id names ("" when it
// names none).
func GrantOfAccessToken(tokenID string) string {
	grant, _, ok := strings.Cut(tokenID, ".")
	if !ok {
		return ""
	}
	return grant
}

// RefreshGrant returns the live grant of an unused refresh token without
// using it (the revocation endpoint): ErrInvalidGrant otherwise.
func (s *Service) RefreshGrant(ctx context.Context, token string) (Grant, error) {
	if token == "" || len(token) > 512 {
		return Grant{}, ErrInvalidGrant
	}
	g, err := scanGrant(s.DB.QueryRow(ctx, "SELECT "+grantColumns+" FROM oidc_refresh_tokens t JOIN oidc_grants g ON g.id = t.grant_id WHERE t.token_hash = ? AND t.used_at = 0",
		codes.TokenHash(token)))
	if errors.Is(err, sql.ErrNoRows) || err == nil && !g.live(s.Now()) {
		return Grant{}, ErrInvalidGrant
	}
	return g, err
}

// RevokeSubject ends the live grants a client holds of a subject (an
// RP-initiated logout naming it) and returns how many.
func (s *Service) RevokeSubject(ctx context.Context, brand, clientID, subject string) (int, error) {
	var n int
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		rows, err := tx.Query(ctx, "SELECT "+grantColumns+" FROM oidc_grants g WHERE g.client_id = ? AND g.subject = ? AND g.brand = ? AND g.revoked_at = 0 AND g.expires_at > ?",
			clientID, subject, brand, now.UnixMilli())
		if err != nil {
			return err
		}
		live, err := store.Collect(rows, func(r *sql.Rows) (Grant, error) { return scanGrant(r) })
		if err != nil {
			return err
		}
		for _, g := range live {
			if err := s.revoke(ctx, tx, g, audit.OIDCLogout, now); err != nil {
				return err
			}
		}
		n = len(live)
		return nil
	})
	return n, err
}
