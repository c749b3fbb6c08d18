package registration

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/identity"
	"guichet/internal/notify"
	"guichet/internal/policy"
	"guichet/internal/rules"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Identification is the registration variant of accounts/find, each field
// normalised by its rule (handler.go).
type Identification struct {
	policy.Match
	Language string // the site's: the emails' language
	Province string // the site's: the phone number the emails show
	IP       string
}

// Found answers an identification (spec §4.2 find statuses): Registered
// (200) when the person already has an account, else the registration (240).
type Found struct {
	Registered           bool
	ID                   string
	TwoFactorValidations []Option
	UBIMatchPH           bool
	Email                string // masked
}

// Find identifies the visitor as an insured person of an active policy.
// The person's account, if any, is told by email (a security notice) and
// the answer is Registered; otherwise a registration starts with the
// options what is on file allows.
func (s *Service) Find(ctx context.Context, in Identification) (Found, error) {
	e := audit.Event{Brand: in.Brand, IP: in.IP, Event: audit.RegistrationFind}
	if err := s.allow(ctx, s.Limits.FindPerIP, throttle.ClientKey(in.IP), e); err != nil {
		return Found{}, err
	}
	if err := s.allow(ctx, s.Limits.FindPerPolicy, in.Brand+" "+policy.NormalizeNumber(in.Number), e); err != nil {
		return Found{}, err
	}
	var out Found
	var answer error
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		p, err := policy.Find(ctx, tx, in.Match)
		if errors.Is(err, store.ErrNotFound) {
			e.Outcome, answer = "not_found", ErrNoMatch
			return s.record(ctx, tx, e)
		}
		if err != nil {
			return err
		}
		if p.AccountID != "" {
			a, err := account.ByID(ctx, tx, in.Brand, p.AccountID)
			if err != nil {
				return err
			}
			e.AccountID, e.Outcome = a.ID, "registered"
			if err := notify.Queue(ctx, tx, s.notice(a, in.Language, in.Province), s.Poke); err != nil {
				return err
			}
			out = Found{Registered: true}
			return s.record(ctx, tx, e)
		}
		r, err := s.start(ctx, tx, p, in, now)
		if err != nil {
			return err
		}
		out = Found{ID: r.id, TwoFactorValidations: r.options, Email: maskEmail(p.Email)}
		out.UBIMatchPH, err = holderAccount(ctx, tx, p)
		if err != nil {
			return err
		}
		e.Outcome, e.Detail = "identified", string(p.Role)
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return Found{}, err
	}
	return out, answer
}

// notice is the security notice to the owner of an account someone passed
// identification for.
func (s *Service) notice(a account.Account, language, province string) notify.Message {
	return identity.Notice(a, language, province)
}

// start opens a registration for the person with the options of spec §4.2:
// EMAIL, SMS and PIN from what is on file, then NONE; ask-email alone for a
// holder with nothing on file; none for a driver with nothing on file.
func (s *Service) start(ctx context.Context, tx *store.Tx, p policy.Person, in Identification, now time.Time) (registration, error) {
	id, err := codes.RandomID(s.Rand)
	if err != nil {
		return registration{}, err
	}
	r := registration{id: id, brand: in.Brand, personID: p.ID, state: stateIdentified, options: []Option{},
		language: in.Language, province: in.Province, expiresAt: now.Add(identity.TTL).UnixMilli()}
	add := func(method, masked string) error {
		oid, err := codes.RandomID(s.Rand)
		r.options = append(r.options, Option{ID: oid, Method: method, MaskedValue: masked})
		return err
	}
	for _, o := range identity.Offers(p, now) {
		if err := add(o.Method, o.Masked); err != nil {
			return r, err
		}
	}
	switch {
	case len(r.options) > 0:
		err = add(MethodNone, "")
	case p.Role == policy.Holder:
		r.state = stateAskEmail
		err = add(MethodAskEmail, "")
	}
	if err != nil {
		return r, err
	}
	return r, insert(ctx, tx, r, now)
}

// holderAccount and holds are identity's (shared with smart registration).
var (
	holderAccount = identity.HolderAccount
	holds         = identity.Holds
)

