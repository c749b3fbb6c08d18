package recovery

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/emailtoken"
	"guichet/internal/notify"
	"guichet/internal/rules"
	"guichet/internal/sso"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// TokenReset is the /reset form of a visitor holding a reset token (from a
// right code or a reset link).
type TokenReset struct {
	Brand string
	ID    string // the account id the path names
	Token string
	// Password is the new password as typed; it is checked with
	// rules.Password against the account's email.
	Password string
	// PostalCode (a policyholder) or CellPhone (a UBI driver) as typed:
	// the proof of identity the account holds, checked with rules.
	PostalCode string
	CellPhone  string
	Language   string
	Province   string
	IP         string
}

// ResetWithToken sets a new password with a reset token. The token must be
// the account's, live and unused; the postal code (the phone for a UBI
// driver) must match the account's, and the TokenAttempts-th wrong one kills
// the token. On success, in one transaction: the new argon2id hash, the
// token spent, the account's other codes and tokens dead, every session
// revoked, the 'password changed' email queued and the event audited.
func (s *Service) ResetWithToken(ctx context.Context, req TokenReset) (account.Account, error) {
	// Refused when the hashers are too busy before anything is counted.
	ctx, release, err := s.Accounts.Hasher.AdmitClient(ctx, throttle.ClientKey(req.IP))
	if err != nil {
		return account.Account{}, err
	}
	defer release()
	e := audit.Event{Brand: req.Brand, IP: req.IP, Event: audit.RecoveryPassword, Detail: "token"}
	if err := s.allow(ctx, s.Limits.Password, e); err != nil {
		return account.Account{}, err
	}
	if emailtoken.WellFormed(req.Token) {
		// An emailed invitation's token (reset-password-login).
		return s.resetWithEmailToken(ctx, req, e)
	}
	t, err := findToken(ctx, s.DB, req.Token)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return account.Account{}, err
	}
	if err != nil || !t.usableBy(req.Brand, req.ID, s.Now()) {
		return account.Account{}, s.refuseToken(ctx, e, "invalid_token")
	}
	e.AccountID = t.accountID
	a, password, wrong, err := s.prove(ctx, req, e)
	if err != nil {
		return account.Account{}, err
	}
	if wrong != nil {
		if errors.Is(wrong, ErrWrongPhone) {
			return account.Account{}, s.wrongPhone(ctx, req.Token, a.ID, e)
		}
		return account.Account{}, s.wrongIdentity(ctx, req.Token, e, wrong)
	}
	var done account.Account
	err = s.Accounts.SetPassword(ctx, req.Brand, req.ID, password, req.IP, func(tx *store.Tx, cur account.Account) error {
		if err := consumeToken(ctx, tx, req.Brand, req.ID, req.Token, s.Now()); err != nil {
			return err
		}
		done = cur
		return s.passwordSet(ctx, tx, cur, req.Language, req.Province, e)
	})
	return s.resetDone(ctx, e, done, err)
}

// resetDone answers a token reset once its transaction ran: a token spent
// meanwhile (another submit with the same token won the race) or an account
// gone is refused and audited; done is the account whose password was set.
func (s *Service) resetDone(ctx context.Context, e audit.Event, done account.Account, err error) (account.Account, error) {
	switch {
	case errors.Is(err, ErrTokenInvalid):
		return account.Account{}, s.refuseToken(ctx, e, "token_used")
	case errors.Is(err, account.ErrNotFound):
		return account.Account{}, s.refuseToken(ctx, e, "account_gone")
	case err != nil:
		return account.Account{}, err
	}
	return done, nil
}

// prove checks what a reset asks once its token is good: the account (gone:
// the token is refused), the proof of identity's shape, the new password's
// rules and a UBI driver's phone lock (ErrWrongCellphone); an account with
// no proof on file is ErrNoSecondFactor. wrong is the
// mismatch of the proof given (ErrWrongPostalCode, ErrWrongPhone), nil when
// it matches.
func (s *Service) prove(ctx context.Context, req TokenReset, e audit.Event) (a account.Account, password string, wrong, err error) {
	a, err = account.ByID(ctx, s.DB, req.Brand, req.ID)
	if errors.Is(err, account.ErrNotFound) {
		return a, "", nil, s.refuseToken(ctx, e, "account_gone")
	}
	if err != nil {
		return a, "", nil, err
	}
	given, want, mismatch, err := identity(a, req.PostalCode, req.CellPhone)
	if want == "" {
		// Nothing on file to check the proof against (a UBI driver
		// registered without a cell phone): no answer could ever match,
		// so none is asked for or counted.
		e.Outcome = "no_second_factor"
		if err := s.record(ctx, s.DB, e); err != nil {
			return a, "", nil, err
		}
		return a, "", nil, ErrNoSecondFactor
	}
	if err != nil {
		return a, "", nil, err
	}
	if password, err = checkPassword(req.Password, a.Email); err != nil {
		return a, "", nil, err
	}
	if a.UBIDriver {
		locked, err := account.PhoneLocked(ctx, s.DB, req.Brand, a.ID, s.Now())
		if err != nil {
			return a, "", nil, err
		}
		if locked {
			e.Outcome = "phone_locked"
			if err := s.record(ctx, s.DB, e); err != nil {
				return a, "", nil, err
			}
			return a, "", nil, ErrWrongCellphone
		}
	}
	if !sameProof(given, want) {
		return a, password, mismatch, nil
	}
	return a, password, nil, nil
}

