package oidc

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/store"
)

// Lifetimes of what a sign-in through the provider leaves behind.
const (
	// AuthRequestTTL: an /authorize request waits this long for the
	// visitor to sign in (or register, or reset a password).
	AuthRequestTTL = 10 * time.Minute
	// CodeTTL: an authorization code is traded within this (issue 30: 60 s
	// at most) or never.
	CodeTTL = 60 * time.Second
	// GrantTTL: a grant's refresh tokens work this long after the sign-in,
	// however often they rotate; then the customer signs in again.
	GrantTTL = 30 * 24 * time.Hour
)

// AuthRequest is an /authorize request, then the sign-in that answered it.
type AuthRequest struct {
	ID                  string
	Brand               string
	Issuer              string // the brand host /authorize was called on
	ClientID            string
	RedirectURI         string
	Scopes              []string
	State               string
	Nonce               string
	ResponseMode        string
	CodeChallenge       string
	CodeChallengeMethod string
	Prompt              []string
	MaxAge              time.Duration // negative: not asked
	LoginHint           string
	UILocales           []string
	// Set when the visitor has signed in.
	AccountID string
	AuthTime  time.Time
	AMR       []string
	// CodeAt is when its code was issued (zero before): the request has
	// answered, and its callback gives nothing more.
	CodeAt time.Time
	// ConsentedAt is when the customer allowed a third-party client this
	// request (zero before; consents.go).
	ConsentedAt time.Time
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

// Done reports whether the visitor has signed in.
func (a AuthRequest) Done() bool { return a.AccountID != "" }

// Answered reports whether the request's code was issued.
func (a AuthRequest) Answered() bool { return !a.CodeAt.IsZero() }

// Grant is what one sign-in gave one client: its refresh tokens rotate
// within it, and revoking it ends them all.
type Grant struct {
	ID        string // the authorization request's id
	Brand     string
	ClientID  string
	AccountID string
	Subject   string // the "sub" of its tokens (Service.Subject)
	Issuer    string // its request's
	Scopes    []string
	AuthTime  time.Time
	AMR       []string
	CreatedAt time.Time
	ExpiresAt time.Time
	RevokedAt time.Time // zero while live
}

func words(s string) []string { return strings.Fields(s) }

// CreateAuthRequest stores a request the provider has checked (client,
// redirect URI, PKCE) and returns it with its id and expiry.
func (s *Service) CreateAuthRequest(ctx context.Context, a AuthRequest) (AuthRequest, error) {
	id, err := codes.RandomID(rand.Reader)
	if err != nil {
		return AuthRequest{}, err
	}
	now := s.Now()
	a.ID, a.AccountID, a.AuthTime, a.AMR = id, "", time.Time{}, nil
	a.CreatedAt, a.ExpiresAt = store.FromMillis(now.UnixMilli()), store.FromMillis(now.Add(AuthRequestTTL).UnixMilli())
	maxAge := int64(-1)
	if a.MaxAge >= 0 {
		maxAge = int64(a.MaxAge / time.Second)
	}
	_, err = s.DB.Exec(ctx, `INSERT INTO oidc_auth_requests (id, brand, issuer, client_id, redirect_uri, scopes, state, nonce, response_mode,
		code_challenge, code_challenge_method, prompt, max_age, login_hint, ui_locales, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.Brand, a.Issuer, a.ClientID, a.RedirectURI, strings.Join(a.Scopes, " "), a.State, a.Nonce, a.ResponseMode,
		a.CodeChallenge, a.CodeChallengeMethod, strings.Join(a.Prompt, " "), maxAge, a.LoginHint, strings.Join(a.UILocales, " "),
		store.Millis(a.CreatedAt), store.Millis(a.ExpiresAt))
	if err != nil {
		return AuthRequest{}, fmt.Errorf("authorization request: %w", err)
	}
	return a, nil
}

const requestColumns = `id, brand, issuer, client_id, redirect_uri, scopes, state, nonce, response_mode, code_challenge, code_challenge_method,
	prompt, max_age, login_hint, ui_locales, account_id, auth_time, amr, code_at, consented_at, created_at, expires_at`

// scanRequest reads requestColumns, then any extra columns into extra.
func scanRequest(sc scanner, extra ...any) (AuthRequest, error) {
	var a AuthRequest
	var scopes, prompt, locales, amr string
	var maxAge, authTime, codeAt, consentedAt, created, expires int64
	if err := sc.Scan(append([]any{&a.ID, &a.Brand, &a.Issuer, &a.ClientID, &a.RedirectURI, &scopes, &a.State, &a.Nonce, &a.ResponseMode, &a.CodeChallenge,
		&a.CodeChallengeMethod, &prompt, &maxAge, &a.LoginHint, &locales, &a.AccountID, &authTime, &amr, &codeAt, &consentedAt, &created, &expires}, extra...)...); err != nil {
		return AuthRequest{}, err
	}
	a.Scopes, a.Prompt, a.UILocales, a.AMR = words(scopes), words(prompt), words(locales), words(amr)
	a.MaxAge = -1
	if maxAge >= 0 {
		a.MaxAge = time.Duration(maxAge) * time.Second
	}
	a.AuthTime, a.CodeAt, a.ConsentedAt = store.FromMillis(authTime), store.FromMillis(codeAt), store.FromMillis(consentedAt)
	a.CreatedAt, a.ExpiresAt = store.FromMillis(created), store.FromMillis(expires)
	return a, nil
}

// AuthRequest returns a live request (ErrRequestNotFound once expired).
func (s *Service) AuthRequest(ctx context.Context, id string) (AuthRequest, error) {
	a, err := scanRequest(s.DB.QueryRow(ctx, "SELECT "+requestColumns+" FROM oidc_auth_requests WHERE id = ? AND expires_at > ?", id, s.Now().UnixMilli()))
	if errors.Is(err, sql.ErrNoRows) {
		return AuthRequest{}, ErrRequestNotFound
	}
	return a, err
}

// CompleteAuthRequest records who signed in for a live request, when and
// how (amr: "pwd", ...). A request is completed once.
func (s *Service) CompleteAuthRequest(ctx context.Context, id, accountID string, authTime time.Time, amr []string) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		a, err := scanRequest(tx.QueryRow(ctx, "SELECT "+requestColumns+" FROM oidc_auth_requests WHERE id = ? AND account_id = '' AND expires_at > ?", id, now.UnixMilli()))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrRequestNotFound
		}
		if err != nil {
			return err
		}
		res, err := tx.Exec(ctx, "UPDATE oidc_auth_requests SET account_id = ?, auth_time = ?, amr = ? WHERE id = ? AND account_id = ''",
			accountID, store.Millis(authTime), strings.Join(amr, " "), id)
		if err != nil {
			return fmt.Errorf("complete authorization request: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrRequestNotFound
		}
		return audit.Record(ctx, tx, audit.Event{At: now, Brand: a.Brand, AccountID: accountID, Event: audit.OIDCAuthorize, Outcome: "ok",
			Detail: "client:" + a.ClientID})
	})
}

// SaveCode attaches the authorization code (only its hash is kept) to a
// completed request; it must be traded within CodeTTL.
func (s *Service) SaveCode(ctx context.Context, id, code string) error {
	res, err := s.DB.Exec(ctx, "UPDATE oidc_auth_requests SET code_hash = ?, code_at = ? WHERE id = ? AND account_id <> '' AND code_hash = '' AND expires_at > ?",
		codes.TokenHash(code), s.Now().UnixMilli(), id, s.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("save code: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrRequestNotFound
	}
	return nil
}

// TradeCode claims a code for the token endpoint, once: it returns the
// completed request the code was issued for. A code unknown or older than
// CodeTTL is ErrInvalidGrant; a code traded already is ErrInvalidGrant and
// revokes the grant the first trade started (RFC 6749 §4.1.2: the code was
// stolen, or replayed).
func (s *Service) TradeCode(ctx context.Context, code string) (AuthRequest, error) {
	if code == "" || len(code) > 512 {
		return AuthRequest{}, ErrInvalidGrant
	}
	var a AuthRequest
	var ok bool
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		var exchangedAt int64
		var err error
		a, err = scanRequest(tx.QueryRow(ctx, "SELECT "+requestColumns+", exchanged_at FROM oidc_auth_requests WHERE code_hash = ?", codes.TokenHash(code)),
			&exchangedAt)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil
		case err != nil:
			return err
		case exchangedAt != 0:
			// The revocation commits; the caller is refused all the same.
			return s.revoke(ctx, tx, s.grantOf(a, now), audit.OIDCCodeReuse, now)
		case now.Sub(a.CodeAt) >= CodeTTL, !now.Before(a.ExpiresAt):
			// Too old, or its request was ended (EndAccount).
			return nil
		}
		res, err := tx.Exec(ctx, "UPDATE oidc_auth_requests SET exchanged_at = ? WHERE id = ? AND exchanged_at = 0", now.UnixMilli(), a.ID)
		if err != nil {
			return fmt.Errorf("trade code: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			// Another trade of this code won the race: a replay, as above.
			return s.revoke(ctx, tx, s.grantOf(a, now), audit.OIDCCodeReuse, now)
		}
		ok = true
		return nil
	})
	return unlessRefused(a, ok, err)
}

// unlessRefused is the answer of a transaction that commits when it refuses
// (a replay's revocation must stand): its error, else v when ok, else
// ErrInvalidGrant.
func unlessRefused[T any](v T, ok bool, err error) (T, error) {
	var zero T
	switch {
	case err != nil:
		return zero, err
	case !ok:
		return zero, ErrInvalidGrant
	}
	return v, nil
}

// grantOf is the grant a completed request starts.
func (s *Service) grantOf(a AuthRequest, now time.Time) Grant {
	return Grant{ID: a.ID, Brand: a.Brand, ClientID: a.ClientID, AccountID: a.AccountID, Subject: s.Subject(a.Brand, a.AccountID), Issuer: a.Issuer,
		Scopes: a.Scopes, AuthTime: a.AuthTime, AMR: a.AMR, CreatedAt: store.FromMillis(now.UnixMilli()), ExpiresAt: store.FromMillis(now.Add(GrantTTL).UnixMilli())}
}

// StartGrant records the grant of a traded request and, when refresh is
// true (the client asked for offline_access and may refresh), returns its
// first refresh token (256 random bits; only the hash is kept). A request
// whose grant was revoked (its code was reused meanwhile) starts none.
func (s *Service) StartGrant(ctx context.Context, a AuthRequest, refresh bool) (Grant, string, error) {
	if !a.Done() {
		return Grant{}, "", ErrInvalidGrant
	}
	var g Grant
	var token string
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		g = s.grantOf(a, now)
		res, err := tx.Exec(ctx, `INSERT INTO oidc_grants (id, brand, client_id, account_id, subject, issuer, scopes, auth_time, amr, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			g.ID, g.Brand, g.ClientID, g.AccountID, g.Subject, g.Issuer, strings.Join(g.Scopes, " "), store.Millis(g.AuthTime), strings.Join(g.AMR, " "), store.Millis(g.CreatedAt), store.Millis(g.ExpiresAt))
		if err != nil {
			return fmt.Errorf("start grant: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrInvalidGrant
		}
		if refresh {
			if token, err = newRefreshToken(ctx, tx, g.ID, now); err != nil {
				return err
			}
		}
		return audit.Record(ctx, tx, g.event(audit.OIDCToken, "ok", now))
	})
	if err != nil {
		return Grant{}, "", err
	}
	return g, token, nil
}

func newRefreshToken(ctx context.Context, tx *store.Tx, grantID string, now time.Time) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString(b[:])
	if _, err := tx.Exec(ctx, "INSERT INTO oidc_refresh_tokens (token_hash, grant_id, created_at) VALUES (?, ?, ?)", codes.TokenHash(token), grantID, now.UnixMilli()); err != nil {
		return "", fmt.Errorf("refresh token: %w", err)
	}
	return token, nil
}

