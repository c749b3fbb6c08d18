package emailtoken

import (
	"context"
	"errors"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/policy"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Actions of spec §4.2 "Token routing by action".
const (
	ActionExpired     = "token-expired"
	ActionReset       = "reset-password-login"
	ActionAskPassword = "ask-password"
	ActionAskUsername = "ask-username"
	ActionRegister    = "default-password-register"
	// ActionInconsistent is no action of the table: the read answers 412
	// INCONSISTENT (ErrInconsistent). It names the demo person that meets it.
	ActionInconsistent = "412 INCONSISTENT"
)

// Read is one GET /api/v1/tokens/{token}.
type Read struct {
	Brand string
	Token string
	// Source is the link's src; HasSource false for a read without src
	// (the web SSO 0x00000000 case): the source is not checked.
	Source    string
	HasSource bool
	Language  string // the site's: the registration's emails
	Province  string
	IP        string
}

// Answer is spec §3's email token response.
type Answer struct {
	ID                   string       `json:"id"`
	TwoFactorValidations []Validation `json:"twoFactorValidations"`
	Email                string       `json:"email"`
	UBIMatchPH           bool         `json:"ubiMatchPH"`
	UBIDriver            bool         `json:"ubiDriver"`
	Action               string       `json:"action"`
	StartDate            time.Time    `json:"startDate"`
}

// Read reads a token and decides its action from the person's state, in
// this order: token-expired (expired or used), reset-password-login (the
// person already has an account), ask-password (a UBI driver whose email
// on file is a policyholder account's), reset-password-login (an account
// with the token's email holds the policy), ask-username (the token's email
// is another account's), default-password-register; ErrInconsistent when
// the person has an account and the token's email is another account's
// (a live token only). The registration the
// action needs is opened (or the last one reused) in the same transaction.
func (s *Service) Read(ctx context.Context, rd Read) (Answer, error) {
	e := audit.Event{Brand: rd.Brand, IP: rd.IP, Event: audit.TokenRead}
	if err := s.allow(ctx, e); err != nil {
		return Answer{}, err
	}
	var out Answer
	var answer error
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		// Reads of one token take turns (a row lock on PostgreSQL, the
		// write lock on SQLite), so concurrent reads share one registration:
		// none is left open that the token does not name.
		if WellFormed(rd.Token) {
			if _, err := tx.Exec(ctx, "UPDATE email_tokens SET attempts = attempts WHERE token_hash = ?", codes.TokenHash(rd.Token)); err != nil {
				return err
			}
		}
		t, err := Lookup(ctx, tx, rd.Brand, rd.Token)
		switch {
		case errors.Is(err, ErrNotFound):
			e.Outcome, answer = "not_found", ErrNotFound
			return s.record(ctx, tx, e, now)
		case err != nil:
			return err
		case rd.HasSource && rd.Source != t.Source:
			e.Outcome, e.Detail, answer = "not_found", "source", ErrNotFound
			return s.record(ctx, tx, e, now)
		case now.Before(t.StartAt):
			e.Outcome, e.Detail, answer = "not_found", "not_started", ErrNotFound
			return s.record(ctx, tx, e, now)
		}
		p, err := policy.PersonByID(ctx, tx, t.Brand, t.PersonID)
		if err != nil {
			return err
		}
		out, err = s.decide(ctx, tx, t, p, rd, now)
		if errors.Is(err, ErrInconsistent) {
			out, answer = Answer{}, err
			e.Outcome, e.Detail = "inconsistent", t.Source
			return s.record(ctx, tx, e, now)
		}
		if err != nil {
			return err
		}
		e.AccountID, e.Outcome, e.Detail = accountOf(out), out.Action, t.Source
		return s.record(ctx, tx, e, now)
	})
	if err != nil {
		return Answer{}, err
	}
	return out, answer
}

func accountOf(a Answer) string {
	if a.Action == ActionExpired || a.Action == ActionReset {
		return a.ID
	}
	return ""
}

// decide is the action table.
func (s *Service) decide(ctx context.Context, tx *store.Tx, t Token, p policy.Person, rd Read, now time.Time) (Answer, error) {
	out := Answer{TwoFactorValidations: []Validation{}, Action: ActionExpired, StartDate: t.StartAt,
		UBIDriver: ubiDriver(p)}
	own, byEmail, err := Accounts(ctx, tx, t, p)
	if err != nil {
		return Answer{}, err
	}
	if !t.Live(now) {
		out.ID = own
		if out.ID == "" {
			out.ID = byEmail.ID
		}
		return out, nil
	}
	if own != "" && byEmail.ID != "" && byEmail.ID != own {
		// The person is registered under one account and the invitation
		// went to another account's email: whoever reads that mailbox
		// must not reset the person's password. Only an agent can tell
		// which record is wrong.
		return Answer{}, ErrInconsistent
	}
	if own != "" {
		// /reset asks what the account asks: a UBI driver's cell phone.
		a, err := account.ByID(ctx, tx, t.Brand, own)
		if err != nil {
			return Answer{}, err
		}
		out.Action, out.ID, out.UBIDriver = ActionReset, own, a.UBIDriver
		return out, nil
	}
	opening := Opening{Brand: t.Brand, PersonID: p.ID, Language: rd.Language, Province: rd.Province,
		Previous: t.RegistrationID}
	holder, err := holderAccount(ctx, tx, p)
	if err != nil {
		return Answer{}, err
	}
	switch {
	case holder.ID != "":
		opening.Action, opening.Email = ActionAskPassword, holder.Email
		out.UBIMatchPH, out.Email = true, holder.Email
	case byEmail.ID != "":
		opening.Action, opening.Email = ActionAskUsername, t.Email
	default:
		opening.Action, opening.Email = ActionRegister, t.Email
		out.Email = t.Email
	}
	if s.Registrations == nil {
		return Answer{}, errors.New("emailtoken: no registrations to open")
	}
	opened, err := s.Registrations.OpenForToken(ctx, tx, opening)
	if err != nil {
		return Answer{}, err
	}
	if opened.ID != t.RegistrationID {
		if _, err := tx.Exec(ctx, "UPDATE email_tokens SET registration_id = ? WHERE id = ?", opened.ID, t.ID); err != nil {
			return Answer{}, err
		}
	}
	out.Action, out.ID, out.TwoFactorValidations = opening.Action, opened.ID, opened.TwoFactorValidations
	return out, nil
}