// sameProof compares a proof of identity given with the account's, in
// constant time; none on file never matches.
func sameProof(given, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(given), []byte(want)) == 1
}

// identity checks the proof of identity the account asks for: the phone of
// a UBI driver, else the postal code. It returns the normalized value given,
// the account's, and the error a mismatch is.
func identity(a account.Account, postalCode, cellPhone string) (given, want string, wrong error, err error) {
	if a.UBIDriver {
		given, err = rules.Phone(cellPhone, true)
		stored, serr := rules.Phone(a.Phone, true)
		if serr != nil {
			stored = ""
		}
		return given, stored, ErrWrongPhone, err
	}
	given, err = rules.PostalCode(postalCode)
	stored, serr := rules.PostalCode(a.PostalCode)
	if serr != nil {
		stored = ""
	}
	return given, stored, ErrWrongPostalCode, err
}

// wrongIdentity counts a wrong postal code or phone on the token: wrong
// answers with tries left, ErrTokenInvalid once the token is dead.
func (s *Service) wrongIdentity(ctx context.Context, token string, e audit.Event, wrong error) error {
	answer := wrong
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		var attempts int
		err := tx.QueryRow(ctx, `UPDATE recovery_tokens SET attempts = attempts + 1
			WHERE token_hash = ? AND used_at = 0 AND attempts < ? AND expires_at > ? RETURNING attempts`,
			codes.TokenHash(token), TokenAttempts, now.UnixMilli()).Scan(&attempts)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			e.Outcome, answer = "invalid_token", ErrTokenInvalid
		case err != nil:
			return fmt.Errorf("count wrong identity: %w", err)
		case attempts >= TokenAttempts:
			e.Outcome, answer = "token_killed", ErrTokenInvalid
		default:
			e.Outcome = "wrong_identity"
		}
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return err
	}
	return answer
}

// wrongPhone answers a UBI driver's wrong cell phone (spec §9): the token
// dies and the account is locked 24 hours (account.LockForWrongPhone), in
// one transaction.
func (s *Service) wrongPhone(ctx context.Context, token, accountID string, e audit.Event) error {
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE recovery_tokens SET attempts = ? WHERE token_hash = ?", TokenAttempts, codes.TokenHash(token)); err != nil {
			return fmt.Errorf("kill token: %w", err)
		}
		return account.LockForWrongPhone(ctx, tx, accountID, e, s.Now())
	})
	if err != nil {
		return err
	}
	return ErrWrongCellphone
}

// refuseToken audits a refused token and returns ErrTokenInvalid.
func (s *Service) refuseToken(ctx context.Context, e audit.Event, outcome string) error {
	e.Outcome = outcome
	if err := s.record(ctx, s.DB, e); err != nil {
		return err
	}
	return ErrTokenInvalid
}

// TemporaryReset is the /reset form of a visitor whose sign-in found a
// temporary password (spec §4.3): the temporary password again, and the new
// one.
type TemporaryReset struct {
	Brand        string
	ID           string
	TempPassword string // normalized by rules.LoginPassword
	Password     string // as typed; checked with rules.Password
	Language     string
	Province     string
	IP           string
}

