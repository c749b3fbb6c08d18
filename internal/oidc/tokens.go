package oidc

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/notify"
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

// EndAccount ends every live grant of an account in tx (RevokeAccount) and
// queues, in the same transaction, a back-channel logout (OpenID Connect
// Back-Channel Logout 1.0) to each of their clients that registered a URI:
// one per client, whatever number of grants it held. The outbox delivers
// it (notify.ChannelLogout), so a client down for a while still hears of it.
func (s *Service) EndAccount(ctx context.Context, tx *store.Tx, accountID string) error {
	if err := s.endRequests(ctx, tx, accountID, ""); err != nil {
		return err
	}
	ended, err := s.RevokeAccount(ctx, tx, accountID)
	if err != nil {
		return err
	}
	return s.tellClients(ctx, tx, ended)
}

// tellClients queues a back-channel logout to each client of the ended
// grants that asked for them, once per client.
func (s *Service) tellClients(ctx context.Context, tx *store.Tx, ended []Grant) error {
	told := map[string]bool{}
	for _, g := range ended {
		if told[g.ClientID] || g.Issuer == "" {
			continue
		}
		told[g.ClientID] = true
		c, err := scanClient(tx.QueryRow(ctx, "SELECT "+clientColumns+" FROM oidc_clients WHERE id = ?", g.ClientID))
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		if c.BackchannelLogoutURI == "" || c.Disabled() {
			continue
		}
		if _, err := notify.Enqueue(ctx, tx, notify.Message{Brand: g.Brand, Language: "en", Channel: notify.ChannelLogout,
			To: c.BackchannelLogoutURI, Template: notify.TemplateBackchannelLogout,
			Data: map[string]string{notify.DataIssuer: g.Issuer, notify.DataClient: g.ClientID, notify.DataSubject: g.Subject}}); err != nil {
			return fmt.Errorf("back-channel logout: %w", err)
		}
	}
	return nil
}

// endRequests ends what the account's sign-ins for clients have not yet
// turned into grants: requests completed but not traded expire now, and a
// traded one whose grant is not stored yet (another instance between
// TradeCode and StartGrant) gets its grant made revoked, so StartGrant
// starts nothing.
// clientID, when not "", limits it to one client's (a withdrawn consent).
func (s *Service) endRequests(ctx context.Context, tx *store.Tx, accountID, clientID string) error {
	now := s.Now()
	if _, err := tx.Exec(ctx, "UPDATE oidc_auth_requests SET expires_at = ? WHERE account_id = ? AND (? = '' OR client_id = ?) AND exchanged_at = 0 AND expires_at > ?",
		now.UnixMilli(), accountID, clientID, clientID, now.UnixMilli()); err != nil {
		return fmt.Errorf("end requests: %w", err)
	}
	rows, err := tx.Query(ctx, "SELECT "+requestColumns+" FROM oidc_auth_requests r WHERE r.account_id = ? AND (? = '' OR r.client_id = ?) AND r.exchanged_at <> 0 AND NOT EXISTS (SELECT 1 FROM oidc_grants g WHERE g.id = r.id)",
		accountID, clientID, clientID)
	if err != nil {
		return fmt.Errorf("traded requests: %w", err)
	}
	pending, err := store.Collect(rows, func(r *sql.Rows) (AuthRequest, error) { return scanRequest(r) })
	if err != nil {
		return err
	}
	for _, a := range pending {
		if err := s.revoke(ctx, tx, s.grantOf(a, now), audit.OIDCRevoke, now); err != nil {
			return err
		}
	}
	return nil
}
