// Package recovery is the forgotten-password flow of spec §2.3 and §4.4: the
// reset request that emails a 6-digit code, its resends, the code check that
// hands out a one-time reset token, and the new password set with that token
// (plus the postal code, or the phone of a UBI driver) or with the temporary
// password a sign-in found (the temporary variant of /reset).
//
// Codes come from a CSPRNG, are stored as HMAC-SHA256 under a key derived
// from a secret kept in the database (so every instance on one database
// agrees), live 10 minutes and allow 5 guesses. An unknown email gets a decoy
// request that behaves exactly like a real one from the outside, minus the
// email: the API never tells whether an account exists.
package recovery

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Limits of the flow (design.md "Codes" and spec §9).
const (
	// CodeTTL is how long a code may be used.
	CodeTTL = 10 * time.Minute
	// CodeGuesses is how many times a code may be tried; the last wrong try
	// kills it.
	CodeGuesses = 5
	// MaxResends is spec §9's forgot-password resend limit per request.
	MaxResends = 4
	// TokenTTL is how long the reset token of a right code works.
	TokenTTL = 15 * time.Minute
	// TokenAttempts is how many wrong postal codes or phones a reset token
	// survives; the last wrong one kills it.
	TokenAttempts = 5
	// guessWindow is the window of Limits.GuessesPerAccount.
	guessWindow = 24 * time.Hour
	// keep is how long finished or abandoned requests stay for the
	// per-account guess count before Prune deletes them.
	keep = guessWindow + time.Hour
)

// Limits are the server's own limits, whatever the browser counts.
type Limits struct {
	// Request limits reset requests per client IP.
	Request throttle.Rule
	// Resend limits resends per client IP.
	Resend throttle.Rule
	// Verify limits code submissions and link exchanges per client IP.
	Verify throttle.Rule
	// Password limits password calls with a reset token per client IP (the
	// temporary variant is limited by account.Limits.Authenticate).
	Password throttle.Rule
	// CodesPerAccount caps the codes emailed to one account (requests and
	// resends). Over it the answer is the same and no email goes out.
	CodesPerAccount throttle.Rule
	// GuessesPerAccount caps the wrong codes of one account over 24 hours,
	// across its codes: beyond it every code of the account is refused.
	GuessesPerAccount int
}

// DefaultLimits let a person retry comfortably and keep guessing at a few
// dozen tries a day per account.
func DefaultLimits() Limits {
	return Limits{
		Request:           throttle.Rule{Scope: "recovery.request", Limit: 10, Window: 10 * time.Minute},
		Resend:            throttle.Rule{Scope: "recovery.resend", Limit: 10, Window: 10 * time.Minute},
		Verify:            throttle.Rule{Scope: "recovery.verify", Limit: 30, Window: 10 * time.Minute},
		Password:          throttle.Rule{Scope: "recovery.password", Limit: 20, Window: 10 * time.Minute},
		CodesPerAccount:   throttle.Rule{Scope: "recovery.codes", Limit: 10, Window: time.Hour},
		GuessesPerAccount: 20,
	}
}

// Domain errors; handler.go maps them to the API's statuses once.
var (
	// ErrRateLimited: the client IP went over a Limits rule.
	ErrRateLimited = errors.New("recovery: too many requests")
	// ErrResetNotFound: no reset request has that id and validation id.
	ErrResetNotFound = errors.New("recovery: unknown reset request")
	// ErrResendLimit: the request was resent MaxResends times already.
	ErrResendLimit = errors.New("recovery: resend limit reached")
	// ErrResetClosed: the request's code was used already.
	ErrResetClosed = errors.New("recovery: reset request closed")
	// ErrWrongCode: a wrong code, tries left.
	ErrWrongCode = errors.New("recovery: wrong code")
	// ErrCodeExceeded: the code's guesses (or the account's) are used up.
	ErrCodeExceeded = errors.New("recovery: too many wrong codes")
	// ErrCodeExpired: the code expired, was replaced by a newer one, was
	// used already, or is unknown.
	ErrCodeExpired = errors.New("recovery: code expired")
	// ErrTokenInvalid: a reset token (or link) unknown, used, expired, of
	// another account or brand, or killed by wrong postal codes or phones.
	ErrTokenInvalid = errors.New("recovery: invalid reset token")
	// ErrWrongPostalCode and ErrWrongPhone: the proof of identity does not
	// match the account's (spec §8.3 Password set 1002); tries left on the
	// token.
	ErrWrongPostalCode = errors.New("recovery: wrong postal code")
	ErrWrongPhone      = errors.New("recovery: wrong phone")
	// ErrWrongCellphone: a UBI driver gave a wrong cell phone, now or less
	// than account.PhoneLock ago: the account is locked (spec §9), the
	// wrong-cellphone roadblock.
	ErrWrongCellphone = errors.New("recovery: account locked after a wrong cell phone")
	// ErrNoSecondFactor: the account's proof of identity (a UBI driver's
	// cell phone, else the postal code) is not on file, so no reset can
	// prove it online: spec §8.1's 403 3006, the two-factor roadblock.
	ErrNoSecondFactor = errors.New("recovery: no second factor on file")
)