// Validation is a call of registrations/{id}/validations/{validationId}/.
type Validation struct {
	Brand        string
	ID           string
	ValidationID string
	// Value is nil to send (or resend) the option's code; else the code,
	// PIN or email typed, normalised by handler.go for the option's method,
	// or the token of an emailed link.
	Value *string
	IP    string
	// EmailLink: the brand proves an email submitted with a link (brand
	// emailProof: link), which points to BaseURL (the site's origin).
	EmailLink bool
	BaseURL   string
	// loaded is the registration as handler.go read it to check Value
	// (nil: Validate reads it); Validate goes on with it rather than read
	// the row again.
	loaded *registration
}

// Step answers a validation call. Sent: a code left (200 with the option
// and resends left). LinkSent: a link went to the email submitted (202).
// Verified: identity proved (200 {id, email}). Next: the one option to go
// on with (240).
type Step struct {
	ID          string
	Sent        bool
	LinkSent    bool
	ResendsLeft int
	Verified    bool
	Email       string
	Next        []Option
}

// Validate runs one validation call (spec §4.2 "Choosing an option", "Code
// submission", "Email submission").
func (s *Service) Validate(ctx context.Context, v Validation) (Step, error) {
	e := audit.Event{Brand: v.Brand, IP: v.IP, Event: audit.RegistrationVerify}
	if err := s.allow(ctx, s.Limits.Calls, throttle.ClientKey(v.IP), e); err != nil {
		return Step{}, err
	}
	var r registration
	if v.loaded != nil {
		r = *v.loaded
	} else {
		var err error
		if r, err = load(ctx, s.DB, v.Brand, v.ID); err != nil {
			return Step{}, err
		}
	}
	o, ok := r.option(v.ValidationID)
	if !ok || !r.live(s.Now()) {
		return Step{}, ErrState
	}
	switch {
	case v.Value == nil && (o.Method == identity.MethodEmail || o.Method == identity.MethodSMS || o.Method == MethodAskEmailCode):
		return s.send(ctx, r, o, v.IP)
	case v.Value != nil && (o.Method == identity.MethodEmail || o.Method == identity.MethodSMS || o.Method == MethodAskEmailCode ||
		o.Method == MethodAskEmailLink):
		return s.checkCode(ctx, r, o, *v.Value, v.IP)
	case v.Value != nil && o.Method == identity.MethodPIN:
		return s.checkPIN(ctx, r, *v.Value, v.IP)
	case v.Value != nil && (o.Method == MethodAskEmail || o.Method == MethodAskUsername):
		return s.submitEmail(ctx, r, *v.Value, v)
	}
	return Step{}, ErrState
}

