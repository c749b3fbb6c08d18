package console

import (
	"context"
	"errors"
	"io"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/brand"
	"guichet/internal/emailtoken"
	"guichet/internal/oidc"
	"guichet/internal/passkey"
	"guichet/internal/staff"
	"guichet/internal/store"
)

// Service is the console's domain: who may do what, on which customer, and
// the actions themselves. It knows nothing of HTTP; its errors are the
// domain errors below (and those of account, emailtoken, staff and
// maintenance), turned into answers once, by the handlers' apiError.
type Service struct {
	DB       *store.DB
	Accounts *account.Service
	Tokens   *emailtoken.Service
	// Staff is the staff accounts (the admins' calls).
	Staff *staff.Service
	// OIDC is the OpenID provider's clients (the admins' calls, issue 30).
	OIDC *oidc.Service
	// Passkeys is the customers' passkeys: their count and their removal
	// (issue 31).
	Passkeys *passkey.Service
	// Brands resolves a brand id (the registry's Get).
	Brands func(id string) (*brand.Brand, bool)
	// LinkBase is the scheme://host of a brand's site, where the links of
	// the emails sent for staff point (emailtoken.LinkBase).
	LinkBase func(b *brand.Brand) string
	Now      func() time.Time
	// Deletions tells a customer's pending account deletion (issue 31,
	// internal/privacy); nil: none shown.
	Deletions interface {
		DeletionDate(ctx context.Context, brand, accountID string) (time.Time, error)
	}
	// Rand makes temporary passwords (crypto/rand.Reader when nil).
	Rand io.Reader
}

// Caller is who makes a console call: the signed-in staff member (zero
// when none), their IP and the call ("METHOD pattern", the detail of a
// refusal's audit row).
type Caller struct {
	Staff staff.Principal
	IP    string
	Call  string
}

// Domain errors of the console.
var (
	ErrSignInRequired = errors.New("console: no staff member signed in")
	ErrReauthRequired = errors.New("console: second factor not fresh")
	ErrForbiddenRole  = errors.New("console: role too low")
	ErrForbiddenBrand = errors.New("console: brand not served")
	ErrNotFound       = errors.New("console: not found")
	// ErrSelf is an admin disabling themselves.
	ErrSelf = errors.New("console: staff member acting on themselves")
)

// ValidationError is an input that breaks a rule: the field and the
// message key.
type ValidationError struct {
	Field, Key string
}

func (e *ValidationError) Error() string { return "console: invalid " + e.Field + " (" + e.Key + ")" }

func invalid(field, key string) error { return &ValidationError{Field: field, Key: key} }

// Authorize is what every call checks first: a signed-in staff member of
// at least min's role; for a change (state-changing call) a fresh second
// factor too. A refused role is audited.
func (s *Service) Authorize(ctx context.Context, c Caller, min staff.Role, change bool) error {
	p := c.Staff
	if p.ID == "" {
		return ErrSignInRequired
	}
	if change && !p.FactorFresh(s.Now()) {
		return ErrReauthRequired
	}
	if !p.Role.AtLeast(min) {
		s.refuse(ctx, c, auditBrand, "", "forbidden_role")
		return ErrForbiddenRole
	}
	return nil
}

// refuse audits a refused call (a role too low, a brand not served).
func (s *Service) refuse(ctx context.Context, c Caller, b, accountID, outcome string) {
	// The refusal stands whether its row is written or not; a failed write
	// is the database's trouble, reported by the next call.
	_ = audit.Record(ctx, s.DB, audit.Event{At: s.Now(), Brand: b, AccountID: accountID, IP: c.IP,
		Event: audit.ConsoleForbidden, Outcome: outcome, Detail: c.Call, Actor: c.Staff.Actor()})
}

// record writes an audit row of a console action in ex (the action's
// transaction, or the database).
func (s *Service) record(ctx context.Context, ex audit.Execer, c Caller, e audit.Event) error {
	e.At, e.IP, e.Actor = s.Now(), c.IP, c.Staff.Actor()
	return audit.Record(ctx, ex, e)
}

// Customer loads the account id, on whatever brand, and checks the staff
// member serves its brand (ErrForbiddenBrand and an audit row otherwise).
func (s *Service) Customer(ctx context.Context, c Caller, id string) (account.Account, error) {
	b, err := account.BrandOf(ctx, s.DB, id)
	if errors.Is(err, account.ErrNotFound) {
		return account.Account{}, ErrNotFound
	}
	if err != nil {
		return account.Account{}, err
	}
	if !c.Staff.Serves(b) {
		s.refuse(ctx, c, b, id, "forbidden_brand")
		return account.Account{}, ErrForbiddenBrand
	}
	a, err := account.ByID(ctx, s.DB, b, id)
	if errors.Is(err, account.ErrNotFound) {
		return a, ErrNotFound
	}
	return a, err
}
