package smartreg

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/brand"
	"guichet/internal/codes"
	"guichet/internal/identity"
	"guichet/internal/notify"
	"guichet/internal/policy"
	"guichet/internal/rules"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Calls of the flow (spec §7 api/v2), the names allowed knows.
const (
	CallFields         = "fields"
	CallIdentify       = "identify"
	CallOptions        = "options"
	CallSend           = "send"
	CallResend         = "resend"
	CallVerify         = "verify"
	CallConfirmEmail   = "confirm-email"
	CallChooseUsername = "choose-username"
	CallCreate         = "create"
	CallAccountInfo    = "account-info"
	CallBack           = "back"
)

// Calls lists every call with a session (tests walk it).
var Calls = []string{CallFields, CallIdentify, CallOptions, CallSend, CallResend, CallVerify, CallConfirmEmail,
	CallChooseUsername, CallCreate, CallAccountInfo, CallBack}

// allowed is the state machine: whether the call may run in the session's
// step (and, within VERIFY, its sub-state).
func allowed(s session, call string) bool {
	switch call {
	case CallFields, CallIdentify:
		return s.step == StepIdentify
	case CallOptions, CallSend:
		return s.step == StepVerify && !s.identified()
	case CallResend:
		return s.step == StepVerify && s.codeHMAC != ""
	case CallVerify:
		return s.step == StepVerify && s.chosen != ""
	case CallConfirmEmail:
		return s.step == StepConfirmUsername
	case CallChooseUsername:
		return s.step == StepConfirmUsername || s.step == StepAskNewUsername
	case CallCreate:
		return s.step == StepCreate
	case CallAccountInfo:
		return s.step == StepDone
	case CallBack:
		return s.step != StepDone && len(s.history) > 0
	}
	return false
}

// Call is what every call after the first carries.
type Call struct {
	Brand *brand.Brand
	Token string
	IP    string
}

// Data is a step's data (the answer's data object).
type Data struct {
	Email        string `json:"email,omitempty"`
	OptionName   string `json:"optionName,omitempty"`
	MaskedValue  string `json:"maskedValue,omitempty"`
	ResendsLeft  *int   `json:"resendsLeft,omitempty"`
	PolicyNumber string `json:"policyNumber,omitempty"`
	PostalCode   string `json:"postalCode,omitempty"`
	Username     string `json:"username,omitempty"`
}

// Result is an answer: the session's step and page after the call, the
// renewed token ("" once the session closed) and the call's data.
type Result struct {
	Token   string
	Step    string
	Page    string
	Data    *Data
	Options []Option
	Fields  []Field
}

// Start opens a session (GET registration).
type Start struct {
	Brand                           *brand.Brand
	AccountType, Province, Language string
	IP                              string
}

// ErrAccountType: the account type is not one of brand.AccountTypes.
var ErrAccountType = rules.Error{Field: "accountType", Key: "errorAccountType"}

// Start opens a session: IDENTIFY for a policyholder, and for an insured
// driver when the brand file lists driver fields; otherwise REDIRECT (the
// legacy identification serves drivers).
func (s *Service) Start(ctx context.Context, in Start) (Result, error) {
	if in.AccountType == "" {
		in.AccountType = brand.AccountPolicyHolder
	}
	if !slices.Contains(brand.AccountTypes, in.AccountType) {
		return Result{}, ErrAccountType
	}
	e := audit.Event{Brand: in.Brand.ID, IP: in.IP, Event: audit.SmartregStart, Detail: in.AccountType}
	if err := s.allow(ctx, s.Limits.Calls, throttle.ClientKey(in.IP), e); err != nil {
		return Result{}, err
	}
	id, err := codes.RandomID(s.Rand)
	if err != nil {
		return Result{}, err
	}
	now := s.Now()
	r := session{id: id, brand: in.Brand.ID, accountType: in.AccountType, step: StepIdentify, page: PageIdentify,
		history: []Entry{{StepAccountType, PageAccountType}}, language: identity.Language(in.Language, ""),
		province: in.Province, expiresAt: now.Add(s.TTL).UnixMilli()}
	if _, listed := in.Brand.SmartIdentification(in.AccountType, in.Province); in.AccountType == brand.AccountInsuredDriver && !listed {
		r.step, r.page = StepRedirect, PageRedirect
	}
	if err := insert(ctx, s.DB, r, now); err != nil {
		return Result{}, err
	}
	token, err := s.sign(r, now)
	if err != nil {
		return Result{}, err
	}
	return Result{Token: token, Step: r.step, Page: r.page}, nil
}