// send sends (or resends) a code by the option: EMAIL and SMS from the
// identified state, ask-email-code to the email submitted.
func (s *Service) send(ctx context.Context, r registration, o Option, ip string) (Step, error) {
	e := audit.Event{Brand: r.brand, IP: ip, Event: audit.RegistrationSend, Detail: o.Method}
	var out Step
	var answer error
	err := s.onCurrent(ctx, r, func(tx *store.Tx, cur registration, now time.Time) error {
		allowed := cur.state == stateIdentified || cur.state == stateCodeSent
		if o.Method == MethodAskEmailCode {
			allowed = cur.state == stateEmailCodeSent
		}
		if !allowed || !cur.live(now) {
			e.Outcome, answer = "state", ErrState
			return s.record(ctx, tx, e)
		}
		next := cur
		if cur.chosen != o.ID {
			next.sends = 0
		}
		if next.sends > identity.MaxResends {
			e.Outcome, answer = "resend_limit", ErrResends
			if o.Method == identity.MethodEmail || o.Method == MethodAskEmailCode {
				answer = ErrEmailResends
			}
			return s.record(ctx, tx, e)
		}
		if o.Method != MethodAskEmailCode {
			next.state = stateCodeSent
		}
		var code string
		var err error
		if code, answer, err = s.issue(ctx, tx, &next, o.ID, now, &e); answer != nil || err != nil {
			return err
		}
		if answer, err = s.move(ctx, tx, next, cur, &e); answer != nil || err != nil {
			return err
		}
		p, err := policy.PersonByID(ctx, tx, cur.brand, cur.personID)
		if err != nil {
			return err
		}
		if err := notify.Queue(ctx, tx, s.codeMessage(cur, p, o, code, now), s.Poke); err != nil {
			return err
		}
		out = Step{ID: cur.id, Sent: true, ResendsLeft: identity.MaxResends - (next.sends - 1), Next: []Option{o}}
		e.Outcome = "code_sent"
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return Step{}, err
	}
	if answer != nil {
		return Step{}, answer
	}
	return out, nil
}

// issue gives next a new code for option optID (one more send), within
// the per-person cap: answer is ErrRateLimited (audited in e) over it. The
// code of an ask-email-link option is a link's token (newLinkToken).
func (s *Service) issue(ctx context.Context, tx *store.Tx, next *registration, optID string, now time.Time,
	e *audit.Event) (code string, answer, err error) {
	fresh := codes.New
	if o, ok := next.option(optID); ok && o.Method == MethodAskEmailLink {
		fresh = newLinkToken
	}
	wait, err := s.Limiter.CheckTx(ctx, tx, s.Limits.SendsPerPerson, next.personID)
	if err != nil {
		return "", nil, err
	}
	if wait > 0 {
		e.Outcome, e.Detail = outcomeRateLimited, s.Limits.SendsPerPerson.Scope
		return "", &throttle.Limited{Err: ErrRateLimited, RetryAfter: wait}, s.record(ctx, tx, *e)
	}
	if code, err = fresh(s.Rand); err != nil {
		return "", nil, err
	}
	next.chosen, next.sends = optID, next.sends+1
	next.codeHMAC = codes.HMAC(s.codeKey, next.id, optID, strconv.Itoa(next.sends), code)
	next.codeExpiresAt, next.codeAttempts = now.Add(identity.CodeTTL).UnixMilli(), 0
	return code, nil, nil
}

// move is move() whose refusal (another call moved the registration
// first) is the answer ErrState, audited in e.
func (s *Service) move(ctx context.Context, tx *store.Tx, next, cur registration, e *audit.Event) (answer, err error) {
	moved, err := move(ctx, tx, next, cur)
	if err != nil || moved {
		return nil, err
	}
	e.Outcome = "state"
	return ErrState, s.record(ctx, tx, *e)
}

// codeMessage is the registration-code email or SMS of an option.
func (s *Service) codeMessage(r registration, p policy.Person, o Option, code string, now time.Time) notify.Message {
	c := identity.Code{Brand: r.brand, Language: r.language, Province: r.province, To: p.Email,
		FirstName: p.FirstName, Code: code, TTL: identity.CodeTTL}
	switch o.Method {
	case identity.MethodSMS:
		c.SMS, c.To = true, p.CellPhone
	case MethodAskEmailCode:
		c.To = r.pendingEmail
	}
	return identity.CodeMessage(c, now)
}

// checkCode checks a code sent by the option; a right one moves the
// registration on (verify), once.
func (s *Service) checkCode(ctx context.Context, r registration, o Option, code, ip string) (Step, error) {
	want := stateCodeSent
	switch o.Method {
	case MethodAskEmailCode:
		want = stateEmailCodeSent
	case MethodAskEmailLink:
		want = stateEmailLinkSent
	}
	return s.check(ctx, r, ip, o.Method, func(_ *store.Tx, cur registration, now time.Time) (guess, error) {
		return guess{
			allowed:  cur.state == want && cur.chosen == o.ID,
			dead:     cur.codeAttempts >= identity.CodeGuesses || now.UnixMilli() >= cur.codeExpiresAt,
			right:    codes.Equal(cur.codeHMAC, codes.HMAC(s.codeKey, cur.id, o.ID, strconv.Itoa(cur.sends), code)),
			counter:  "code_attempts",
			wrongOut: wrongOutcome(o.Method),
		}, nil
	})
}

// wrongOutcome is the audit outcome of a wrong code of a method.
func wrongOutcome(method string) string {
	if method == MethodAskEmailLink {
		return "wrong_link"
	}
	return "wrong_code"
}

// checkPIN checks the PIN the insurer mailed (identified or code-sent
// state: the visitor may turn to the PIN after asking for a code).
func (s *Service) checkPIN(ctx context.Context, r registration, pin, ip string) (Step, error) {
	return s.check(ctx, r, ip, identity.MethodPIN, func(tx *store.Tx, cur registration, now time.Time) (guess, error) {
		g := guess{allowed: cur.state == stateIdentified || cur.state == stateCodeSent, counter: "pin_attempts",
			wrongOut: "wrong_pin"}
		if !g.allowed {
			return g, nil
		}
		p, err := policy.PersonByID(ctx, tx, cur.brand, cur.personID)
		if err != nil {
			return g, err
		}
		g.dead = cur.pinAttempts >= identity.CodeGuesses || !p.HasPIN(now)
		g.right = codes.Equal(p.PINHash, policy.PINHash(s.pinKey, pin))
		return g, nil
	})
}

// guess is what check needs to know of a code or PIN typed.
type guess struct {
	allowed  bool   // the registration's state accepts it
	dead     bool   // its guesses are used up (or it expired)
	right    bool   // it matches
	counter  string // the column counting wrong guesses
	wrongOut string // the audit outcome of a wrong guess
}

// check runs a code or PIN check in one transaction: refused out of
// order, dead after identity.CodeGuesses wrong guesses, a wrong one counted (tries
// left), a right one moves the registration on (verified), once.
func (s *Service) check(ctx context.Context, r registration, ip, detail string,
	judge func(*store.Tx, registration, time.Time) (guess, error)) (Step, error) {
	e := audit.Event{Brand: r.brand, IP: ip, Event: audit.RegistrationVerify, Detail: detail}
	var out Step
	var answer error
	err := s.onCurrent(ctx, r, func(tx *store.Tx, cur registration, now time.Time) error {
		g, err := judge(tx, cur, now)
		switch {
		case err != nil:
			return err
		case !g.allowed || !cur.live(now):
			e.Outcome, answer = "state", ErrState
			return s.record(ctx, tx, e)
		case g.dead:
			e.Outcome, answer = "code_exceeded", ErrCodeExceeded
			return s.record(ctx, tx, e)
		case !g.right:
			n, err := count(ctx, tx, g.counter, cur, identity.CodeGuesses)
			if err != nil {
				return err
			}
			e.Outcome, answer = g.wrongOut, wrongOrExceeded(n)
			return s.record(ctx, tx, e)
		}
		out, answer, err = s.verified(ctx, tx, cur, now, &e)
		return err
	})
	if err != nil {
		return Step{}, err
	}
	return out, answer
}

// wrongOrExceeded is the answer to the n-th wrong guess (0: the code moved
// meanwhile).
func wrongOrExceeded(n int) error {
	switch {
	case n == 0:
		return ErrState
	case n >= identity.CodeGuesses:
		return ErrCodeExceeded
	}
	return &identity.WrongCode{TriesLeft: identity.CodeGuesses - n}
}

// verified moves a registration whose code or PIN was right to the next
// step of spec §4.2: the password (200) when the email on file can be the
// username; ask-password for a UBI driver whose email is a policyholder
// account's; ask-username when the email is another account's; ask-email
// when none is on file. After an email code, the submitted email is the
// username. Returns ErrState (as answer) when another call spent the code.
func (s *Service) verified(ctx context.Context, tx *store.Tx, cur registration, now time.Time, e *audit.Event) (Step, error, error) {
	next := cur
	next.codeHMAC, next.codeExpiresAt, next.codeAttempts = "", 0, 0
	email := cur.pendingEmail
	submitted := cur.state == stateEmailCodeSent || cur.state == stateEmailLinkSent
	if !submitted {
		p, err := policy.PersonByID(ctx, tx, cur.brand, cur.personID)
		if err != nil {
			return Step{}, nil, err
		}
		email = p.Email
	}
	method := ""
	switch {
	case email == "":
		method = MethodAskEmail
	default:
		a, err := account.ByEmail(ctx, tx, cur.brand, email)
		switch {
		case errors.Is(err, account.ErrNotFound):
		case err != nil:
			return Step{}, nil, err
		case submitted:
			// Taken since it was submitted.
			method = MethodAskUsername
		default:
			p, err := policy.PersonByID(ctx, tx, cur.brand, cur.personID)
			if err != nil {
				return Step{}, nil, err
			}
			method = MethodAskUsername
			if ok, err := holderAccount(ctx, tx, p); err != nil {
				return Step{}, nil, err
			} else if ok {
				method = MethodAskPassword
				next.email = a.Email
			}
		}
	}
	out := Step{ID: cur.id}
	switch method {
	case "":
		next.state, next.email, next.options = stateVerified, email, []Option{}
		out.Verified, out.Email = true, email
	default:
		oid, err := codes.RandomID(s.Rand)
		if err != nil {
			return Step{}, nil, err
		}
		masked := ""
		if method != MethodAskEmail {
			masked = maskEmail(email)
		}
		next.options = []Option{{ID: oid, Method: method, MaskedValue: masked}}
		next.state = stateAskEmail
		if method == MethodAskPassword {
			next.state = stateAskPassword
		}
		out.Next = next.options
	}
	moved, err := move(ctx, tx, next, cur)
	if err != nil {
		return Step{}, nil, err
	}
	if !moved {
		e.Outcome = "code_used"
		return Step{}, ErrState, s.record(ctx, tx, *e)
	}
	e.Outcome = "ok"
	if method != "" {
		e.Detail += " " + method
	}
	return out, nil, s.record(ctx, tx, *e)
}

// submitEmail takes the email of account-creation/email or new-email: a
// code goes to it (ask-email-code), or a link when the brand proves an
// email by link (ask-email-link, 202), unless it is another account's (404,
// ErrEmailTaken) or, for a UBI driver, a policyholder account's
// (ask-password).
func (s *Service) submitEmail(ctx context.Context, r registration, email string, v Validation) (Step, error) {
	ip := v.IP
	e := audit.Event{Brand: r.brand, IP: ip, Event: audit.RegistrationEmail}
	var out Step
	var answer error
	err := s.onCurrent(ctx, r, func(tx *store.Tx, cur registration, now time.Time) error {
		if cur.state != stateAskEmail || !cur.live(now) {
			e.Outcome, answer = "state", ErrState
			return s.record(ctx, tx, e)
		}
		p, err := policy.PersonByID(ctx, tx, cur.brand, cur.personID)
		if err != nil {
			return err
		}
		oid, err := codes.RandomID(s.Rand)
		if err != nil {
			return err
		}
		next := cur
		a, err := account.ByEmail(ctx, tx, cur.brand, email)
		switch {
		case errors.Is(err, account.ErrNotFound):
		case err != nil:
			return err
		default:
			ok, err := holds(ctx, tx, a.ID)
			if err != nil {
				return err
			}
			if !(ok && p.UBI && p.Role == policy.Driver) {
				e.Outcome, answer = "email_taken", ErrEmailTaken
				return s.record(ctx, tx, e)
			}
			next.state, next.email = stateAskPassword, a.Email
			next.options = []Option{{ID: oid, Method: MethodAskPassword, MaskedValue: maskEmail(a.Email)}}
			if answer, err = s.move(ctx, tx, next, cur, &e); answer != nil || err != nil {
				return err
			}
			out = Step{ID: cur.id, Next: next.options}
			e.Outcome = "ask_password"
			return s.record(ctx, tx, e)
		}
		o := Option{ID: oid, Method: MethodAskEmailCode, MaskedValue: maskEmail(email)}
		next.state = stateEmailCodeSent
		if v.EmailLink {
			o.Method, next.state = MethodAskEmailLink, stateEmailLinkSent
		}
		next.pendingEmail, next.options, next.sends = email, []Option{o}, 0
		var code string
		if code, answer, err = s.issue(ctx, tx, &next, o.ID, now, &e); answer != nil || err != nil {
			return err
		}
		if answer, err = s.move(ctx, tx, next, cur, &e); answer != nil || err != nil {
			return err
		}
		m := s.codeMessage(next, p, o, code, now)
		if v.EmailLink {
			if m, err = s.linkMessage(next, p, o, code, v.BaseURL, now); err != nil {
				return err
			}
		}
		if err := notify.Queue(ctx, tx, m, s.Poke); err != nil {
			return err
		}
		out = Step{ID: cur.id, Next: next.options, LinkSent: v.EmailLink}
		e.Outcome = "code_sent"
		if v.EmailLink {
			e.Outcome = "link_sent"
		}
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return Step{}, err
	}
	return out, answer
}

// emailLanguage is identity's.
var emailLanguage = identity.Language

// Link is the password-validation call: a UBI driver proves it holds the
// policyholder account of its email with the account's password, and the
// driver's policy is linked to that account.
func (s *Service) Link(ctx context.Context, brand, id, password, ip string) (string, error) {
	return s.link(ctx, account.Credentials{Brand: brand, Password: password, IP: ip}, id, nil)
}

// link is Link with the sign-in's credentials (c.Email is set here) and a
// step run in the linking transaction (the email token's, token.go).
func (s *Service) link(ctx context.Context, c account.Credentials, id string, inTx txStep) (string, error) {
	brand, ip := c.Brand, c.IP
	r, err := load(ctx, s.DB, brand, id)
	if err != nil {
		return "", err
	}
	if r.state != stateAskPassword || !r.live(s.Now()) {
		return "", ErrState
	}
	var email string
	var answer error
	c.Email = r.email
	err = s.Accounts.SignInWithPassword(ctx, c,
		func(tx *store.Tx, a account.Account) error {
			now := s.Now()
			e := audit.Event{Brand: brand, AccountID: a.ID, IP: ip, Event: audit.RegistrationLink}
			askPassword := func(cur registration) bool { return cur.state == stateAskPassword }
			cur, refused, err := s.claim(ctx, tx, brand, id, now, askPassword, &e)
			if refused != nil || err != nil {
				answer = refused
				return err
			}
			p, err := policy.PersonByID(ctx, tx, brand, cur.personID)
			if err != nil {
				return err
			}
			if inTx != nil {
				if answer, err = inTx(ctx, tx, p, now); err != nil || answer != nil {
					return s.refused(ctx, tx, &e, answer, err)
				}
			}
			if err := policy.Link(ctx, tx, a.ID, p.PolicyID, policy.Driver); err != nil {
				return err
			}
			if err := policy.SetAccount(ctx, tx, p.ID, a.ID, now); err != nil {
				return err
			}
			email = a.Email
			e.Outcome = "ok"
			return s.record(ctx, tx, e)
		})
	if err != nil {
		return "", err
	}
	return email, answer
}

// onCurrent runs fn in a transaction on registration r as stored (cur, read in
// the transaction) at the clock's now: the steps that move a registration
// on (send, check, submitEmail) judge the row they will update.
func (s *Service) onCurrent(ctx context.Context, r registration, fn func(tx *store.Tx, cur registration, now time.Time) error) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		cur, err := load(ctx, tx, r.brand, r.id)
		if err != nil {
			return err
		}
		return fn(tx, cur, now)
	})
}