// ResetWithTemporary sets a new password in place of a temporary one
// (account.Service.ResetWithTemporary checks it with the sign-in's rules and
// clears it): the account becomes active, and as with a token its sessions,
// codes and tokens die and the 'password changed' email is queued, in the
// same transaction. Errors are account's: ErrWrongTemporary,
// ErrTemporaryInvalid, ErrRateLimited; and PasswordError.
//
// The rules that need no account are checked first; the one that reads the
// account's email (spec §8.3 2002) only once the temporary password matched:
// before it, an id that names no account (a decoy of password reset) must
// answer exactly like an account's.
func (s *Service) ResetWithTemporary(ctx context.Context, req TemporaryReset) (account.Account, error) {
	password, err := checkPassword(req.Password, "")
	if err != nil {
		return account.Account{}, err
	}
	e := audit.Event{Brand: req.Brand, AccountID: req.ID, IP: req.IP, Event: audit.RecoveryPassword, Detail: "temporary"}
	var done account.Account
	err = s.Accounts.ResetWithTemporary(ctx, req.Brand, req.ID, req.TempPassword, password, req.IP,
		func(tx *store.Tx, cur account.Account) error {
			// A password holding the email rolls the change back.
			if _, err := checkPassword(req.Password, cur.Email); err != nil {
				return err
			}
			done = cur
			return s.passwordSet(ctx, tx, cur, req.Language, req.Province, e)
		})
	if err != nil {
		return account.Account{}, err
	}
	return done, nil
}

// passwordSet is what follows a new password in its transaction: the
// account's codes and tokens die, its sessions are revoked, the 'password
// changed' email is queued and the event is audited.
func (s *Service) passwordSet(ctx context.Context, tx *store.Tx, a account.Account, language, province string, e audit.Event) error {
	return s.passwordChanged(ctx, tx, a, passwordNotice{Language: language, Province: province}, e)
}

// passwordNotice is what the 'password changed' email and the sessions that
// stay depend on.
type passwordNotice struct {
	Language, Province string
	// Keep is the session token that stays signed in (the customer's own
	// change); "" ends them all.
	Keep string
	// Link, when set, is the "this wasn't me" link of the email (to /forgot).
	Link string
}

func (s *Service) passwordChanged(ctx context.Context, tx *store.Tx, a account.Account, n passwordNotice, e audit.Event) error {
	now := s.Now()
	language, province := n.Language, n.Province
	if err := revokeAccount(ctx, tx, a.Brand, a.ID, now); err != nil {
		return err
	}
	if err := sso.RevokeAllBut(ctx, tx, a.ID, n.Keep); err != nil {
		return err
	}
	if err := s.Accounts.EndSignIns(ctx, tx, a.ID); err != nil {
		return err
	}
	data := map[string]string{}
	if a.FirstName != "" {
		data[notify.DataFirstName] = a.FirstName
	}
	if province != "" {
		data[notify.DataProvince] = province
	}
	if n.Link != "" {
		data[notify.DataLink] = n.Link
	}
	if err := notify.Queue(ctx, tx, notify.Message{
		Brand: a.Brand, Language: a.MessageLanguage(language), Channel: notify.ChannelEmail, To: a.Email,
		Template: notify.TemplatePasswordChanged, Data: data,
	}, s.Poke); err != nil {
		return err
	}
	e.AccountID, e.Outcome = a.ID, "ok"
	return s.record(ctx, tx, e)
}

// checkPassword applies spec §5's password rule with the account's email and
// returns the normalized password, the value to hash.
func checkPassword(password, email string) (string, error) {
	p, err := rules.Password(password, email)
	var re rules.Error
	if errors.As(err, &re) {
		return "", PasswordError{Key: re.Key}
	}
	return p, err
}

// Change is a signed-in customer's password change (issue 31).
type Change struct {
	Brand, AccountID string
	Current          string // as typed; checked with rules.LoginPassword
	Password         string // the new one, as typed; checked with rules.Password
	// Session is the token of the session that asked: it stays signed in,
	// every other one of the account ends.
	Session            string
	Language, Province string
	IP                 string
	// Link is the email's "this wasn't me" link (the brand's /forgot).
	Link string
}

// ChangePassword checks the current password as a sign-in does (a wrong
// one counts toward the lockout: account.ErrWrongPassword, ErrRateLimited),
// then sets the new one under spec §5's rules (PasswordError): the
// account's codes, tokens, other sessions and the OpenID grants end, and
// the 'password changed' email goes out with a link to reset the password,
// in one transaction.
func (s *Service) ChangePassword(ctx context.Context, c Change) error {
	current, err := rules.LoginPassword(c.Current)
	if err != nil {
		return account.ErrWrongPassword
	}
	password, err := checkPassword(c.Password, "")
	if err != nil {
		return err
	}
	e := audit.Event{Brand: c.Brand, AccountID: c.AccountID, IP: c.IP, Event: audit.RecoveryPassword, Detail: "change"}
	return s.Accounts.ChangePassword(ctx, c.Brand, c.AccountID, current, password, c.IP, func(tx *store.Tx, cur account.Account) error {
		if _, err := checkPassword(c.Password, cur.Email); err != nil {
			return err
		}
		return s.passwordChanged(ctx, tx, cur, passwordNotice{Language: c.Language, Province: c.Province, Keep: c.Session, Link: c.Link}, e)
	})
}
