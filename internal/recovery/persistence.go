package recovery

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"
	"time"

	"guichet/internal/codes"
	"guichet/internal/store"
)

// maxID bounds ids and tokens read from a path or a body before they reach a
// query: every id this package or account hands out is 22 characters.
const maxID = 64

// lockSubject serializes the writers of one subject (an account or a decoy)
// on PostgreSQL, so that a request, a resend and a code check racing on one
// account leave exactly one live code. SQLite transactions here are
// IMMEDIATE: one writer at a time already.
func lockSubject(ctx context.Context, tx *store.Tx, brand, subject string) error {
	if tx.Dialect != store.Postgres {
		return nil
	}
	sum := sha256.Sum256([]byte("recovery\x00" + brand + "\x00" + subject))
	key := int64(binary.BigEndian.Uint64(sum[:8]))
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(?)", key); err != nil {
		return fmt.Errorf("recovery lock: %w", err)
	}
	return nil
}

// revokeLiveCodes kills every unused code of a subject: a new code
// invalidates the previous ones.
func revokeLiveCodes(ctx context.Context, tx *store.Tx, brand, subject string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE password_reset_codes SET revoked_at = ?
		WHERE used_at = 0 AND revoked_at = 0
		AND reset_id IN (SELECT id FROM password_resets WHERE brand = ? AND subject = ?)`,
		now.UnixMilli(), brand, subject)
	if err != nil {
		return fmt.Errorf("revoke codes: %w", err)
	}
	return nil
}

// revokeAccount kills every unused code and reset token of an account once
// its password is set: none of them may set it again.
func revokeAccount(ctx context.Context, tx *store.Tx, brand, accountID string, now time.Time) error {
	if err := revokeLiveCodes(ctx, tx, brand, accountID, now); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE recovery_tokens SET used_at = ? WHERE account_id = ? AND used_at = 0",
		now.UnixMilli(), accountID); err != nil {
		return fmt.Errorf("revoke reset tokens: %w", err)
	}
	return nil
}

// insertCode stores a new code of a request; hmacValue "" stores a code
// that never matches.
func insertCode(ctx context.Context, tx *store.Tx, id, resetID, hmacValue string, now time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO password_reset_codes (id, reset_id, code_hmac, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?)`, id, resetID, hmacValue, now.UnixMilli(), now.Add(CodeTTL).UnixMilli())
	if err != nil {
		return fmt.Errorf("insert reset code: %w", err)
	}
	return nil
}

// codeRow is a code with its request.
type codeRow struct {
	id        string
	codeHMAC  string
	attempts  int
	expiresAt int64
	usedAt    int64
	revokedAt int64
	resetID   string
	accountID string // "" for a decoy
	resends   int
	doneAt    int64
}

// dead tells why a code can no longer be used at now, or nil.
func (c codeRow) dead(now time.Time) error {
	switch {
	case c.attempts >= CodeGuesses:
		return ErrCodeExceeded
	case c.usedAt != 0 || c.revokedAt != 0 || now.UnixMilli() >= c.expiresAt:
		return ErrCodeExpired
	}
	return nil
}

