package account

import (
	"context"
	"errors"
	"fmt"
	"time"

	"guichet/internal/audit"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Limits are the per-IP rate limits of the sign-in API (design.md: "per IP a
// rate limit on find and authentication") and the per-account cap on emails
// a visitor may trigger.
type Limits struct {
	// Find limits account lookups by email per client IP.
	Find throttle.Rule
	// Authenticate limits password and temporary-password checks per client
	// IP, on the API and on the SSO form alike: each costs one argon2 hash.
	Authenticate throttle.Rule
	// Notify limits notification requests per client IP.
	Notify throttle.Rule
	// NotifyPerAccount caps the emails of one kind sent to one account;
	// requests over it answer as if sent, and send nothing.
	NotifyPerAccount throttle.Rule
}

// DefaultLimits are generous for a household or an office behind one
// address, and stop scripted guessing and enumeration.
func DefaultLimits() Limits {
	return Limits{
		Find:             throttle.Rule{Scope: "login.find", Limit: 30, Window: time.Minute},
		Authenticate:     throttle.Rule{Scope: "login.password", Limit: 20, Window: time.Minute},
		Notify:           throttle.Rule{Scope: "notification.ip", Limit: 10, Window: time.Hour},
		NotifyPerAccount: throttle.Rule{Scope: "notification.account", Limit: 3, Window: time.Hour},
	}
}

// Lockout is the per-account limit on failed password attempts: at most
// MaxFailures within Window, then a lock for Waits[n] where n counts the
// locks in a row (the last wait repeats). A lock streak is forgotten after a
// successful sign-in or Forget after the last lock ended.
type Lockout struct {
	MaxFailures int
	Window      time.Duration
	Waits       []time.Duration
	Forget      time.Duration
}

// DefaultLockout is issue 5's: 10 failures in 15 minutes, then 1, 5, 15 and
// 60 minutes.
var DefaultLockout = Lockout{
	MaxFailures: 10,
	Window:      15 * time.Minute,
	Waits:       []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour},
	Forget:      24 * time.Hour,
}

// wait is the lock duration for the lock that follows level earlier ones.
func (l Lockout) wait(level int) time.Duration {
	if level >= len(l.Waits) {
		level = len(l.Waits) - 1
	}
	return l.Waits[level]
}

// Validity of what the package hands out.
const (
	// TicketTTL is how long a login ticket may wait for the SSO form post.
	TicketTTL = 60 * time.Second
	// ResetTokenTTL is how long a RESET_PSW link works.
	ResetTokenTTL = time.Hour
	// TemporaryAttempts is spec §9's limit on temporary password tries; the
	// last wrong one invalidates the temporary password.
	TemporaryAttempts = 3
)

// Service runs the sign-in rules on the store. Its fields may be changed
// before first use (tests shorten nothing: they inject the clock).
type Service struct {
	DB      *store.DB
	Hasher  *Hasher
	Limiter *throttle.Limiter
	Now     func() time.Time
	Limits  Limits
	Lockout Lockout
	// Metrics, when set, counts the sign-ins by outcome (metrics.go).
	Metrics *Metrics
	// Poke, when set, is called after a transaction that queued an email
	// commits (the notify worker's Poke).
	Poke func()
	// SignedOut, when set, ends in tx what else an account's sign-ins gave
	// (the OpenID provider's grants, issue 30): called when the customer
	// signs out, resets their password, or staff disable the account.
	SignedOut func(ctx context.Context, tx *store.Tx, accountID string) error
	// Passes, when set, are the returning browsers' passes (returning.go):
	// the SSO form post gives one, the HTTP layer checks it.
	Passes *Passes
}

// EndSignIns runs SignedOut, if set, in tx.
func (s *Service) EndSignIns(ctx context.Context, tx *store.Tx, accountID string) error {
	if s.SignedOut == nil {
		return nil
	}
	return s.SignedOut(ctx, tx, accountID)
}

// NewService returns a service with the default limits and lockout.
func NewService(db *store.DB, hasher *Hasher, now func() time.Time) *Service {
	return &Service{
		DB: db, Hasher: hasher, Limiter: throttle.New(db, now), Now: now,
		Limits: DefaultLimits(), Lockout: DefaultLockout,
	}
}

// Domain errors of the sign-in rules; account.Handler maps them to the
// spec's statuses and codes once (error.go), sso maps them to §8.5 codes.
var (
	// ErrRateLimited: the client IP went over a Limits rule.
	ErrRateLimited = errors.New("account: too many requests")
	// ErrWrongPassword: wrong password, unknown account or locked account,
	// deliberately indistinguishable.
	ErrWrongPassword = errors.New("account: wrong credentials")
	// ErrSecurityAnswers: the password matched but the date of birth or
	// postal code sent with it did not (spec §8.3 Authentication 1002).
	ErrSecurityAnswers = errors.New("account: wrong security answers")
	// ErrWrongTemporary: a wrong temporary password, tries left.
	ErrWrongTemporary = errors.New("account: wrong temporary password")
	// ErrTemporaryInvalid: no usable temporary password (never issued,
	// expired, or invalidated by the third wrong try).
	ErrTemporaryInvalid = errors.New("account: no valid temporary password")
	// ErrMustReset: the password given is the account's valid temporary
	// password; the holder must choose a new one (/reset).
	ErrMustReset = errors.New("account: temporary password must be replaced")
	// ErrTicketInvalid: a login ticket unknown, used, expired or not the
	// username's.
	ErrTicketInvalid = errors.New("account: invalid login ticket")
)

// allow counts a hit of a per-client rate-limit rule for the client address
// ip (by throttle.ClientKey) and audits a refusal (throttle.Guard). The hit
// is one statement of its own (on PostgreSQL no transaction around it: two
// round trips fewer on every sign-in, issue 34); a refusal's audit row
// follows in a transaction of its own.
func (s *Service) allow(ctx context.Context, rule throttle.Rule, ip string, e audit.Event) error {
	return s.Limiter.Guard(ctx, rule, throttle.ClientKey(ip), ErrRateLimited, func(scope string) error {
		e.Outcome, e.Detail = "rate_limited", scope
		return s.DB.InTx(ctx, func(tx *store.Tx) error { return s.record(ctx, tx, e) })
	})
}

// admitted is the start of every password check: it holds a hashing slot
// (Hasher.AdmitClient: one of e's client's share), applies
// Limits.Authenticate to e's client and reads the account with read (a missing one is the zero record, found false), then
// runs check while it still holds the slot.
func (s *Service) admitted(ctx context.Context, e audit.Event, read func(context.Context) (record, error),
	check func(ctx context.Context, r record, found bool) error) error {
	ctx, release, err := s.Hasher.AdmitClient(ctx, throttle.ClientKey(e.IP))
	if err != nil {
		return err
	}
	defer release()
	if err := s.allow(ctx, s.Limits.Authenticate, e.IP, e); err != nil {
		return err
	}
	r, err := read(ctx)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	if err != nil {
		r = record{}
	}
	return check(ctx, r, err == nil)
}

// byID reads a brand's account by id, for admitted.
func (s *Service) byID(brand, id string) func(context.Context) (record, error) {
	return func(ctx context.Context) (record, error) { return recordByID(ctx, s.DB, brand, id) }
}

// record writes an audit event stamped with the service clock in tx.
func (s *Service) record(ctx context.Context, tx *store.Tx, e audit.Event) error {
	e.At = s.Now()
	if count := s.Metrics.signIn(e); count != nil {
		tx.AfterCommit(count)
	}
	return audit.Record(ctx, tx, e)
}

// recordAlone writes an audit event in a transaction of its own (every
// write goes through a transaction, so SQLite writers queue in the store
// instead of meeting on the database lock).
func (s *Service) recordAlone(ctx context.Context, e audit.Event) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error { return s.record(ctx, tx, e) })
}

// Prune deletes what can no longer be used: expired login tickets and reset
// tokens, failed attempts older than the lockout window and stale rate-limit
// counters. The lead's janitor calls it now and then; nothing depends on it
// for correctness.
func (s *Service) Prune(ctx context.Context) (int64, error) {
	now := s.Now()
	var total int64
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		total = 0
		for _, q := range []struct {
			sql string
			arg int64
		}{
			{"DELETE FROM login_tickets WHERE expires_at <= ?", now.UnixMilli()},
			{"DELETE FROM password_reset_tokens WHERE expires_at <= ?", now.UnixMilli()},
			{"DELETE FROM login_failures WHERE at <= ?", now.Add(-s.Lockout.Window).UnixMilli()},
		} {
			res, err := tx.Exec(ctx, q.sql, q.arg)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			total += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune: %w", err)
	}
	n, err := s.Limiter.Prune(ctx)
	return total + n, err
}