const grantColumns = "g.id, g.brand, g.client_id, g.account_id, g.subject, g.issuer, g.scopes, g.auth_time, g.amr, g.created_at, g.expires_at, g.revoked_at"

func scanGrant(sc scanner, extra ...any) (Grant, error) {
	var g Grant
	var scopes, amr string
	var authTime, created, expires, revoked int64
	if err := sc.Scan(append([]any{&g.ID, &g.Brand, &g.ClientID, &g.AccountID, &g.Subject, &g.Issuer, &scopes, &authTime, &amr, &created, &expires, &revoked}, extra...)...); err != nil {
		return Grant{}, err
	}
	g.Scopes, g.AMR = words(scopes), words(amr)
	g.AuthTime, g.CreatedAt, g.ExpiresAt, g.RevokedAt = store.FromMillis(authTime), store.FromMillis(created), store.FromMillis(expires), store.FromMillis(revoked)
	return g, nil
}

// live reports whether a grant still gives tokens at now.
func (g Grant) live(now time.Time) bool { return g.RevokedAt.IsZero() && now.Before(g.ExpiresAt) }

// Grant returns a live grant (access tokens name theirs): ErrInvalidGrant
// once revoked or expired.
func (s *Service) Grant(ctx context.Context, id string) (Grant, error) {
	g, err := scanGrant(s.DB.QueryRow(ctx, "SELECT "+grantColumns+" FROM oidc_grants g WHERE g.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) || err == nil && !g.live(s.Now()) {
		return Grant{}, ErrInvalidGrant
	}
	return g, err
}

// UnusedRefresh returns the live grant of an unused refresh token without
// using it (the token endpoint reads it before it checks the client and the
// scopes; RotateRefresh uses it after). A token used already is
// ErrInvalidGrant and revokes the grant, as RotateRefresh does.
func (s *Service) UnusedRefresh(ctx context.Context, token string) (Grant, error) {
	var g Grant
	var unused bool
	err := s.DB.InTx(ctx, func(tx *store.Tx) (err error) {
		g, unused, err = s.unusedRefresh(ctx, tx, token, s.Now())
		return err
	})
	return unlessRefused(g, unused, err)
}

// unusedRefresh reads a refresh token's grant: unused reports whether the
// token is unused and its grant live. A used token revokes the grant.
func (s *Service) unusedRefresh(ctx context.Context, tx *store.Tx, token string, now time.Time) (g Grant, unused bool, err error) {
	if token == "" || len(token) > 512 {
		return Grant{}, false, nil
	}
	var usedAt int64
	g, err = scanGrant(tx.QueryRow(ctx, "SELECT "+grantColumns+", t.used_at FROM oidc_refresh_tokens t JOIN oidc_grants g ON g.id = t.grant_id WHERE t.token_hash = ?",
		codes.TokenHash(token)), &usedAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Grant{}, false, nil
	case err != nil:
		return Grant{}, false, err
	case !g.live(now):
		return g, false, nil
	case usedAt != 0:
		return g, false, s.revoke(ctx, tx, g, audit.OIDCRefreshReuse, now)
	}
	return g, true, nil
}

// RotateRefresh trades a refresh token for the next one of its grant. A
// token unknown, of a revoked or expired grant is ErrInvalidGrant; a token
// used already is ErrInvalidGrant and revokes the grant (RFC 9700 §4.14.2:
// one of the two holders is a thief, and the server cannot tell which).
func (s *Service) RotateRefresh(ctx context.Context, token string) (Grant, string, error) {
	var g Grant
	var next string
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		var unused bool
		var err error
		if g, unused, err = s.unusedRefresh(ctx, tx, token, now); err != nil || !unused {
			return err
		}
		res, err := tx.Exec(ctx, "UPDATE oidc_refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at = 0", now.UnixMilli(), codes.TokenHash(token))
		if err != nil {
			return fmt.Errorf("rotate refresh token: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return s.revoke(ctx, tx, g, audit.OIDCRefreshReuse, now)
		}
		if next, err = newRefreshToken(ctx, tx, g.ID, now); err != nil {
			return err
		}
		return audit.Record(ctx, tx, g.event(audit.OIDCRefresh, "ok", now))
	})
	if err != nil {
		return Grant{}, "", err
	}
	if next == "" {
		return Grant{}, "", ErrInvalidGrant
	}
	return g, next, nil
}