func (s *Service) sign(r session, now time.Time) (string, error) {
	return s.Keys.Sign(Claims{SID: r.id, Brand: r.brand, Step: r.step, Page: r.page, IAT: now.Unix(),
		EXP: now.Add(s.TTL).Unix()})
}

// op is one call's work on a live session in the step it is allowed in:
// it changes next (saved with the renewed expiry) and returns the domain
// answer, or an error that rolls everything back.
type op func(tx *store.Tx, cur session, next *session, now time.Time, res *Result) (answer, err error)

// errConflict: another call moved the session between its load and this
// call's claim, or the work must be redone on fresh data; act retries.
var errConflict = errors.New("smartreg: session moved meanwhile")

// act runs a call: the token checked (signature, brand, expiry), the row
// loaded (gone, closed or expired: ErrNoSession), claimed (its version
// bumped, so a concurrent call waits and then retries on the new state),
// the call refused unless allowed, the work done, the step's data
// described, the expiry slid and a new token signed, in one transaction.
func (s *Service) act(ctx context.Context, c Call, call string, fn op) (Result, error) {
	claims, err := s.Keys.Verify(c.Token, c.Brand.ID, s.Now())
	if err != nil {
		return Result{}, err
	}
	for attempt := 0; ; attempt++ {
		var res Result
		var answer error
		err := s.DB.InTx(ctx, func(tx *store.Tx) error {
			res, answer = Result{}, nil
			now := s.Now()
			cur, err := load(ctx, tx, c.Brand.ID, claims.SID)
			if errors.Is(err, errGone) || err == nil && !cur.live(now) {
				answer = ErrNoSession
				return nil
			}
			if err != nil {
				return err
			}
			claimed, err := tx.Exec(ctx, "UPDATE smart_registrations SET version = version + 1 WHERE id = ? AND version = ?",
				cur.id, cur.version)
			if err != nil {
				return err
			}
			if n, err := claimed.RowsAffected(); err != nil || n != 1 {
				return errors.Join(errConflict, err)
			}
			cur.version++
			next := cur
			if !allowed(cur, call) {
				answer = ErrStepNotAllowed
			} else if answer, err = fn(tx, cur, &next, now, &res); err != nil {
				return err
			}
			if next.closedAt == 0 {
				next.expiresAt = now.Add(s.TTL).UnixMilli()
			}
			if moved, err := save(ctx, tx, next, cur); err != nil || !moved {
				return errors.Join(errConflict, err)
			}
			if next.closedAt != 0 {
				return nil
			}
			if answer == nil {
				if err := s.describe(ctx, tx, next, &res); err != nil {
					return err
				}
			}
			res.Step, res.Page = next.step, next.page
			res.Token, err = s.sign(next, now)
			return err
		})
		if errors.Is(err, errConflict) && attempt < 8 {
			continue
		}
		if err != nil {
			return Result{}, err
		}
		return res, answer
	}
}

// describe fills the data of the session's step.
func (s *Service) describe(ctx context.Context, tx *store.Tx, r session, res *Result) error {
	d := &Data{}
	switch r.step {
	case StepRedirect:
		d.PolicyNumber, d.PostalCode = r.redirectNumber, r.redirectPostal
	case StepConfirmUsername:
		p, err := policy.PersonByID(ctx, tx, r.brand, r.personID)
		if err != nil {
			return err
		}
		d.Email = p.Email
	case StepVerify:
		if r.page != PageCode {
			return nil
		}
		left := 0
		if r.chosen == chosenEmail {
			d.Email, d.OptionName, d.MaskedValue = r.pendingEmail, identity.MethodEmail, identity.MaskEmail(r.pendingEmail)
		} else if o, ok := r.option(r.chosen); ok {
			d.OptionName, d.MaskedValue = o.OptionName, o.Data
		}
		if d.OptionName != identity.MethodPIN {
			left = MaxResends - max(r.sends-1, 0)
		}
		d.ResendsLeft = &left
	case StepCreate:
		d.Email = r.email
	case StepDone:
		d.Username = strings.ToLower(r.email)
	default:
		return nil
	}
	res.Data = d
	return nil
}

