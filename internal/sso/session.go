package sso

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"guichet/internal/account"
	"guichet/internal/codes"
	"guichet/internal/store"
)

// Session timeouts (issue 5): 30 minutes without a request, 12 hours in all.
const (
	IdleTimeout     = 30 * time.Minute
	AbsoluteTimeout = 12 * time.Hour
	// touchEvery spares a write per request: last use is recorded at most
	// once a minute, which the idle timeout cannot notice.
	touchEvery = time.Minute
)

// Session is a signed-in browser.
type Session struct {
	// ID names the session on My account ("" for one opened before
	// migration 0018); the token stays secret.
	ID         string
	AccountID  string
	Brand      string
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time // absolute end
	UserAgent  string
	// ReauthAt is when the customer last proved who they are in this
	// session: the sign-in that opened it, or a re-authentication since.
	ReauthAt time.Time
}

// ErrNoSession is returned for a missing, unknown, expired or revoked
// session token.
var ErrNoSession = errors.New("sso: no session")

// newSession stores a session for the account in tx and returns its token:
// 256 random bits, of which only the SHA-256 is stored; the session's public
// id and the browser's User-Agent go with it (My account lists them).
func newSession(ctx context.Context, tx *store.Tx, brand, accountID, userAgent string, now time.Time) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString(b[:])
	id, err := codes.RandomID(rand.Reader)
	if err != nil {
		return "", err
	}
	_, err = tx.Exec(ctx, `INSERT INTO sessions (token_hash, id, account_id, brand, user_agent, created_at, last_seen_at, expires_at, reauth_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, codes.TokenHash(token), id, accountID, brand, UserAgent(userAgent), now.UnixMilli(), now.UnixMilli(),
		now.Add(AbsoluteTimeout).UnixMilli(), now.UnixMilli())
	if err != nil {
		return "", fmt.Errorf("new session: %w", err)
	}
	return token, nil
}

// lookup returns the live session of a token for the brand and records its
// use; an expired one is deleted. The sessions of an account staff disabled
// are refused while it is.
func lookup(ctx context.Context, db *store.DB, brand, token string, now time.Time) (Session, error) {
	if token == "" || len(token) > 128 {
		return Session{}, ErrNoSession
	}
	h := codes.TokenHash(token)
	var s Session
	var created, seen, expires, reauth, disabled int64
	err := db.QueryRow(ctx, `SELECT s.id, s.account_id, s.brand, s.user_agent, s.created_at, s.last_seen_at, s.expires_at, s.reauth_at, `+
		account.DisabledAtSQL("s.account_id")+` FROM sessions s WHERE s.token_hash = ?`, h).
		Scan(&s.ID, &s.AccountID, &s.Brand, &s.UserAgent, &created, &seen, &expires, &reauth, &disabled)
	if errors.Is(store.NotFound(err), store.ErrNotFound) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, fmt.Errorf("session: %w", err)
	}
	s.CreatedAt, s.LastSeenAt, s.ExpiresAt = time.UnixMilli(created).UTC(), time.UnixMilli(seen).UTC(), time.UnixMilli(expires).UTC()
	s.ReauthAt = time.UnixMilli(reauth).UTC()
	if s.Brand != brand || disabled != 0 {
		return Session{}, ErrNoSession
	}
	if !now.Before(s.ExpiresAt) || !now.Before(s.LastSeenAt.Add(IdleTimeout)) {
		err := db.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.Exec(ctx, "DELETE FROM sessions WHERE token_hash = ?", h)
			return err
		})
		if err != nil {
			return Session{}, fmt.Errorf("expire session: %w", err)
		}
		return Session{}, ErrNoSession
	}
	if now.Sub(s.LastSeenAt) >= touchEvery {
		err := db.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.Exec(ctx, "UPDATE sessions SET last_seen_at = ? WHERE token_hash = ?", now.UnixMilli(), h)
			return err
		})
		if err != nil {
			return Session{}, fmt.Errorf("touch session: %w", err)
		}
		s.LastSeenAt = now
	}
	return s, nil
}

// revoke deletes the session of a token in tx and returns its account id
// ("" when there was none: revoking twice is no error).
func revoke(ctx context.Context, tx *store.Tx, token string) (string, error) {
	if token == "" || len(token) > 128 {
		return "", nil
	}
	var accountID string
	err := tx.QueryRow(ctx, "DELETE FROM sessions WHERE token_hash = ? RETURNING account_id", codes.TokenHash(token)).Scan(&accountID)
	if errors.Is(store.NotFound(err), store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("revoke session: %w", err)
	}
	return accountID, nil
}

// RevokeAll ends every session of an account, in the caller's transaction
// (recovery calls it when a password is reset).
func RevokeAll(ctx context.Context, tx *store.Tx, accountID string) error {
	return RevokeAllBut(ctx, tx, accountID, "")
}

// RevokeAllBut revokes every session of the account but the one of token
// (the device that changed the password stays signed in); "" keeps none.
func RevokeAllBut(ctx context.Context, tx *store.Tx, accountID, token string) error {
	keep := ""
	if token != "" {
		keep = codes.TokenHash(token)
	}
	if _, err := tx.Exec(ctx, "DELETE FROM sessions WHERE account_id = ? AND token_hash <> ?", accountID, keep); err != nil {
		return fmt.Errorf("revoke sessions: %w", err)
	}
	return nil
}

// Prune deletes sessions past their absolute or idle end and returns how
// many (the lead's janitor calls it now and then; lookups also delete the
// expired sessions they meet).
func Prune(ctx context.Context, db *store.DB, now time.Time) (int64, error) {
	n, err := db.Affected(ctx, "DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at <= ?",
		now.UnixMilli(), now.Add(-IdleTimeout).UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("prune sessions: %w", err)
	}
	devices, err := pruneDevices(ctx, db, now)
	return n + devices, err
}