// RevokeGrant ends a grant (the client's revocation call, RP-initiated
// logout); revoking a revoked grant changes nothing.
func (s *Service) RevokeGrant(ctx context.Context, id string) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		g, err := scanGrant(tx.QueryRow(ctx, "SELECT "+grantColumns+" FROM oidc_grants g WHERE g.id = ?", id))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrInvalidGrant
		}
		if err != nil || !g.RevokedAt.IsZero() {
			return err
		}
		return s.revoke(ctx, tx, g, audit.OIDCRevoke, s.Now())
	})
}

// RevokeAccount ends every live grant of an account, in the transaction of
// what ends them (sign-out, a password reset, staff disabling the account),
// and returns them: their clients get a back-channel logout.
func (s *Service) RevokeAccount(ctx context.Context, tx *store.Tx, accountID string) ([]Grant, error) {
	return s.revokeLive(ctx, tx, accountID, "")
}

// revokeLive ends the live grants of an account, of one client when
// clientID is not "", and returns them.
func (s *Service) revokeLive(ctx context.Context, tx *store.Tx, accountID, clientID string) ([]Grant, error) {
	now := s.Now()
	rows, err := tx.Query(ctx, "SELECT "+grantColumns+" FROM oidc_grants g WHERE g.account_id = ? AND (? = '' OR g.client_id = ?) AND g.revoked_at = 0 AND g.expires_at > ?",
		accountID, clientID, clientID, now.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("account grants: %w", err)
	}
	live, err := store.Collect(rows, func(r *sql.Rows) (Grant, error) { return scanGrant(r) })
	if err != nil {
		return nil, err
	}
	for _, g := range live {
		if err := s.revoke(ctx, tx, g, audit.OIDCRevoke, now); err != nil {
			return nil, err
		}
	}
	return live, nil
}