// Fields is the step endpoint: the identification fields.
func (s *Service) Fields(ctx context.Context, c Call) (Result, error) {
	return s.act(ctx, c, CallFields, func(_ *store.Tx, cur session, _ *session, _ time.Time, res *Result) (error, error) {
		res.Fields = fields(c.Brand, cur.accountType, cur.province)
		return nil, nil
	})
}

// Identify checks the typed identification (see identification and
// given.find): VERIFY with the person's options; REDIRECT to legacy
// registration for what smart registration cannot finish (a driver found
// as policyholder, a UBI driver whose email is a policyholder's account);
// ErrAccountExists (the owner is told); ErrNotFound, and at the
// IdentifyTries-th failure ErrUnableToIdentify (closed).
func (s *Service) Identify(ctx context.Context, c Call, typed map[string]string) (Result, error) {
	e := audit.Event{Brand: c.Brand.ID, IP: c.IP, Event: audit.SmartregIdentify}
	if err := s.allow(ctx, s.Limits.FindPerIP, throttle.ClientKey(c.IP), e); err != nil {
		return Result{}, err
	}
	return s.act(ctx, c, CallIdentify, func(tx *store.Tx, cur session, next *session, now time.Time, _ *Result) (error, error) {
		g, err := identification(c.Brand, cur.accountType, cur.province, typed, now)
		if err != nil {
			return err, nil
		}
		wait, err := s.Limiter.CheckTx(ctx, tx, s.Limits.FindPerPolicy, c.Brand.ID+" "+policy.NormalizeNumber(g.number))
		if err != nil {
			return nil, err
		}
		if wait > 0 {
			e.Outcome, e.Detail = "rate_limited", s.Limits.FindPerPolicy.Scope
			return &throttle.Limited{Err: ErrRateLimited, RetryAfter: wait}, s.record(ctx, tx, e)
		}
		p, ok, policyFound, err := g.find(ctx, tx, c.Brand.ID)
		if err != nil {
			return nil, err
		}
		if !ok {
			next.identifyFailures++
			e.Outcome, e.Detail = "not_found", "no_policy"
			if policyFound {
				e.Detail = "no_person"
			}
			answer := ErrNotFound
			if next.identifyFailures >= IdentifyTries {
				next.closedAt, answer = now.UnixMilli(), ErrUnableToIdentify
				e.Outcome = "unable_to_identify"
			}
			return answer, s.record(ctx, tx, e)
		}
		if p.AccountID != "" {
			a, err := account.ByID(ctx, tx, c.Brand.ID, p.AccountID)
			if err != nil {
				return nil, err
			}
			if err := notify.Queue(ctx, tx, identity.Notice(a, cur.language, cur.province), s.Poke); err != nil {
				return nil, err
			}
			e.AccountID, e.Outcome = a.ID, "registered"
			return ErrAccountExists, s.record(ctx, tx, e)
		}
		linkOnly, err := identity.HolderAccount(ctx, tx, p)
		if err != nil {
			return nil, err
		}
		wantRole := policy.Holder
		if cur.accountType == brand.AccountInsuredDriver {
			wantRole = policy.Driver
		}
		next.history = append(slices.Clone(cur.history), Entry{cur.step, cur.page})
		if linkOnly || p.Role != wantRole {
			next.step, next.page = StepRedirect, PageRedirect
			next.redirectNumber, next.redirectPostal = g.number, g.values["postalCode"]
			e.Outcome, e.Detail = "redirect", string(p.Role)
			return nil, s.record(ctx, tx, e)
		}
		next.step, next.page, next.personID = StepVerify, PageOptions, p.ID
		next.options = []Option{}
		for _, o := range identity.Offers(p, now) {
			oid, err := codes.RandomID(s.Rand)
			if err != nil {
				return nil, err
			}
			next.options = append(next.options, Option{ID: oid, OptionName: o.Method, Data: o.Masked})
		}
		e.Outcome, e.Detail = "identified", string(p.Role)
		return nil, s.record(ctx, tx, e)
	})
}

