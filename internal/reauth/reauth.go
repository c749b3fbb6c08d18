// Package reauth is the fresh proof a security change on My account asks
// for (issue 31, design.md "The customer's own account"): the customer's
// password, or a code emailed to the address on file, marks their session
// fresh for sso.FreshFor; the changes themselves call
// sso.Service.RequireFresh. A passkey is the third proof (internal/passkey).
// It owns reauth_codes.
package reauth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/notify"
	"guichet/internal/sso"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Code rules are codes' (TTL, MaxFailures, MaxSends: recovery's, spec §5):
// a session may ask for codes.MaxSends codes, and an account for
// CodesPerAccount an hour across its sessions.

// Limits are the per-account rules of the codes.
type Limits = codes.Limits

// DefaultLimits are recovery's.
func DefaultLimits() Limits { return codes.DefaultLimits("reauth") }

// ErrWrongPassword: a wrong password (or a locked account, which answers
// the same as at sign-in). The code's errors are codes' (ErrWrong,
// ErrExceeded, ErrExpired, codes.ErrSendLimit: this session asked for codes.MaxSends
// codes, or the account for its hourly count).
var ErrWrongPassword = errors.New("reauth: wrong password")

// Service checks proofs and marks sessions fresh.
type Service struct {
	DB       *store.DB
	Accounts *account.Service
	Sessions *sso.Service
	Limiter  *throttle.Limiter
	Now      func() time.Time
	Rand     io.Reader
	Limits   Limits
	// Poke wakes the notify worker after a code is queued.
	Poke func()

	codeKey []byte
}

// New returns a service on the accounts' store and clock; its code key is
// derived from a secret kept in the database (codes.LoadSecret).
func New(ctx context.Context, accounts *account.Service, sessions *sso.Service) (*Service, error) {
	secret, err := codes.LoadSecret(ctx, accounts.DB, "reauth", accounts.Now(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &Service{DB: accounts.DB, Accounts: accounts, Sessions: sessions, Limiter: throttle.New(accounts.DB, accounts.Now),
		Now: accounts.Now, Rand: rand.Reader, Limits: DefaultLimits(),
		codeKey: codes.Derive(secret, "guichet reauth code v1")}, nil
}

// ByPassword is a proof by the account's password, checked as a sign-in
// checks it (account.VerifyPassword: the rate limit, the lockout).
func (s *Service) ByPassword(ctx context.Context, sess sso.Session, password, ip string) error {
	if sess.ID == "" {
		return sso.ErrNoSession // a session older than migration 0018 has no id to mark
	}
	e := audit.Event{Brand: sess.Brand, AccountID: sess.AccountID, IP: ip, Event: audit.ReauthPassword}
	err := s.Accounts.VerifyPassword(ctx, password, e)
	if errors.Is(err, account.ErrWrongPassword) {
		return ErrWrongPassword
	}
	if err != nil {
		return err
	}
	return s.DB.InTx(ctx, func(tx *store.Tx) error { return s.Sessions.MarkFresh(ctx, tx, sess.ID) })
}

// SendCode emails a new code to the account's address (the one before
// replaces it), in language ("en" or "fr").
func (s *Service) SendCode(ctx context.Context, sess sso.Session, language, ip string) error {
	if sess.ID == "" {
		return sso.ErrNoSession
	}
	code, err := codes.New(s.Rand)
	if err != nil {
		return err
	}
	now := s.Now()
	e := audit.Event{Brand: sess.Brand, AccountID: sess.AccountID, IP: ip, Event: audit.ReauthCodeSend, At: now, Outcome: "ok"}
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		a, err := account.ByID(ctx, tx, sess.Brand, sess.AccountID)
		if err != nil {
			return err
		}
		if err := s.slot(sess).MaySend(ctx, tx); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO reauth_codes (session_id, account_id, code_hmac, expires_at, failures, sends)
			VALUES (?, ?, ?, ?, 0, 1)
			ON CONFLICT (session_id) DO UPDATE SET code_hmac = excluded.code_hmac, expires_at = excluded.expires_at,
				failures = 0, sends = reauth_codes.sends + 1`,
			sess.ID, sess.AccountID, codes.HMAC(s.codeKey, sess.ID, code), now.Add(codes.TTL).UnixMilli())
		if err != nil {
			return fmt.Errorf("store reauth code: %w", err)
		}
		if language != "fr" {
			language = "en"
		}
		if err := notify.Queue(ctx, tx, notify.Message{
			Brand: a.Brand, Language: language, Channel: notify.ChannelEmail, To: a.Email, Template: notify.TemplateConfirmCode,
			Data:      map[string]string{notify.DataCode: code, notify.DataMinutes: strconv.Itoa(int(codes.TTL / time.Minute))},
			Sensitive: true, ExpiresAt: now.Add(codes.TTL),
		}, s.Poke); err != nil {
			return err
		}
		return audit.Record(ctx, tx, e)
	})
}

// ByCode is a proof by the code last emailed to this session: right, it
// is spent and the session is fresh. Every try is counted before the code
// is compared (codes.Slot.Try): codes.MaxFailures end a code, and the
// account's tries across its sessions and codes are limited too.
func (s *Service) ByCode(ctx context.Context, sess sso.Session, code, ip string) error {
	if sess.ID == "" {
		return sso.ErrNoSession
	}
	now := s.Now()
	e := audit.Event{Brand: sess.Brand, AccountID: sess.AccountID, IP: ip, Event: audit.ReauthCode, At: now}
	var answer error
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		answer, err = s.slot(sess).Try(ctx, tx, now, func() string { return codes.HMAC(s.codeKey, sess.ID, code) })
		if err != nil {
			return err
		}
		if answer == nil {
			// Spent; the row stays (its sends still count).
			if _, err := tx.Exec(ctx, "UPDATE reauth_codes SET code_hmac = '' WHERE session_id = ?", sess.ID); err != nil {
				return err
			}
			if err := s.Sessions.MarkFresh(ctx, tx, sess.ID); err != nil {
				return err
			}
		}
		e.Outcome = codes.Outcome(answer)
		return audit.Record(ctx, tx, e)
	})
	if err != nil {
		return err
	}
	return answer
}

// slot is the session's row of reauth_codes; a spent code keeps its row
// (code_hmac empty) for its sends.
func (s *Service) slot(sess sso.Session) codes.Slot {
	return codes.Slot{
		Sends: "SELECT sends FROM reauth_codes WHERE session_id = ? AND account_id = ?",
		Count: `UPDATE reauth_codes SET failures = failures + 1
			WHERE session_id = ? AND account_id = ? AND code_hmac <> '' AND expires_at > ? AND failures < ?
			RETURNING code_hmac, failures`,
		Exceeded: `SELECT COUNT(*) FROM reauth_codes
			WHERE session_id = ? AND account_id = ? AND code_hmac <> '' AND expires_at > ? AND failures >= ?`,
		End:     "UPDATE reauth_codes SET failures = ? WHERE session_id = ? AND account_id = ?",
		Key:     []any{sess.ID, sess.AccountID},
		Account: sess.AccountID, Limiter: s.Limiter, Limits: s.Limits,
	}
}

// Prune deletes the rows whose last code expired a session's whole life
// ago: their session has ended (the janitor calls it).
func (s *Service) Prune(ctx context.Context) (int64, error) {
	n, err := s.DB.Affected(ctx, "DELETE FROM reauth_codes WHERE expires_at <= ?", s.Now().Add(-sso.AbsoluteTimeout).UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("prune reauth codes: %w", err)
	}
	return n, nil
}
