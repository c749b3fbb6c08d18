package staff

import (
	"context"
	"errors"
	"fmt"
	"time"

	"guichet/internal/codes"
	"guichet/internal/store"
)

// session is a stored console session.
type session struct {
	staffID  string
	pending  bool
	factorAt time.Time
}

// openSession stores a new session (256 random bits; only the SHA-256 is
// kept) and revokes the browser's old one, if any: every sign-in step gets
// a new id. signedIn: the second factor was proved now.
func openSession(ctx context.Context, tx *store.Tx, staffID, oldToken string, now time.Time, signedIn bool) (string, error) {
	if oldToken != "" && len(oldToken) <= 128 {
		if _, err := tx.Exec(ctx, "UPDATE staff_sessions SET revoked_at = ? WHERE id_hash = ? AND revoked_at = 0", now.UnixMilli(), codes.TokenHash(oldToken)); err != nil {
			return "", err
		}
	}
	token, err := randomToken()
	if err != nil {
		return "", err
	}
	factorAt, pending := int64(0), 1
	if signedIn {
		factorAt, pending = now.UnixMilli(), 0
	}
	_, err = tx.Exec(ctx, `INSERT INTO staff_sessions (id_hash, staff_id, created_at, last_seen_at, factor_at, expires_at, pending)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, codes.TokenHash(token), staffID, now.UnixMilli(), now.UnixMilli(), factorAt,
		now.Add(AbsoluteTimeout).UnixMilli(), pending)
	if err != nil {
		return "", fmt.Errorf("new staff session: %w", err)
	}
	return token, nil
}

// session returns the live session of a token and its member, and records
// its use. Ended sessions (idle, absolute, revoked) and those of a
// disabled member are ErrNoSession.
func (s *Service) session(ctx context.Context, token string) (session, row, error) {
	return s.sessionOf(ctx, token, true)
}

// sessionOf is session; touch false leaves last_seen_at as it is (a check
// that is not the staff member's activity).
func (s *Service) sessionOf(ctx context.Context, token string, touch bool) (session, row, error) {
	if token == "" || len(token) > 128 {
		return session{}, row{}, ErrNoSession
	}
	h := codes.TokenHash(token)
	now := s.Now()
	var sess session
	var seen, expires, factor, revoked int64
	var pending int
	err := s.DB.QueryRow(ctx, "SELECT staff_id, last_seen_at, expires_at, factor_at, revoked_at, pending FROM staff_sessions WHERE id_hash = ?", h).
		Scan(&sess.staffID, &seen, &expires, &factor, &revoked, &pending)
	if errors.Is(store.NotFound(err), store.ErrNotFound) {
		return session{}, row{}, ErrNoSession
	}
	if err != nil {
		return session{}, row{}, fmt.Errorf("staff session: %w", err)
	}
	if revoked != 0 || now.UnixMilli() >= expires || now.UnixMilli() >= seen+IdleTimeout.Milliseconds() {
		return session{}, row{}, ErrNoSession
	}
	r, err := s.byID(ctx, s.DB, sess.staffID)
	if errors.Is(err, ErrUnknown) {
		return session{}, row{}, ErrNoSession
	}
	if err != nil {
		return session{}, row{}, err
	}
	if r.Disabled {
		return session{}, row{}, ErrNoSession
	}
	sess.pending = pending != 0
	if factor != 0 {
		sess.factorAt = time.UnixMilli(factor).UTC()
	}
	if touch && now.UnixMilli()-seen >= touchEvery.Milliseconds() {
		if _, err := s.DB.Exec(ctx, "UPDATE staff_sessions SET last_seen_at = ? WHERE id_hash = ?", now.UnixMilli(), h); err != nil {
			return session{}, row{}, fmt.Errorf("touch staff session: %w", err)
		}
	}
	return sess, r, nil
}