// Options lists the identified person's verification options.
func (s *Service) Options(ctx context.Context, c Call) (Result, error) {
	return s.act(ctx, c, CallOptions, func(_ *store.Tx, cur session, _ *session, _ time.Time, res *Result) (error, error) {
		res.Options = append([]Option{}, cur.options...)
		return nil, nil
	})
}

// ErrUnknownOption: the option id is not one of the session's.
var ErrUnknownOption = rules.Error{Field: "optionId", Key: "errorUnknownOption"}

// Send chooses an option: a code goes by email or SMS, or the PIN is
// chosen; the page becomes the code page.
func (s *Service) Send(ctx context.Context, c Call, optionID string) (Result, error) {
	return s.act(ctx, c, CallSend, func(tx *store.Tx, cur session, next *session, now time.Time, _ *Result) (error, error) {
		o, ok := cur.option(optionID)
		if !ok {
			return ErrUnknownOption, nil
		}
		if cur.page == PageOptions {
			next.history = append(slices.Clone(cur.history), Entry{cur.step, cur.page})
		}
		next.page = PageCode
		if o.OptionName == identity.MethodPIN {
			next.chosen, next.codeHMAC, next.codeExpiresAt, next.codeAttempts, next.sends = o.ID, "", 0, 0, 0
			return nil, s.record(ctx, tx, audit.Event{Brand: cur.brand, IP: c.IP, Event: audit.SmartregSend, Detail: o.OptionName, Outcome: "pin"})
		}
		if cur.chosen != o.ID {
			next.sends = 0
		}
		next.chosen = o.ID
		return s.sendCode(ctx, tx, cur, next, now, c.IP, o.OptionName)
	})
}

// Resend sends a new code to where the last one went (the previous one
// dies); MaxResends resends at most.
func (s *Service) Resend(ctx context.Context, c Call) (Result, error) {
	return s.act(ctx, c, CallResend, func(tx *store.Tx, cur session, next *session, now time.Time, _ *Result) (error, error) {
		method := identity.MethodEmail
		if o, ok := cur.option(cur.chosen); ok {
			method = o.OptionName
		}
		return s.sendCode(ctx, tx, cur, next, now, c.IP, method)
	})
}

// sendCode issues a new code for next.chosen (one more send, within
// MaxResends resends and the per-person cap) and queues its message: to
// the pending username email, the email on file or the cell phone.
func (s *Service) sendCode(ctx context.Context, tx *store.Tx, cur session, next *session, now time.Time, ip, method string) (error, error) {
	e := audit.Event{Brand: cur.brand, IP: ip, Event: audit.SmartregSend, Detail: method}
	if next.sends > MaxResends {
		e.Outcome = "resend_limit"
		*next = cur
		return ErrResends, s.record(ctx, tx, e)
	}
	wait, err := s.Limiter.CheckTx(ctx, tx, s.Limits.SendsPerPerson, cur.personID)
	if err != nil {
		return nil, err
	}
	if wait > 0 {
		e.Outcome, e.Detail = "rate_limited", s.Limits.SendsPerPerson.Scope
		*next = cur
		return &throttle.Limited{Err: ErrRateLimited, RetryAfter: wait}, s.record(ctx, tx, e)
	}
	code, err := codes.New(s.Rand)
	if err != nil {
		return nil, err
	}
	next.sends++
	next.codeHMAC = codes.HMAC(s.codeKey, next.id, next.chosen, strconv.Itoa(next.sends), code)
	next.codeExpiresAt, next.codeAttempts = now.Add(CodeTTL).UnixMilli(), 0
	p, err := policy.PersonByID(ctx, tx, cur.brand, cur.personID)
	if err != nil {
		return nil, err
	}
	m := identity.Code{Brand: cur.brand, Language: cur.language, Province: cur.province, To: p.Email,
		FirstName: p.FirstName, Code: code, TTL: CodeTTL}
	switch {
	case next.chosen == chosenEmail:
		m.To = next.pendingEmail
	case method == identity.MethodSMS:
		m.SMS, m.To = true, p.CellPhone
	}
	if err := notify.Queue(ctx, tx, identity.CodeMessage(m, now), s.Poke); err != nil {
		return nil, err
	}
	e.Outcome = "code_sent"
	return nil, s.record(ctx, tx, e)
}

