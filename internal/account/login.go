package account

import (
	"context"
	"errors"
	"fmt"
	"time"

	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Found is the login variant of spec §7's find answer.
type Found struct {
	ID     string `json:"id"`
	Status string `json:"status"` // "A" (sign in with the password) or "T" (temporary password held)
	Email  string `json:"email"`
}

// Find looks an account up by email for the login page (spec §4.3: "the
// account is found first"). A locked account is found like an active one:
// its lock shows nowhere before the password is checked.
func (s *Service) Find(ctx context.Context, brand, email, ip string) (Found, error) {
	var found Found
	var answer error
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		found, answer = Found{}, nil
		e := audit.Event{Brand: brand, IP: ip, Event: audit.LoginFind}
		wait, err := s.Limiter.CheckTx(ctx, tx, s.Limits.Find, throttle.ClientKey(ip))
		if err != nil {
			return err
		}
		if wait > 0 {
			e.Outcome, e.Detail = "rate_limited", s.Limits.Find.Scope
			answer = &throttle.Limited{Err: ErrRateLimited, RetryAfter: wait}
			return s.record(ctx, tx, e)
		}
		r, err := recordByEmail(ctx, tx, brand, email)
		if errors.Is(err, ErrNotFound) {
			e.Outcome, answer = "not_found", ErrNotFound
			return s.record(ctx, tx, e)
		}
		if err != nil {
			return err
		}
		found = Found{ID: r.ID, Status: "A", Email: r.Email}
		if r.Status == Temporary {
			found.Status = "T"
		}
		e.AccountID, e.Outcome = r.ID, "ok"
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return Found{}, err
	}
	return found, answer
}

// Credentials are what a sign-in attempt presents.
type Credentials struct {
	Brand     string
	AccountID string // the API names the account by id...
	Email     string // ...the SSO form by email
	Password  string // normalized by rules.LoginPassword
	// DateOfBirth and PostalCode are asked with the password when an email
	// token exists (spec §7); empty means not asked. Both normalized by rules.
	DateOfBirth string
	PostalCode  string
	// Answers, when set, is what DateOfBirth and PostalCode must equal
	// instead of the account's own (the UBI link checks the driver's
	// record); a wrong one counts as a failed sign-in all the same.
	Answers *SecurityAnswers
	IP      string
}

// SecurityAnswers are a date of birth (YYYY-MM-DD) and a postal code (A9A
// 9A9) on file.
type SecurityAnswers struct {
	DateOfBirth, PostalCode string
}

// Authenticate is spec §7's authentication step: it checks the password
// (with the lockout) and returns a one-time login ticket that the SSO form
// post presents instead of a second password check (see ConsumeTicket).
func (s *Service) Authenticate(ctx context.Context, c Credentials) (ticket string, err error) {
	e := audit.Event{Brand: c.Brand, AccountID: c.AccountID, IP: c.IP, Event: audit.LoginAuthentication}
	err = s.admitted(ctx, e, s.byID(c.Brand, c.AccountID), func(ctx context.Context, r record, found bool) error {
		if found && r.Status == Temporary {
			// The temporary password goes through /temporary, never here.
			found = false
			e.Detail = "temporary"
		}
		return s.checkPassword(ctx, r, found, c, e, func(tx *store.Tx, a Account) error {
			t, err := issueTicket(ctx, tx, a, s.Now())
			ticket = t
			return err
		})
	})
	return ticket, err
}

// SignInWithPassword is the SSO form's check when it comes without a valid
// ticket: the same rules as Authenticate, by email. onSuccess runs in the
// transaction that records the success (the session is opened there). An
// account holding a temporary password is checked against it: a match is
// ErrMustReset, a miss counts as a temporary password try.
func (s *Service) SignInWithPassword(ctx context.Context, c Credentials, onSuccess func(*store.Tx, Account) error) error {
	e := audit.Event{Brand: c.Brand, IP: c.IP, Event: audit.SSOLogin, Detail: "password"}
	read := func(ctx context.Context) (record, error) { return recordByEmail(ctx, s.DB, c.Brand, c.Email) }
	return s.admitted(ctx, e, read, func(ctx context.Context, r record, found bool) error {
		e.AccountID = r.ID
		if found && r.Status == Temporary {
			switch err := s.checkTemporary(ctx, r, c.Password, e); {
			case err == nil:
				return ErrMustReset
			case errors.Is(err, ErrWrongTemporary), errors.Is(err, ErrTemporaryInvalid):
				return ErrWrongPassword
			default:
				return err
			}
		}
		return s.checkPassword(ctx, r, found, c, e, onSuccess)
	})
}