// claim loads registration id in tx and closes it, as the call that ends
// it (of concurrent ones, one wins): answer is ErrState, audited in e, when
// another call moved it first or ready refuses the state it was in.
func (s *Service) claim(ctx context.Context, tx *store.Tx, brand, id string, now time.Time, ready func(registration) bool,
	e *audit.Event) (cur registration, answer, err error) {
	if cur, err = load(ctx, tx, brand, id); err != nil {
		return cur, nil, err
	}
	moved, err := closeRegistration(ctx, tx, cur, now)
	if err != nil {
		return cur, nil, err
	}
	if !moved || !ready(cur) {
		e.Outcome = "state"
		return cur, ErrState, s.record(ctx, tx, *e)
	}
	return cur, nil, nil
}

// Creation is the account-creation/password call.
type Creation struct {
	Brand, ID              string
	Password, Confirmation string
	TermsAccepted          bool
	IP                     string
	// inTx runs in the creating transaction once the registration moved
	// (the email token's step, token.go).
	inTx txStep
}

// txStep is a step of another flow (the email token's) run in a create or
// link transaction: answer refuses (the transaction commits what it
// recorded, nothing else), err fails.
type txStep func(ctx context.Context, tx *store.Tx, p policy.Person, now time.Time) (answer, err error)