// Verify checks the code or PIN typed. A right identity code leads to the
// username step (CONFIRM_USERNAME when the email on file is no account's,
// else ASK_NEW_USERNAME; back no longer goes before it); a right code sent
// to a chosen email leads to CREATE.
func (s *Service) Verify(ctx context.Context, c Call, typed string) (Result, error) {
	return s.act(ctx, c, CallVerify, func(tx *store.Tx, cur session, next *session, now time.Time, _ *Result) (error, error) {
		e := audit.Event{Brand: cur.brand, IP: c.IP, Event: audit.SmartregVerify}
		o, _ := cur.option(cur.chosen)
		isPIN := o.OptionName == identity.MethodPIN
		var right, dead bool
		if isPIN {
			pin, err := rules.PIN(typed)
			if err != nil {
				return err, nil
			}
			p, err := policy.PersonByID(ctx, tx, cur.brand, cur.personID)
			if err != nil {
				return nil, err
			}
			dead = !p.HasPIN(now)
			right = codes.Equal(p.PINHash, policy.PINHash(s.pinKey, pin))
			e.Detail = identity.MethodPIN
		} else {
			code, err := rules.SecurityCode(typed)
			if err != nil {
				return err, nil
			}
			dead = now.UnixMilli() >= cur.codeExpiresAt
			right = codes.Equal(cur.codeHMAC, codes.HMAC(s.codeKey, cur.id, cur.chosen, strconv.Itoa(cur.sends), code))
			e.Detail = o.OptionName
			if cur.chosen == chosenEmail {
				e.Detail = "username"
			}
		}
		dead = dead || cur.codeAttempts >= CodeGuesses
		switch {
		case dead:
			next.closedAt = now.UnixMilli()
			e.Outcome = "code_exceeded"
			return ErrCodeExceeded, s.record(ctx, tx, e)
		case !right:
			next.codeAttempts++
			e.Outcome = "wrong_code"
			if next.codeAttempts >= CodeGuesses {
				next.closedAt = now.UnixMilli()
				return ErrCodeExceeded, s.record(ctx, tx, e)
			}
			return &identity.WrongCode{TriesLeft: CodeGuesses - next.codeAttempts}, s.record(ctx, tx, e)
		}
		e.Outcome = "ok"
		clearCode(next)
		if cur.chosen == chosenEmail {
			if _, err := account.ByEmail(ctx, tx, cur.brand, cur.pendingEmail); err == nil {
				next.step, next.page, next.pendingEmail, next.history = StepAskNewUsername, PageUsername, "", nil
				e.Outcome = "email_taken"
				return ErrEmailTaken, s.record(ctx, tx, e)
			} else if !errors.Is(err, account.ErrNotFound) {
				return nil, err
			}
			next.step, next.page, next.email, next.pendingEmail = StepCreate, PageCreate, cur.pendingEmail, ""
			return nil, s.record(ctx, tx, e)
		}
		p, err := policy.PersonByID(ctx, tx, cur.brand, cur.personID)
		if err != nil {
			return nil, err
		}
		next.history = nil
		next.step, next.page = StepAskNewUsername, PageUsername
		if p.Email != "" {
			_, err := account.ByEmail(ctx, tx, cur.brand, p.Email)
			switch {
			case errors.Is(err, account.ErrNotFound):
				next.step = StepConfirmUsername
				next.emailVerified = o.OptionName == identity.MethodEmail
			case err != nil:
				return nil, err
			}
		}
		return nil, s.record(ctx, tx, e)
	})
}

func clearCode(s *session) {
	s.chosen, s.codeHMAC, s.codeExpiresAt, s.codeAttempts, s.sends = "", "", 0, 0, 0
}