// ubiDriver: the person is a UBI driver with a cell phone on file (the
// token's account creation asks the phone instead of the postal code).
func ubiDriver(p policy.Person) bool {
	return p.UBI && p.Role == policy.Driver && p.CellPhone != ""
}

// UBIDriver is ubiDriver for internal/registration's token create.
func UBIDriver(p policy.Person) bool { return ubiDriver(p) }

// Accounts returns the account the token's person already has (own: the
// person's, or the account with the token's email when it holds the
// person's policy, unless the person is a UBI driver whose email is a
// policyholder account's: that one links) and the account with the token's
// email (byEmail, zero when none).
func Accounts(ctx context.Context, q policy.Reader, t Token, p policy.Person) (own string, byEmail account.Account, err error) {
	byEmail, err = account.ByEmail(ctx, q, t.Brand, t.Email)
	switch {
	case errors.Is(err, account.ErrNotFound):
		byEmail, err = account.Account{}, nil
	case err != nil:
		return "", account.Account{}, err
	}
	if p.AccountID != "" {
		return p.AccountID, byEmail, nil
	}
	if byEmail.ID == "" {
		return "", byEmail, nil
	}
	if h, err := holderAccount(ctx, q, p); err != nil || h.ID != "" {
		return "", byEmail, err
	}
	linked, err := policy.ForAccount(ctx, q, byEmail.ID)
	if err != nil {
		return "", byEmail, err
	}
	for _, l := range linked {
		if l.ID == p.PolicyID {
			return byEmail.ID, byEmail, nil
		}
	}
	return "", byEmail, nil
}

// holderAccount is the policyholder account of a UBI driver's email on
// file (legacy registration's ubiMatchPH rule); zero when none.
func holderAccount(ctx context.Context, q policy.Reader, p policy.Person) (account.Account, error) {
	if !p.UBI || p.Role != policy.Driver || p.Email == "" {
		return account.Account{}, nil
	}
	a, err := account.ByEmail(ctx, q, p.Brand, p.Email)
	if errors.Is(err, account.ErrNotFound) {
		return account.Account{}, nil
	}
	if err != nil {
		return account.Account{}, err
	}
	linked, err := policy.ForAccount(ctx, q, a.ID)
	if err != nil {
		return account.Account{}, err
	}
	for _, l := range linked {
		if l.Role == policy.Holder {
			return a, nil
		}
	}
	return account.Account{}, nil
}

// Delete is DELETE /api/v1/tokens/{token}: the brand's token is spent if
// it was not yet (idempotent); ErrNotFound otherwise.
func (s *Service) Delete(ctx context.Context, brand, raw, ip string) error {
	e := audit.Event{Brand: brand, IP: ip, Event: audit.TokenConsume, Detail: "delete"}
	if err := s.allow(ctx, e); err != nil {
		return err
	}
	var answer error
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		t, err := Lookup(ctx, tx, brand, raw)
		if errors.Is(err, ErrNotFound) {
			e.Outcome, answer = "not_found", ErrNotFound
			return s.record(ctx, tx, e, now)
		}
		if err != nil {
			return err
		}
		if !t.UsedAt.IsZero() {
			return nil
		}
		if _, err := tx.Exec(ctx, "UPDATE email_tokens SET used_at = ? WHERE id = ? AND used_at = 0", now.UnixMilli(), t.ID); err != nil {
			return err
		}
		e.Outcome = "ok"
		return s.record(ctx, tx, e, now)
	})
	if err != nil {
		return err
	}
	return answer
}

// allow applies the per-address read limit, auditing a refusal.
func (s *Service) allow(ctx context.Context, e audit.Event) error {
	wait, err := s.Limiter.Check(ctx, s.Limits.Reads, throttle.ClientKey(e.IP))
	if err != nil || wait == 0 {
		return err
	}
	e.Outcome, e.Detail = "rate_limited", s.Limits.Reads.Scope
	if err := s.record(ctx, s.DB, e, s.Now()); err != nil {
		return err
	}
	return &throttle.Limited{Err: ErrRateLimited, RetryAfter: wait}
}

func (s *Service) record(ctx context.Context, ex audit.Execer, e audit.Event, now time.Time) error {
	e.At = now
	return audit.Record(ctx, ex, e)
}
