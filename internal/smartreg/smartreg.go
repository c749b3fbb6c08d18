// Package smartreg is smart registration (issue 15, spec §2.5, §4.1, §7
// api/v2): a server-driven flow under a signed session token. Each answer
// names the next step and page; the identification fields come from the
// brand file. It reuses the legacy registration's identity check (policy
// records, the same throttles), codes (internal/codes), mailed PINs and
// account creation (internal/identity).
//
// A session is a row of smart_registrations (persistence.go), so any
// instance serves any step; the browser holds a JWT naming it (session.go).
// Every call is allowed only in its steps (allowed, flow.go), else
// ErrStepNotAllowed; a call that moves the session claims the row's version
// first, so of two concurrent calls one moves it and the other sees the new
// step.
package smartreg

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

// Steps of spec §4.1.
const (
	StepAccountType     = "ACCOUNT_TYPE_SELECTION"
	StepIdentify        = "IDENTIFY"
	StepVerify          = "VERIFY"
	StepConfirmUsername = "CONFIRM_USERNAME"
	StepAskNewUsername  = "ASK_NEW_USERNAME"
	StepCreate          = "CREATE"
	StepRedirect        = "REDIRECT"
	StepDone            = "DONE"
)

// Pages of the steps (the SPA's paths).
const (
	PageAccountType = "/create-an-account/identification/account-type"
	PageIdentify    = "/create-an-account/identification"
	PageOptions     = "/create-an-account/verify/options"
	PageCode        = "/create-an-account/verify/code"
	PageUsername    = "/create-an-account/verify/email"
	PageCreate      = "/create-an-account/account-creation/create"
	PageRedirect    = "/registration/identification"
	PageDone        = "/create-an-account/confirmation"
)

// Limits of the flow: the legacy registration's (spec §9), and its
// throttles, whose scopes are shared so the two flows draw on one budget
// per address, policy number and person.
const (
	// TTL is a session's life after its last answer (sliding).
	TTL = identity.TTL
	// CodeTTL, CodeGuesses, MaxResends: as legacy registration.
	CodeTTL     = identity.CodeTTL
	CodeGuesses = identity.CodeGuesses
	MaxResends  = identity.MaxResends
	// IdentifyTries: the third failed identification of a session is
	// UNABLE_TO_IDENTIFY and closes it (spec §9 "3 for identification").
	IdentifyTries = 3
)

// Domain errors; handler.go maps them to the API's answers once.
var (
	ErrStepNotAllowed = errors.New("smartreg: call not allowed in this step")
	ErrRateLimited    = errors.New("smartreg: too many requests")
	// ErrNotFound: no active policy has that number, or no person of it
	// matches (one answer, so policy numbers cannot be probed).
	ErrNotFound = errors.New("smartreg: policy number not found")
	// ErrUnableToIdentify: the IdentifyTries-th failure; the session closed.
	ErrUnableToIdentify = errors.New("smartreg: unable to identify")
	// ErrAccountExists: the person already has an account.
	ErrAccountExists = errors.New("smartreg: account already exists")
	// ErrCodeExceeded: the code's (or PIN's) guesses are used up or the code
	// expired; the session closed.
	ErrCodeExceeded = errors.New("smartreg: too many wrong codes")
	ErrResends      = errors.New("smartreg: resend limit reached")
	ErrEmailTaken   = errors.New("smartreg: email already used")
	// ErrEmailUpdate: the person's policy record can no longer take the new
	// account (an import removed the person or ended the policy meanwhile).
	ErrEmailUpdate = errors.New("smartreg: policy record update failed")
	// ErrPasswordPolicy: the password contains the email.
	ErrPasswordPolicy = errors.New("smartreg: password contains the email")
)

// Service runs the flow on the store. Fields may be set before first use.
type Service struct {
	DB       *store.DB
	Accounts *account.Service
	Limiter  *throttle.Limiter
	Now      func() time.Time
	Rand     io.Reader
	Limits   identity.Limits
	Keys     Keys
	// TTL is the sliding session life (TTL unless --dev shortens it).
	TTL  time.Duration
	Poke func()

	codeKey, pinKey []byte
}

// New returns a service on the accounts' store and clock with legacy
// registration's limits; keys sign the tokens (nil: the database key).
func New(ctx context.Context, accounts *account.Service, keys Keys) (*Service, error) {
	now := accounts.Now()
	if len(keys) == 0 {
		var err error
		if keys, err = DatabaseKeys(ctx, accounts.DB, now); err != nil {
			return nil, err
		}
	}
	codeKeys, err := identity.LoadCodeKeys(ctx, accounts.DB, "smart-registration", "guichet smart registration code v1", now, rand.Reader)
	if err != nil {
		return nil, err
	}
	return &Service{
		DB: accounts.DB, Accounts: accounts, Limiter: throttle.New(accounts.DB, accounts.Now), Now: accounts.Now,
		Rand: rand.Reader, Limits: identity.DefaultLimits(), Keys: keys, TTL: TTL, codeKey: codeKeys.Code, pinKey: codeKeys.PIN,
	}, nil
}

func (s *Service) allow(ctx context.Context, rule throttle.Rule, subject string, e audit.Event) error {
	return s.Limiter.Guard(ctx, rule, subject, ErrRateLimited, func(scope string) error {
		e.Outcome, e.Detail = "rate_limited", scope
		return s.record(ctx, s.DB, e)
	})
}

func (s *Service) record(ctx context.Context, ex audit.Execer, e audit.Event) error {
	e.At = s.Now()
	return audit.Record(ctx, ex, e)
}

// Prune deletes sessions expired more than a day ago (nothing reads them
// then); the janitor calls it.
func (s *Service) Prune(ctx context.Context) (int64, error) {
	return s.DB.DeleteExpired(ctx, "smart_registrations", s.Now().Add(-24*time.Hour))
}
