// Package sso is Guichet's own web single sign-on (design.md "Web SSO"): the
// login form post of spec §7 (login-form-type=pwd, username, password) that
// opens a session and redirects to /my-account, or back to /webseal.do with a
// spec §8.5 error code; the sessions themselves; and the signed-in
// policyholder's /api/v1/me and /api/v1/logout.
package sso

import (
	"context"
	"errors"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/store"
)

// Service opens and ends sessions.
type Service struct {
	DB       *store.DB
	Accounts *account.Service
	Now      func() time.Time
}

// NewService returns a service sharing the account service's store and clock.
func NewService(accounts *account.Service) *Service {
	return &Service{DB: accounts.DB, Accounts: accounts, Now: accounts.Now}
}

// SignIn is what the form post asks for.
type SignIn struct {
	Brand    string
	Username string // the account's email
	Password string // normalized by rules.LoginPassword
	// Ticket is the loginTicket of a successful authentication call; with a
	// valid one the password is not hashed a second time.
	Ticket string
	IP     string
	// UserAgent is the browser's User-Agent header (My account's list of
	// where the customer is signed in).
	UserAgent string
	// Device is the browser's device cookie and what the new-device notice
	// needs (newdevice.go); a zero one records nothing.
	Device NewDevice
	// OldToken is the session the browser holds, if any: a sign-in always
	// replaces it with a new one.
	OldToken string
}

// SignIn opens a session and returns its token and the account signed in
// to. Errors are the account package's: ErrWrongPassword (also unknown or
// locked accounts), ErrTicketInvalid, ErrMustReset, ErrRateLimited, or a
// technical error.
//
// A post with a ticket is decided by the ticket alone: a used, expired or
// unknown one is refused without checking the password, so re-posting a
// form (the browser's back button, a replay) never counts toward the
// account's lockout.
func (s *Service) SignIn(ctx context.Context, in SignIn) (token, accountID string, err error) {
	if in.Ticket != "" {
		token, accountID, err = s.signInWithTicket(ctx, in)
		if err == nil && accountID == "" {
			err = account.ErrTicketInvalid
		}
		if err != nil {
			return "", "", err
		}
		return token, accountID, nil
	}
	err = s.Accounts.SignInWithPassword(ctx, account.Credentials{
		Brand: in.Brand, Email: in.Username, Password: in.Password, IP: in.IP,
	}, func(tx *store.Tx, a account.Account) error {
		opened, openErr := s.open(ctx, tx, a, in)
		token, accountID = opened, a.ID
		return openErr
	})
	if err != nil {
		return "", "", err
	}
	return token, accountID, nil
}

// signInWithTicket redeems the ticket and returns the session's token and
// its account; accountID is "" when the ticket is not valid (it is spent
// all the same).
func (s *Service) signInWithTicket(ctx context.Context, in SignIn) (token, accountID string, err error) {
	e := audit.Event{Brand: in.Brand, IP: in.IP, Event: audit.SSOLogin, Detail: "ticket"}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		token, accountID = "", "" // a retried transaction starts over
		now := s.Now()
		a, err := account.ConsumeTicket(ctx, tx, in.Brand, in.Username, in.Ticket, now)
		if errors.Is(err, account.ErrTicketInvalid) {
			e.At, e.Outcome = now, "ticket_invalid"
			return audit.Record(ctx, tx, e)
		}
		if err != nil {
			return err
		}
		if token, err = s.open(ctx, tx, a, in); err != nil {
			return err
		}
		accountID = a.ID
		e.At, e.AccountID, e.Outcome = now, a.ID, "ok"
		return audit.Record(ctx, tx, e)
	})
	if err != nil {
		return "", "", err
	}
	return token, accountID, nil
}

// open replaces the browser's old session, if any, with a new one, and
// notes the browser.
func (s *Service) open(ctx context.Context, tx *store.Tx, a account.Account, in SignIn) (string, error) {
	if oldToken := in.OldToken; oldToken != "" && len(oldToken) <= 128 {
		if _, err := tx.Exec(ctx, "DELETE FROM sessions WHERE token_hash = ?", codes.TokenHash(oldToken)); err != nil {
			return "", err
		}
	}
	token, err := newSession(ctx, tx, a.Brand, a.ID, in.UserAgent, s.Now())
	if err != nil {
		return "", err
	}
	d := in.Device
	d.UserAgent = in.UserAgent
	return token, s.noteDevice(ctx, tx, a, d, in.IP)
}

// Lookup returns the live session of a token for the brand.
func (s *Service) Lookup(ctx context.Context, brand, token string) (Session, error) {
	return lookup(ctx, s.DB, brand, token, s.Now())
}

// Logout revokes the session of a token (no error when there is none).
func (s *Service) Logout(ctx context.Context, brand, token, ip string) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		accountID, err := revoke(ctx, tx, token)
		if err != nil || accountID == "" {
			return err
		}
		if err := s.Accounts.EndSignIns(ctx, tx, accountID); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{At: s.Now(), Brand: brand, AccountID: accountID, IP: ip, Event: audit.SSOLogout, Outcome: "ok"})
	})
}