// PasswordError is a new password that breaks a rule of spec §5; Key is the
// rules key (rules.KeyPasswordContainsEmail is spec §8.3's 2002 "password
// content", any other key its 2001 "password violation").
type PasswordError struct{ Key string }

func (e PasswordError) Error() string { return "recovery: password rule " + e.Key }

// Service runs the recovery flow on the store. Fields may be set before
// first use.
type Service struct {
	DB *store.DB
	// Accounts sets passwords (SetPassword, ResetWithTemporary); its clock
	// should be Now.
	Accounts *account.Service
	Limiter  *throttle.Limiter
	Now      func() time.Time
	// Rand is the source of codes, ids and tokens (crypto/rand in
	// production; tests may inject their own).
	Rand   io.Reader
	Limits Limits
	// Poke, when set, is called after a transaction that queued an email
	// commits (the notify worker's Poke), so the code leaves at once.
	Poke func()

	codeKey  []byte // HMAC key of codes
	decoyKey []byte // HMAC key of decoy ids
}

// New returns a service with the default limits, the accounts' store and
// clock, and crypto/rand. It reads the server secret from the database,
// creating it on first start (see loadSecret).
func New(ctx context.Context, accounts *account.Service) (*Service, error) {
	secret, err := loadSecret(ctx, accounts.DB, accounts.Now(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &Service{
		DB: accounts.DB, Accounts: accounts, Limiter: throttle.New(accounts.DB, accounts.Now), Now: accounts.Now,
		Rand: rand.Reader, Limits: DefaultLimits(),
		codeKey:  derive(secret, "guichet recovery code v1"),
		decoyKey: derive(secret, "guichet recovery decoy id v1"),
	}, nil
}

// secretName is the row of recovery_secrets this package uses.
const secretName = "recovery"

// loadSecret returns the server secret of this package (codes.LoadSecret).
func loadSecret(ctx context.Context, db *store.DB, now time.Time, rnd io.Reader) ([]byte, error) {
	return codes.LoadSecret(ctx, db, secretName, now, rnd)
}

// derive is codes.Derive: one key per use of the secret.
func derive(secret []byte, purpose string) []byte { return codes.Derive(secret, purpose) }

// codeHMAC is how a code is stored: bound to its validation id, so the same
// six digits of two codes give two unrelated values.
func (s *Service) codeHMAC(validationID, code string) string {
	return codes.HMAC(s.codeKey, validationID, code)
}

// decoyID is the id answered for an unknown email: the same shape as an
// account id (16 bytes, base64url) and stable for the email, so asking twice
// does not tell a decoy from an account either.
func (s *Service) decoyID(brand, normalizedEmail string) string {
	m := hmac.New(sha256.New, s.decoyKey)
	m.Write([]byte(brand))
	m.Write([]byte{0})
	m.Write([]byte(normalizedEmail))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// randomID returns 16 random bytes from s.Rand, base64url without padding
// (the shape of account ids): validation ids, request ids, reset tokens.
func (s *Service) randomID() (string, error) { return codes.RandomID(s.Rand) }

// newCode returns 6 uniformly random digits from s.Rand.
func (s *Service) newCode() (string, error) { return codes.New(s.Rand) }

// allow applies a per-client rule to e.IP (by throttle.ClientKey), auditing
// a refusal with the full address.
func (s *Service) allow(ctx context.Context, rule throttle.Rule, e audit.Event) error {
	wait, err := s.Limiter.Check(ctx, rule, throttle.ClientKey(e.IP))
	if err != nil || wait == 0 {
		return err
	}
	e.Outcome, e.Detail = "rate_limited", rule.Scope
	if err := s.record(ctx, s.DB, e); err != nil {
		return err
	}
	return &throttle.Limited{Err: ErrRateLimited, RetryAfter: wait}
}

// record writes an audit event stamped with the service clock.
func (s *Service) record(ctx context.Context, ex audit.Execer, e audit.Event) error {
	e.At = s.Now()
	return audit.Record(ctx, ex, e)
}

// Prune deletes requests older than a day (with their codes) and reset
// tokens past their end, and returns how many rows went. Nothing depends on
// it for correctness; the lead's janitor calls it now and then.
func (s *Service) Prune(ctx context.Context) (int64, error) {
	now := s.Now()
	var total int64
	for _, q := range []struct {
		sql string
		arg int64
	}{
		{"DELETE FROM password_reset_codes WHERE reset_id IN (SELECT id FROM password_resets WHERE created_at <= ?)", now.Add(-keep).UnixMilli()},
		{"DELETE FROM password_resets WHERE created_at <= ?", now.Add(-keep).UnixMilli()},
		{"DELETE FROM recovery_tokens WHERE expires_at <= ?", now.UnixMilli()},
	} {
		res, err := s.DB.Exec(ctx, q.sql, q.arg)
		if err != nil {
			return total, fmt.Errorf("recovery prune: %w", err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	return total, nil
}