// querier is a *store.DB or a *store.Tx.
type querier interface {
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

// findCode returns a code by validation id, for the subject and brand the
// path names; a code of another account, request or brand is not found.
func findCode(ctx context.Context, q querier, brand, subject, validationID string) (codeRow, error) {
	if subject == "" || validationID == "" || len(subject) > maxID || len(validationID) > maxID {
		return codeRow{}, store.ErrNotFound
	}
	var c codeRow
	err := q.QueryRow(ctx, `SELECT c.id, c.code_hmac, c.attempts, c.expires_at, c.used_at, c.revoked_at,
		r.id, r.account_id, r.resends, r.done_at
		FROM password_reset_codes c JOIN password_resets r ON r.id = c.reset_id
		WHERE c.id = ? AND r.subject = ? AND r.brand = ?`, validationID, subject, brand).
		Scan(&c.id, &c.codeHMAC, &c.attempts, &c.expiresAt, &c.usedAt, &c.revokedAt,
			&c.resetID, &c.accountID, &c.resends, &c.doneAt)
	if err != nil {
		return codeRow{}, store.NotFound(err)
	}
	return c, nil
}

// wrongGuesses counts a subject's wrong codes of the last guessWindow.
func wrongGuesses(ctx context.Context, q querier, brand, subject string, now time.Time) (int, error) {
	var n int64
	err := q.QueryRow(ctx, `SELECT COALESCE(SUM(c.attempts), 0)
		FROM password_reset_codes c JOIN password_resets r ON r.id = c.reset_id
		WHERE r.brand = ? AND r.subject = ? AND c.created_at > ?`, brand, subject, now.Add(-guessWindow).UnixMilli()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count wrong codes: %w", err)
	}
	return int(n), nil
}

// Sources of reset tokens.
const (
	sourceCode = "code"
	sourceLink = "link"
)

// issueToken stores a new reset token for the account (hashed) and returns
// it; the account's older unused tokens die.
func (s *Service) issueToken(ctx context.Context, tx *store.Tx, brand, accountID, source string, now time.Time) (string, error) {
	token, err := s.randomID()
	if err != nil {
		return "", err
	}
	if _, err := tx.Exec(ctx, "UPDATE recovery_tokens SET used_at = ? WHERE account_id = ? AND used_at = 0",
		now.UnixMilli(), accountID); err != nil {
		return "", fmt.Errorf("revoke reset tokens: %w", err)
	}
	_, err = tx.Exec(ctx, `INSERT INTO recovery_tokens (token_hash, account_id, brand, source, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?)`, codes.TokenHash(token), accountID, brand, source, now.UnixMilli(), now.Add(TokenTTL).UnixMilli())
	if err != nil {
		return "", fmt.Errorf("issue reset token: %w", err)
	}
	return token, nil
}

// tokenRow is a stored reset token.
type tokenRow struct {
	accountID string
	brand     string
	attempts  int
	expiresAt int64
	usedAt    int64
}

// usableBy tells whether the token may set the password of the account of
// the brand at now.
func (t tokenRow) usableBy(brand, accountID string, now time.Time) bool {
	return t.brand == brand && t.accountID == accountID && t.usedAt == 0 &&
		t.attempts < TokenAttempts && now.UnixMilli() < t.expiresAt
}

// findToken reads a reset token by its value.
func findToken(ctx context.Context, q querier, token string) (tokenRow, error) {
	if token == "" || len(token) > maxID {
		return tokenRow{}, store.ErrNotFound
	}
	var t tokenRow
	err := q.QueryRow(ctx, "SELECT account_id, brand, attempts, expires_at, used_at FROM recovery_tokens WHERE token_hash = ?",
		codes.TokenHash(token)).Scan(&t.accountID, &t.brand, &t.attempts, &t.expiresAt, &t.usedAt)
	if err != nil {
		return tokenRow{}, store.NotFound(err)
	}
	return t, nil
}

// consumeToken spends a token in tx: the conditional UPDATE lets exactly one
// of concurrent submits through.
func consumeToken(ctx context.Context, tx *store.Tx, brand, accountID, token string, now time.Time) error {
	res, err := tx.Exec(ctx, `UPDATE recovery_tokens SET used_at = ?
		WHERE token_hash = ? AND account_id = ? AND brand = ? AND used_at = 0 AND attempts < ? AND expires_at > ?`,
		now.UnixMilli(), codes.TokenHash(token), accountID, brand, TokenAttempts, now.UnixMilli())
	if err != nil {
		return fmt.Errorf("consume reset token: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("consume reset token: %w", err)
	}
	if n != 1 {
		return ErrTokenInvalid
	}
	return nil
}