// ConfirmEmail takes the email on file as username: CREATE when the
// identity code went to it, else a code is sent to it.
func (s *Service) ConfirmEmail(ctx context.Context, c Call) (Result, error) {
	return s.act(ctx, c, CallConfirmEmail, func(tx *store.Tx, cur session, next *session, now time.Time, _ *Result) (error, error) {
		p, err := policy.PersonByID(ctx, tx, cur.brand, cur.personID)
		if err != nil {
			return nil, err
		}
		answer, err := s.username(ctx, tx, cur, next, now, c.IP, p.Email)
		if answer != nil || err != nil {
			if errors.Is(answer, ErrEmailTaken) {
				// Taken since the code was verified: ask for another.
				next.step, next.page, next.emailVerified = StepAskNewUsername, PageUsername, false
			}
			return answer, err
		}
		if cur.emailVerified {
			next.history = append(slices.Clone(cur.history), Entry{cur.step, cur.page})
			next.step, next.page, next.email = StepCreate, PageCreate, p.Email
			return nil, nil
		}
		return s.usernameCode(ctx, tx, cur, next, now, c.IP, p.Email)
	})
}

// ChooseUsername takes another email as username: a code is sent to it.
// ErrEmailTaken changes nothing (the visitor types another).
func (s *Service) ChooseUsername(ctx context.Context, c Call, typed string) (Result, error) {
	return s.act(ctx, c, CallChooseUsername, func(tx *store.Tx, cur session, next *session, now time.Time, _ *Result) (error, error) {
		email, err := rules.Email(typed)
		if err != nil {
			return err, nil
		}
		answer, err := s.username(ctx, tx, cur, next, now, c.IP, email)
		if answer != nil || err != nil {
			return answer, err
		}
		return s.usernameCode(ctx, tx, cur, next, now, c.IP, email)
	})
}