// checkPassword runs exactly one argon2 verification whatever the case
// (unknown, locked, wrong, right) so that the answer's timing tells nothing,
// then records the outcome: a failure counts toward the lockout, a success
// clears the count and runs onSuccess in the same transaction.
func (s *Service) checkPassword(ctx context.Context, r record, found bool, c Credentials, e audit.Event,
	onSuccess func(*store.Tx, Account) error) error {
	stored := ""
	if found {
		stored = r.passwordHash
	}
	match, rehash, err := s.Hasher.Verify(ctx, c.Password, stored)
	if err != nil && !errors.Is(err, ErrMalformedHash) {
		return err
	}
	return s.settle(ctx, r, found, match, c, e, func() (string, error) {
		if !rehash {
			return "", nil
		}
		return s.Hasher.Hash(ctx, c.Password)
	}, onSuccess)
}

// settle decides a sign-in once its proof is checked (match): unknown,
// locked, wrong (counted toward the lockout), wrong security answers,
// disabled, or right — then the failures are cleared, newHash (nil: no
// new hash) is stored and onSuccess runs in the transaction that records
// the success. A password and a passkey both end here.
func (s *Service) settle(ctx context.Context, r record, found, match bool, c Credentials, e audit.Event,
	newHash func() (string, error), onSuccess func(*store.Tx, Account) error) error {
	now := s.Now()
	answers := SecurityAnswers{DateOfBirth: r.DateOfBirth, PostalCode: r.PostalCode}
	if c.Answers != nil {
		answers = *c.Answers
	}
	switch {
	case !found:
		if e.Detail == "" {
			e.Detail = "unknown_account"
		}
		e.Outcome = "wrong_password"
		if err := s.recordAlone(ctx, e); err != nil {
			return err
		}
		return ErrWrongPassword
	case r.lockedAt(now):
		e.Outcome = "locked"
		if err := s.recordAlone(ctx, e); err != nil {
			return err
		}
		return ErrWrongPassword
	case !match:
		e.Outcome = "wrong_password"
		return s.fail(ctx, r.ID, e, ErrWrongPassword)
	case c.DateOfBirth != "" && c.DateOfBirth != answers.DateOfBirth,
		c.PostalCode != "" && c.PostalCode != answers.PostalCode:
		e.Outcome = "wrong_security_answers"
		return s.fail(ctx, r.ID, e, ErrSecurityAnswers)
	case !r.DisabledAt.IsZero():
		// Every credential was right: only now may the answer tell.
		e.Outcome = "disabled"
		if err := s.recordAlone(ctx, e); err != nil {
			return err
		}
		return ErrDisabled
	}
	rehashed := ""
	if newHash != nil {
		var err error
		if rehashed, err = newHash(); err != nil {
			return err
		}
	}
	return s.inRowTx(ctx, r.ID, func(tx *store.Tx, now time.Time, cur record) error {
		changed := cur.passwordHash != r.passwordHash || cur.Status != r.Status || !cur.DisabledAt.Equal(r.DisabledAt)
		if cur.lockedAt(now) || changed {
			// Locked, disabled, or the password changed, while the hash ran.
			e.Outcome = "locked"
			if changed {
				e.Outcome = "changed"
			}
			if err := s.record(ctx, tx, e); err != nil {
				return err
			}
			return ErrWrongPassword
		}
		if cur.failures {
			if _, err := tx.Exec(ctx, "DELETE FROM login_failures WHERE account_id = ?", r.ID); err != nil {
				return err
			}
		}
		if cur.lockLevel != 0 || !cur.LockedUntil.IsZero() {
			if _, err := tx.Exec(ctx, "UPDATE accounts SET lock_level = 0, locked_until = 0 WHERE id = ?", r.ID); err != nil {
				return err
			}
		}
		if rehashed != "" {
			if _, err := tx.Exec(ctx, "UPDATE accounts SET password_hash = ?, updated_at = ? WHERE id = ?",
				rehashed, now.UnixMilli(), r.ID); err != nil {
				return err
			}
			e.Detail = "rehashed"
		}
		if err := onSuccess(tx, cur.Account); err != nil {
			return err
		}
		e.Outcome = "ok"
		return s.record(ctx, tx, e)
	})
}

