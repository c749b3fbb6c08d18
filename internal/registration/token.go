package registration

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/emailtoken"
	"guichet/internal/identity"
	"guichet/internal/policy"
	"guichet/internal/rules"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Email-token registrations (issue 14): reading an emailed magic link
// (internal/emailtoken) opens a registration at the step its action needs,
// the link itself proving the email: verified (default-password-register),
// ask_email with ask-username, or ask_password (the UBI link). Creating the
// account and linking the policy then ask the person's postal code and date
// of birth (or cell phone) and consume the token in the same transaction.

var (
	// ErrIdentity: the postal code or date of birth given with a token
	// create is not the person's (spec §8.3 1002).
	ErrIdentity = errors.New("registration: wrong postal code or date of birth")
	// ErrWrongCellphone: a UBI driver's wrong cell phone with a token
	// create, now or in the last account.PhoneLock (the person is locked).
	ErrWrongCellphone = errors.New("registration: wrong cell phone, person locked")
)

// Ensure the service is what emailtoken opens registrations with.
var _ emailtoken.Registrations = (*Service)(nil)

// OpenForToken opens the registration a token's action needs, in the
// token read's transaction; the previous one is reused when still live at
// that step for the same email, else closed (one open registration per
// token).
func (s *Service) OpenForToken(ctx context.Context, tx *store.Tx, o emailtoken.Opening) (emailtoken.Opened, error) {
	now := s.Now()
	r := registration{brand: o.Brand, personID: o.PersonID, options: []Option{}, language: emailLanguage(o.Language, ""),
		province: o.Province, expiresAt: now.Add(identity.TTL).UnixMilli()}
	method := ""
	switch o.Action {
	case emailtoken.ActionRegister:
		r.state, r.email = stateVerified, o.Email
	case emailtoken.ActionAskUsername:
		r.state, method = stateAskEmail, MethodAskUsername
	case emailtoken.ActionAskPassword:
		r.state, r.email, method = stateAskPassword, o.Email, MethodAskPassword
	default:
		return emailtoken.Opened{}, fmt.Errorf("registration: no token step for action %q", o.Action)
	}
	if o.Previous != "" {
		prev, err := load(ctx, tx, o.Brand, o.Previous)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return emailtoken.Opened{}, err
		case prev.live(now) && prev.state == r.state && prev.personID == o.PersonID && prev.email == r.email:
			return opened(prev), nil
		case prev.live(now):
			if _, err := closeRegistration(ctx, tx, prev, now); err != nil {
				return emailtoken.Opened{}, err
			}
		}
	}
	var err error
	if r.id, err = codes.RandomID(s.Rand); err != nil {
		return emailtoken.Opened{}, err
	}
	if method != "" {
		oid, err := codes.RandomID(s.Rand)
		if err != nil {
			return emailtoken.Opened{}, err
		}
		masked := ""
		if method == MethodAskUsername {
			masked = maskEmail(o.Email)
		}
		r.options = []Option{{ID: oid, Method: method, MaskedValue: masked}}
	}
	if err := insert(ctx, tx, r, now); err != nil {
		return emailtoken.Opened{}, err
	}
	return opened(r), nil
}

func opened(r registration) emailtoken.Opened {
	out := emailtoken.Opened{ID: r.id, TwoFactorValidations: []emailtoken.Validation{}}
	for _, o := range r.options {
		out.TwoFactorValidations = append(out.TwoFactorValidations, emailtoken.Validation(o))
	}
	return out
}