// revoke marks a grant revoked, creating it revoked when its first trade
// has not stored it yet (then StartGrant finds it and starts nothing), and
// audits why.
func (s *Service) revoke(ctx context.Context, tx *store.Tx, g Grant, event audit.Name, now time.Time) error {
	if _, err := tx.Exec(ctx, `INSERT INTO oidc_grants (id, brand, client_id, account_id, subject, issuer, scopes, auth_time, amr, created_at, expires_at, revoked_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET revoked_at = excluded.revoked_at WHERE oidc_grants.revoked_at = 0`,
		g.ID, g.Brand, g.ClientID, g.AccountID, g.Subject, g.Issuer, strings.Join(g.Scopes, " "), store.Millis(g.AuthTime), strings.Join(g.AMR, " "),
		store.Millis(g.CreatedAt), store.Millis(g.ExpiresAt), now.UnixMilli()); err != nil {
		return fmt.Errorf("revoke grant: %w", err)
	}
	return audit.Record(ctx, tx, g.event(event, "revoked", now))
}

// event is the audit row of what happened to g at now.
func (g Grant) event(name audit.Name, outcome string, now time.Time) audit.Event {
	return audit.Event{At: now, Brand: g.Brand, AccountID: g.AccountID, Event: name, Outcome: outcome, Detail: "client:" + g.ClientID}
}

