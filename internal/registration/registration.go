// Package registration is the legacy registration of spec §2.4 and §4.2: a
// visitor identifies as a person insured on a policy (policy.Find), proves
// it with a code sent to the email or cell phone on file or with the PIN the
// insurer mailed, and creates an online account linked to the policy (or, a
// UBI driver whose email on file is a policyholder's account, links the
// policy to that account with its password).
//
// A registration is a server-side state machine (flow.go): every call is
// refused with ErrState unless the registration is in a state the spec's
// guards allow, and it expires 30 minutes after identification. Codes follow
// design.md's rules (internal/codes: CSPRNG, HMAC, 10 minutes, 5 guesses,
// single use under concurrency).
package registration

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/identity"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Limits of the flow (spec §9) besides identity's (TTL, CodeTTL,
// CodeGuesses, MaxResends, Limits) and account.PhoneLock.
const (
	// CreateTries is spec §9's "create password: 5".
	CreateTries = 5
)

// outcomeRateLimited is the audit outcome of a call over a rate limit.
const outcomeRateLimited = "rate_limited"

// Domain errors; handler.go maps them to the API's statuses once.
var (
	ErrRateLimited = errors.New("registration: too many requests")
	// ErrNoMatch: no active insured person matches the identification.
	ErrNoMatch = errors.New("registration: no matching person")
	// ErrNotFound: no registration has that id (in this brand).
	ErrNotFound = errors.New("registration: unknown registration")
	// ErrState: the call is out of order, or the registration is closed or
	// expired.
	ErrState = errors.New("registration: not allowed in this state")
	// ErrCodeExceeded: the code's (or PIN's) guesses are used up, or the
	// code expired.
	ErrCodeExceeded = errors.New("registration: too many wrong codes")
	// ErrResends: identity.MaxResends resends already.
	ErrResends = errors.New("registration: resend limit reached")
	// ErrEmailResends is ErrResends for an option whose code goes by email
	// (EMAIL, ask-email-code): too many emails (the resend-email roadblock).
	ErrEmailResends = errors.New("registration: email resend limit reached")
	// ErrEmailTaken: the email submitted belongs to another account.
	ErrEmailTaken = errors.New("registration: email already used")
	// ErrCreateTries: CreateTries refused passwords already.
	ErrCreateTries = errors.New("registration: too many refused passwords")
	// ErrRecordChanged: the person's policy record changed between
	// verification and create (an import cancelled the policy or removed
	// the person): spec §8.3 Create 4001, the soft roadblock (lnr500160).
	ErrRecordChanged = errors.New("registration: the policy record changed")
)

// PasswordError is a refused new password: Key is the rules key.
type PasswordError struct{ Key string }

func (e *PasswordError) Error() string { return "registration: password rule " + e.Key }

// Service runs the flow on the store. Fields may be set before first use.
type Service struct {
	DB       *store.DB
	Accounts *account.Service // hashing, password checks, its clock
	Limiter  *throttle.Limiter
	Now      func() time.Time
	Rand     io.Reader
	Limits   identity.Limits
	// Poke, when set, is called after a transaction that queued a message
	// commits (the notify worker's Poke).
	Poke func()

	codeKey []byte
	pinKey  []byte
}

// New returns a service on the accounts' store and clock, with the default
// limits; it reads (or creates) the secrets codes and PINs are keyed with.
func New(ctx context.Context, accounts *account.Service) (*Service, error) {
	keys, err := identity.LoadCodeKeys(ctx, accounts.DB, "registration", "guichet registration code v1", accounts.Now(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &Service{
		DB: accounts.DB, Accounts: accounts, Limiter: throttle.New(accounts.DB, accounts.Now), Now: accounts.Now,
		Rand: rand.Reader, Limits: identity.DefaultLimits(), codeKey: keys.Code, pinKey: keys.PIN,
	}, nil
}

// allow applies a rule to subject, auditing a refusal.
func (s *Service) allow(ctx context.Context, rule throttle.Rule, subject string, e audit.Event) error {
	return s.Limiter.Guard(ctx, rule, subject, ErrRateLimited, func(scope string) error {
		e.Outcome, e.Detail = outcomeRateLimited, scope
		return s.record(ctx, s.DB, e)
	})
}

// record writes an audit event stamped with the service clock.
func (s *Service) record(ctx context.Context, ex audit.Execer, e audit.Event) error {
	e.At = s.Now()
	return audit.Record(ctx, ex, e)
}

// keep is how long a registration stays after it expired (audit aside,
// nothing reads it then).
const keep = 24 * time.Hour

// Prune deletes registrations expired more than a day ago and returns how
// many went; the janitor calls it now and then.
func (s *Service) Prune(ctx context.Context) (int64, error) {
	return s.DB.DeleteExpired(ctx, "registrations", s.Now().Add(-keep))
}