// IsRegistration reports whether id names a registration of the brand (the
// account handler's authentication dispatches on it).
func (s *Service) IsRegistration(ctx context.Context, brand, id string) (bool, error) {
	_, err := load(ctx, s.DB, brand, id)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// tokenRegistration reports whether id is a registration an email token's
// read opened.
func (s *Service) tokenRegistration(ctx context.Context, brand, id string) (bool, error) {
	_, err := emailtoken.ForRegistration(ctx, s.DB, brand, id)
	if errors.Is(err, emailtoken.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// TokenCreation is the token variant of account-creation/password: the
// proof of identity as typed (checked with rules here): the cell phone of a
// UBI driver, else the postal code and, when given, the date of birth.
type TokenCreation struct {
	Creation
	PostalCode, DateOfBirth, CellPhone string
}

// CreateWithToken creates the account of a token registration. The person
// locked after a wrong cell phone is refused (ErrWrongCellphone); a wrong
// cell phone closes the registration and locks the person account.PhoneLock; a
// wrong postal code or date of birth counts as a refused password
// (ErrIdentity, the CreateTries-th ErrCreateTries). Then Create, which also
// consumes the token in its transaction: of concurrent creates one wins,
// and a used token never creates a second account.
func (s *Service) CreateWithToken(ctx context.Context, c TokenCreation) (string, error) {
	e := audit.Event{Brand: c.Brand, IP: c.IP, Event: audit.RegistrationCreate, Detail: "token"}
	if err := s.allow(ctx, s.Limits.Calls, throttle.ClientKey(c.IP), e); err != nil {
		return "", err
	}
	now := s.Now()
	r, err := load(ctx, s.DB, c.Brand, c.ID)
	if err != nil {
		return "", err
	}
	if r.state != stateVerified || !r.live(now) {
		return "", ErrState
	}
	if r.createFailures >= CreateTries {
		return "", ErrCreateTries
	}
	p, err := policy.PersonByID(ctx, s.DB, c.Brand, r.personID)
	if err != nil {
		return "", err
	}
	locked, err := policy.PersonLocked(ctx, s.DB, p.ID, now)
	if err != nil {
		return "", err
	}
	if locked {
		e.Outcome = "person_locked"
		if err := s.record(ctx, s.DB, e); err != nil {
			return "", err
		}
		return "", ErrWrongCellphone
	}
	if emailtoken.UBIDriver(p) {
		phone, err := rules.Phone(c.CellPhone, true)
		if err != nil {
			return "", err
		}
		if !same(phone, p.CellPhone) {
			return "", s.wrongCellphone(ctx, r, p, e)
		}
	} else {
		postal, err := rules.PostalCode(c.PostalCode)
		if err != nil {
			return "", err
		}
		dob := ""
		if c.DateOfBirth != "" {
			if dob, err = rules.DateOfBirth(c.DateOfBirth, now); err != nil {
				return "", err
			}
		}
		if !same(postal, p.PostalCode) || (dob != "" && !same(dob, p.DateOfBirth)) {
			e.Outcome = "wrong_identity"
			return "", s.refuseCreate(ctx, r, e, ErrIdentity)
		}
	}
	c.inTx = func(ctx context.Context, tx *store.Tx, p policy.Person, now time.Time) (error, error) {
		if p.AccountID != "" {
			return ErrState, nil
		}
		return consumed(emailtoken.ConsumeForRegistration(ctx, tx, c.Brand, c.ID, "create", now))
	}
	return s.Create(ctx, c.Creation)
}

// consumed is the answer to a token consumed (nil), used meanwhile
// (ErrState) or failing.
func consumed(_ emailtoken.Token, err error) (error, error) {
	if errors.Is(err, emailtoken.ErrUsed) || errors.Is(err, emailtoken.ErrNotFound) {
		return ErrState, nil
	}
	return nil, err
}

// same compares a typed proof with the one on file, in constant time; a
// value not on file never matches.
func same(given, onFile string) bool {
	return onFile != "" && subtle.ConstantTimeCompare([]byte(given), []byte(onFile)) == 1
}

// refuseCreate counts a refused create (a password, or a token's wrong
// postal code or date of birth), audited as e: the answer is wrong, or
// ErrCreateTries the CreateTries-th time (ErrState if the registration moved
// meanwhile).
func (s *Service) refuseCreate(ctx context.Context, r registration, e audit.Event, wrong error) error {
	answer := wrong
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		n, err := count(ctx, tx, "create_failures", r, CreateTries)
		if err != nil {
			return err
		}
		switch {
		case n == 0:
			answer = ErrState
		case n >= CreateTries:
			answer = ErrCreateTries
		}
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return err
	}
	return answer
}

// wrongCellphone closes the registration and locks the person account.PhoneLock
// (spec §9), audited, in one transaction.
func (s *Service) wrongCellphone(ctx context.Context, r registration, p policy.Person, e audit.Event) error {
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		if _, err := closeRegistration(ctx, tx, r, now); err != nil {
			return err
		}
		if err := policy.LockPerson(ctx, tx, p.ID, now.Add(account.PhoneLock), now); err != nil {
			return err
		}
		e.Event, e.Outcome, e.AccountID = audit.RegistrationWrongPhone, account.OutcomeWrongPhone, ""
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return err
	}
	return ErrWrongCellphone
}

// LinkWithToken is the UBI link of a token registration: the policyholder
// account's password, plus the driver's date of birth and postal code as
// on file (both normalised by rules); wrong ones count as sign-in failures
// of that account (its lockout). The token is consumed with the link.
func (s *Service) LinkWithToken(ctx context.Context, brand, id, password, dateOfBirth, postalCode, ip string) (string, error) {
	r, err := load(ctx, s.DB, brand, id)
	if err != nil {
		return "", err
	}
	p, err := policy.PersonByID(ctx, s.DB, brand, r.personID)
	if err != nil {
		return "", err
	}
	c := account.Credentials{Brand: brand, Password: password, IP: ip, DateOfBirth: dateOfBirth, PostalCode: postalCode,
		Answers: &account.SecurityAnswers{DateOfBirth: p.DateOfBirth, PostalCode: p.PostalCode}}
	return s.link(ctx, c, id, func(ctx context.Context, tx *store.Tx, _ policy.Person, now time.Time) (error, error) {
		return consumed(emailtoken.ConsumeForRegistration(ctx, tx, brand, id, "link", now))
	})
}

// refused records a token step's refusal (answer) in e, in the create or
// link transaction, which then commits the registration closed and nothing
// else; err fails the transaction.
func (s *Service) refused(ctx context.Context, tx *store.Tx, e *audit.Event, answer, err error) error {
	if err != nil {
		return err
	}
	e.Outcome = "token_used"
	return s.record(ctx, tx, *e)
}