// Prune deletes what no longer answers anything, and returns how many rows:
// authorization requests expired untraded; traded ones (kept so that a
// replayed code revokes its grant) once their grant's time is over; grants
// and their refresh tokens past their end; client assertions' jtis once the
// assertions expired. The hourly janitor calls it.
func (s *Service) Prune(ctx context.Context) (int64, error) {
	now := s.Now().UnixMilli()
	var n int64
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		n = 0
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{"DELETE FROM oidc_auth_requests WHERE expires_at <= ? AND exchanged_at = 0", []any{now}},
			{"DELETE FROM oidc_auth_requests WHERE exchanged_at <> 0 AND exchanged_at <= ?", []any{now - GrantTTL.Milliseconds()}},
			{"DELETE FROM oidc_refresh_tokens WHERE grant_id IN (SELECT id FROM oidc_grants WHERE expires_at <= ?)", []any{now}},
			{"DELETE FROM oidc_grants WHERE expires_at <= ?", []any{now}},
			{"DELETE FROM oidc_client_assertions WHERE expires_at <= ?", []any{now}},
		} {
			res, err := tx.Exec(ctx, q.sql, q.args...)
			if err != nil {
				return fmt.Errorf("prune oidc: %w", err)
			}
			rows, err := res.RowsAffected()
			if err != nil {
				return err
			}
			n += rows
		}
		return nil
	})
	return n, err
}