// fail records a failed attempt and locks the account when it is the
// MaxFailures-th within the window; it returns answer.
func (s *Service) fail(ctx context.Context, id string, e audit.Event, answer error) error {
	err := s.inRowTx(ctx, id, func(tx *store.Tx, now time.Time, cur record) error {
		if _, err := tx.Exec(ctx, "INSERT INTO login_failures (account_id, at) VALUES (?, ?)", id, now.UnixMilli()); err != nil {
			return err
		}
		var failures int
		if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM login_failures WHERE account_id = ? AND at > ?",
			id, now.Add(-s.Lockout.Window).UnixMilli()).Scan(&failures); err != nil {
			return err
		}
		if failures >= s.Lockout.MaxFailures {
			level := cur.lockLevel
			if !cur.LockedUntil.IsZero() && now.Sub(cur.LockedUntil) > s.Lockout.Forget {
				level = 0
			}
			until := now.Add(s.Lockout.wait(level))
			if _, err := tx.Exec(ctx, "UPDATE accounts SET locked_until = ?, lock_level = ?, updated_at = ? WHERE id = ?",
				until.UnixMilli(), level+1, now.UnixMilli(), id); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "DELETE FROM login_failures WHERE account_id = ?", id); err != nil {
				return err
			}
			e.Detail = fmt.Sprintf("locked_%dm", int(s.Lockout.wait(level)/time.Minute))
		}
		// Failures older than the window count for nothing any more.
		if _, err := tx.Exec(ctx, "DELETE FROM login_failures WHERE account_id = ? AND at <= ?",
			id, now.Add(-s.Lockout.Window).UnixMilli()); err != nil {
			return err
		}
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return err
	}
	return answer
}

// issueTicket stores a new login ticket for the account (hashed) and returns
// it: 128 random bits, single use, valid TicketTTL.
func issueTicket(ctx context.Context, tx *store.Tx, a Account, now time.Time) (string, error) {
	t, err := randomToken(16)
	if err != nil {
		return "", err
	}
	_, err = tx.Exec(ctx, "INSERT INTO login_tickets (token_hash, account_id, brand, expires_at) VALUES (?, ?, ?, ?)",
		codes.TokenHash(t), a.ID, a.Brand, now.Add(TicketTTL).UnixMilli())
	if err != nil {
		return "", fmt.Errorf("issue login ticket: %w", err)
	}
	return t, nil
}

// ConsumeTicket redeems a login ticket for the SSO form in the caller's
// transaction: it is deleted whatever happens next (single use, even when
// two posts race), and it is valid only unexpired, for the brand, for the
// account whose email is username, while that account may sign in (active,
// not locked, not disabled).
func ConsumeTicket(ctx context.Context, tx *store.Tx, brand, username, ticket string, now time.Time) (Account, error) {
	accountID, err := loginTickets.consume(ctx, tx, brand, ticket, now)
	if err != nil {
		return Account{}, err
	}
	r, err := lockRow(ctx, tx, accountID)
	if errors.Is(err, ErrNotFound) {
		return Account{}, ErrTicketInvalid
	}
	if err != nil {
		return Account{}, err
	}
	if r.Brand != brand || NormalizeEmail(username) != NormalizeEmail(r.Email) || r.Status != Active || r.lockedAt(now) ||
		!r.DisabledAt.IsZero() {
		return Account{}, ErrTicketInvalid
	}
	return r.Account, nil
}