// Create creates the account of a verified registration: the account, its
// link to the policy (holder or driver), the registration closed and the
// welcome email, in one transaction; of concurrent creates one wins, the
// others get ErrState. A refused password counts (CreateTries, then
// ErrCreateTries).
func (s *Service) Create(ctx context.Context, c Creation) (string, error) {
	e := audit.Event{Brand: c.Brand, IP: c.IP, Event: audit.RegistrationCreate}
	ctx, release, err := s.Accounts.Hasher.AdmitClient(ctx, throttle.ClientKey(c.IP))
	if err != nil {
		return "", err
	}
	defer release()
	if err := s.allow(ctx, s.Limits.Calls, throttle.ClientKey(c.IP), e); err != nil {
		return "", err
	}
	r, err := load(ctx, s.DB, c.Brand, c.ID)
	if err != nil {
		return "", err
	}
	if r.state != stateVerified || !r.live(s.Now()) {
		return "", ErrState
	}
	if r.createFailures >= CreateTries {
		return "", ErrCreateTries
	}
	password, key := checkPassword(c, r.email)
	if key != "" {
		e.Outcome, e.Detail = "password_refused", key
		return "", s.refuseCreate(ctx, r, e, &PasswordError{Key: key})
	}
	hash, err := s.Accounts.Hasher.Hash(ctx, password)
	if err != nil {
		return "", err
	}
	var answer error
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		verified := func(cur registration) bool { return cur.state == stateVerified && cur.live(now) }
		cur, refused, err := s.claim(ctx, tx, c.Brand, c.ID, now, verified, &e)
		if refused != nil || err != nil {
			answer = refused
			return err
		}
		p, err := policy.PersonByID(ctx, tx, c.Brand, cur.personID)
		if errors.Is(err, store.ErrNotFound) {
			// Closed: identification starts again on the new records.
			e.Outcome, answer = "person_gone", ErrRecordChanged
			return s.record(ctx, tx, e)
		}
		if err != nil {
			return err
		}
		if pol, err := policy.PolicyByID(ctx, tx, p.PolicyID); err != nil {
			return err
		} else if pol.Status != policy.Active {
			e.Outcome, answer = "policy_inactive", ErrRecordChanged
			return s.record(ctx, tx, e)
		}
		if c.inTx != nil {
			if answer, err = c.inTx(ctx, tx, p, now); err != nil || answer != nil {
				return s.refused(ctx, tx, &e, answer, err)
			}
		}
		a, err := identity.CreateAccount(ctx, tx, p, identity.Creation{Email: cur.email, Language: cur.language,
			Province: cur.province, PasswordHash: hash, Wake: s.Poke}, now)
		if errors.Is(err, account.ErrEmailTaken) {
			e.Outcome, answer = "email_taken", ErrState
			return s.record(ctx, tx, e)
		}
		if err != nil {
			return err
		}
		e.AccountID, e.Outcome = a.ID, "ok"
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return "", err
	}
	if answer != nil {
		return "", answer
	}
	return r.email, nil
}

// checkPassword applies spec §5's password rules (and the confirmation and
// terms) to a creation; key is the refused rule's key, "" when all pass.
func checkPassword(c Creation, email string) (string, string) {
	password, err := rules.Password(c.Password, email)
	if err == nil {
		_, err = rules.PasswordConfirmation(c.Confirmation, password)
	}
	if err == nil {
		err = rules.Terms(c.TermsAccepted)
	}
	var re rules.Error
	if errors.As(err, &re) {
		return "", re.Key
	}
	if err != nil {
		return "", fmt.Sprint(err)
	}
	return password, ""
}