// username refuses an email another account uses (audited).
func (s *Service) username(ctx context.Context, tx *store.Tx, cur session, _ *session, _ time.Time, ip, email string) (error, error) {
	_, err := account.ByEmail(ctx, tx, cur.brand, email)
	switch {
	case errors.Is(err, account.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return ErrEmailTaken, s.record(ctx, tx, audit.Event{Brand: cur.brand, IP: ip, Event: audit.SmartregUsername, Outcome: "email_taken"})
}

// usernameCode sends a code to the email chosen as username (VERIFY on
// the code page; back returns to the username step).
func (s *Service) usernameCode(ctx context.Context, tx *store.Tx, cur session, next *session, now time.Time, ip, email string) (error, error) {
	next.history = append(slices.Clone(cur.history), Entry{cur.step, cur.page})
	next.step, next.page, next.pendingEmail, next.chosen, next.sends = StepVerify, PageCode, email, chosenEmail, 0
	return s.sendCode(ctx, tx, cur, next, now, ip, identity.MethodEmail)
}

// Creation is the create call.
type Creation struct {
	Password, Confirmation string
	TermsAccepted          bool
}

// Create creates the account (see identity.CreateAccount) and ends the
// session in DONE, in one transaction; of concurrent creates one wins.
// Refusals: ErrPasswordPolicy (contains the email), a rules.Error (other
// password rules, confirmation, terms), ErrAccountExists (the person got
// an account meanwhile; closed), ErrEmailTaken (the email was taken
// meanwhile; back to ASK_NEW_USERNAME), ErrEmailUpdate (the person's
// policy record changed under the session).
func (s *Service) Create(ctx context.Context, c Call, in Creation) (Result, error) {
	claims, err := s.Keys.Verify(c.Token, c.Brand.ID, s.Now())
	if err != nil {
		return Result{}, err
	}
	cur, err := load(ctx, s.DB, c.Brand.ID, claims.SID)
	if err != nil && !errors.Is(err, errGone) {
		return Result{}, err
	}
	refuse := func(answer error) (Result, error) {
		return s.act(ctx, c, CallCreate, func(*store.Tx, session, *session, time.Time, *Result) (error, error) {
			return answer, nil
		})
	}
	if err != nil || !cur.live(s.Now()) || !allowed(cur, CallCreate) {
		return refuse(nil) // the act answers ErrNoSession or ErrStepNotAllowed
	}
	password, err := rules.Password(in.Password, cur.email)
	if err == nil {
		_, err = rules.PasswordConfirmation(in.Confirmation, password)
	}
	if err == nil {
		err = rules.Terms(in.TermsAccepted)
	}
	var re rules.Error
	if errors.As(err, &re) && re.Key == rules.KeyPasswordContainsEmail {
		return refuse(ErrPasswordPolicy)
	}
	if err != nil {
		return refuse(err)
	}
	ctx, release, err := s.Accounts.Hasher.AdmitClient(ctx, throttle.ClientKey(c.IP))
	if err != nil {
		return Result{}, err
	}
	defer release()
	if err := s.allow(ctx, s.Limits.Calls, throttle.ClientKey(c.IP), audit.Event{Brand: c.Brand.ID, IP: c.IP, Event: audit.SmartregCreate}); err != nil {
		return Result{}, err
	}
	hash, err := s.Accounts.Hasher.Hash(ctx, password)
	if err != nil {
		return Result{}, err
	}
	return s.act(ctx, c, CallCreate, func(tx *store.Tx, cur session, next *session, now time.Time, _ *Result) (error, error) {
		e := audit.Event{Brand: cur.brand, IP: c.IP, Event: audit.SmartregCreate}
		// Lock the person's row, then read it: of two sessions of one
		// person creating at once, the second sees the first's account.
		if err := policy.LockPersonRow(ctx, tx, cur.personID); err != nil {
			return nil, err
		}
		p, err := policy.PersonByID(ctx, tx, cur.brand, cur.personID)
		if errors.Is(err, store.ErrNotFound) {
			e.Outcome = "person_gone"
			return ErrEmailUpdate, s.record(ctx, tx, e)
		}
		if err != nil {
			return nil, err
		}
		if pol, err := policy.PolicyByID(ctx, tx, p.PolicyID); err != nil {
			return nil, err
		} else if pol.Status != policy.Active {
			e.Outcome = "policy_inactive"
			return ErrEmailUpdate, s.record(ctx, tx, e)
		}
		if p.AccountID != "" {
			next.closedAt = now.UnixMilli()
			e.Outcome = "registered"
			return ErrAccountExists, s.record(ctx, tx, e)
		}
		if _, err := account.ByEmail(ctx, tx, cur.brand, cur.email); err == nil {
			next.step, next.page, next.email, next.emailVerified, next.history = StepAskNewUsername, PageUsername, "", false, nil
			e.Outcome = "email_taken"
			return ErrEmailTaken, s.record(ctx, tx, e)
		} else if !errors.Is(err, account.ErrNotFound) {
			return nil, err
		}
		a, err := identity.CreateAccount(ctx, tx, p, identity.Creation{Email: cur.email, Language: cur.language,
			Province: cur.province, PasswordHash: hash, Wake: s.Poke}, now)
		if errors.Is(err, account.ErrEmailTaken) {
			// Taken by a concurrent transaction: redo on fresh data.
			return nil, errConflict
		}
		if err != nil {
			return nil, err
		}
		next.step, next.page, next.history, next.accountID = StepDone, PageDone, nil, a.ID
		e.AccountID, e.Outcome = a.ID, "ok"
		return nil, s.record(ctx, tx, e)
	})
}

// AccountInfo is the new account's username (DONE).
func (s *Service) AccountInfo(ctx context.Context, c Call) (Result, error) {
	return s.act(ctx, c, CallAccountInfo, func(*store.Tx, session, *session, time.Time, *Result) (error, error) {
		return nil, nil
	})
}

// Back returns to the previous step of the history, undoing what the
// step being left had started (the person, the code, the username).
func (s *Service) Back(ctx context.Context, c Call) (Result, error) {
	return s.act(ctx, c, CallBack, func(_ *store.Tx, cur session, next *session, _ time.Time, _ *Result) (error, error) {
		to := cur.history[len(cur.history)-1]
		next.history = slices.Clone(cur.history[:len(cur.history)-1])
		next.step, next.page = to.Step, to.Page
		clearCode(next)
		next.pendingEmail, next.email = "", ""
		switch to.Step {
		case StepAccountType, StepIdentify:
			next.personID, next.options, next.emailVerified = "", []Option{}, false
			next.redirectNumber, next.redirectPostal = "", ""
		}
		return nil, nil
	})
}
