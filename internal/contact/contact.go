// Package contact is the customer's own change of the email address (also
// their username) and of the cell phone on My account (issue 31,
// design.md "The customer's own account"): after a fresh proof
// (sso.RequireFresh), a code goes to the new address or number; the right
// code makes the change. An email change sends the former address a link
// that, within 72 hours, puts it back and takes the password away until a
// reset. It owns contact_changes and email_undos; the accounts table is
// internal/account's.
package contact

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/notify"
	"guichet/internal/sso"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Kinds of change.
const (
	Email = "email"
	Phone = "phone"
)

// The code rules are codes' (recovery's, spec §5); UndoTTL is how long
// the former address may undo an email change.
const UndoTTL = 72 * time.Hour

// Domain errors; handler.go maps them to the API's once. A code's are
// codes' (ErrWrong, ErrExceeded, ErrExpired, codes.ErrSendLimit).
var (
	ErrSame        = errors.New("contact: the address on file already")
	ErrTaken       = errors.New("contact: another account uses this email")
	ErrUndoInvalid = errors.New("contact: unknown, used or expired undo link")
	// ErrUndoPending: the account's last email change may still be undone
	// (72 hours); another waits until then.
	ErrUndoPending = errors.New("contact: the last email change may still be undone")
)

// Service runs the changes on the store.
type Service struct {
	DB       *store.DB
	Accounts *account.Service
	Limiter  *throttle.Limiter
	Now      func() time.Time
	Rand     io.Reader
	// Limits cap the codes sent for one account's changes and the tries
	// of its codes (recovery's rules).
	Limits codes.Limits
	// Poke wakes the notify worker after a message is queued.
	Poke func()
	// Undone, when set, runs in an undo's transaction: what else an
	// intruder could have left to sign in with (the passkeys, issue 31)
	// goes with the password.
	Undone func(ctx context.Context, tx *store.Tx, brand, accountID string) error

	codeKey []byte
}

// New returns a service on the accounts' store and clock, its code key
// derived from a secret kept in the database.
func New(ctx context.Context, accounts *account.Service) (*Service, error) {
	secret, err := codes.LoadSecret(ctx, accounts.DB, "contact", accounts.Now(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &Service{DB: accounts.DB, Accounts: accounts, Limiter: throttle.New(accounts.DB, accounts.Now), Now: accounts.Now,
		Rand: rand.Reader, Limits: codes.DefaultLimits("contact"), codeKey: codes.Derive(secret, "guichet contact code v1")}, nil
}

// Start is a change asked for: kind Email or Phone, value already checked
// (rules.Email or rules.Phone).
type Start struct {
	Session  sso.Session
	Kind     string
	Value    string
	Language string
	IP       string
}

// Start sends a code to the new address or number (replacing the change
// under way of that kind, whose sends still count).
func (s *Service) Start(ctx context.Context, in Start) error {
	code, err := codes.New(s.Rand)
	if err != nil {
		return err
	}
	now := s.Now()
	e := audit.Event{Brand: in.Session.Brand, AccountID: in.Session.AccountID, IP: in.IP, Event: audit.ContactStart, At: now,
		Outcome: "ok", Detail: in.Kind}
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		a, err := account.ByID(ctx, tx, in.Session.Brand, in.Session.AccountID)
		if err != nil {
			return err
		}
		if in.Kind == Email && account.NormalizeEmail(in.Value) == account.NormalizeEmail(a.Email) || in.Kind == Phone && in.Value == a.Phone {
			return ErrSame
		}
		if in.Kind == Email {
			if err := s.emailFree(ctx, tx, a, in.Value, now); err != nil {
				return err
			}
		}
		if err := s.slot(in.Session, in.Kind).MaySend(ctx, tx); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO contact_changes (account_id, kind, brand, new_value, code_hmac, expires_at, failures, sends)
			VALUES (?, ?, ?, ?, ?, ?, 0, 1)
			ON CONFLICT (account_id, kind) DO UPDATE SET new_value = excluded.new_value, code_hmac = excluded.code_hmac,
				expires_at = excluded.expires_at, failures = 0, sends = contact_changes.sends + 1`,
			a.ID, in.Kind, a.Brand, in.Value, s.codeHMAC(a.ID, in.Kind, in.Value, code), now.Add(codes.TTL).UnixMilli())
		if err != nil {
			return fmt.Errorf("store contact change: %w", err)
		}
		channel := notify.ChannelEmail
		if in.Kind == Phone {
			channel = notify.ChannelSMS
		}
		if err := notify.Queue(ctx, tx, notify.Message{
			Brand: a.Brand, Language: a.MessageLanguage(in.Language), Channel: channel, To: in.Value, Template: notify.TemplateConfirmCode,
			Data:      map[string]string{notify.DataCode: code, notify.DataMinutes: strconv.Itoa(int(codes.TTL / time.Minute))},
			Sensitive: true, ExpiresAt: now.Add(codes.TTL),
		}, s.Poke); err != nil {
			return err
		}
		return audit.Record(ctx, tx, e)
	})
}

// Confirm is the code of a change under way, typed by its customer.
type Confirm struct {
	Session  sso.Session
	Kind     string
	Code     string
	Language string
	Province string // the page's: the undo's end in its time zone, its phone number
	IP       string
	// UndoBase is where the undo link of an email change points (the
	// brand's origin and the page; "?token=…" is added).
	UndoBase string
	// ForgotLink is the "this wasn't me" link of a phone change's notice.
	ForgotLink string
}

// Confirm makes the change when the code is right and returns the new
// value. Every try is counted before the code is compared, in one
// statement (concurrent tries cannot all see a count under the limit), and
// the account's tries are limited across changes. An email change queues,
// in the same transaction, the notice to the former address with its undo
// link; a phone change, a notice to the account's address (the phone
// proves a UBI driver's identity to a password reset).
func (s *Service) Confirm(ctx context.Context, in Confirm) (string, error) {
	now := s.Now()
	e := audit.Event{Brand: in.Session.Brand, AccountID: in.Session.AccountID, IP: in.IP, Event: audit.ContactChange, At: now,
		Detail: in.Kind}
	var answer error
	var value string
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		value = ""
		var err error
		answer, err = s.slot(in.Session, in.Kind).Try(ctx, tx, now,
			func() string { return s.codeHMAC(in.Session.AccountID, in.Kind, value, in.Code) }, &value)
		if err != nil {
			return err
		}
		if answer != nil {
			e.Outcome = codes.Outcome(answer)
			return audit.Record(ctx, tx, e)
		}
		if _, err := tx.Exec(ctx, "DELETE FROM contact_changes WHERE account_id = ? AND kind = ?", in.Session.AccountID, in.Kind); err != nil {
			return err
		}
		a, err := account.ByID(ctx, tx, in.Session.Brand, in.Session.AccountID)
		if err != nil {
			return err
		}
		if in.Kind == Phone {
			err = s.changePhone(ctx, tx, a, value, in, now)
		} else {
			err = s.changeEmail(ctx, tx, a, value, in, now)
		}
		if errors.Is(err, ErrTaken) || errors.Is(err, ErrUndoPending) {
			e.Outcome, answer = "refused", err // since the code was sent
			return audit.Record(ctx, tx, e)
		}
		if err != nil {
			return err
		}
		e.Outcome = "ok"
		return audit.Record(ctx, tx, e)
	})
	if err != nil {
		return "", err
	}
	if answer != nil {
		return "", answer
	}
	return value, nil
}

// slot is the account's row of contact_changes for kind.
func (s *Service) slot(sess sso.Session, kind string) codes.Slot {
	return codes.Slot{
		Sends: "SELECT sends FROM contact_changes WHERE account_id = ? AND kind = ? AND brand = ?",
		Count: `UPDATE contact_changes SET failures = failures + 1
			WHERE account_id = ? AND kind = ? AND brand = ? AND expires_at > ? AND failures < ?
			RETURNING code_hmac, failures, new_value`,
		Exceeded: `SELECT COUNT(*) FROM contact_changes
			WHERE account_id = ? AND kind = ? AND brand = ? AND expires_at > ? AND failures >= ?`,
		End:     "UPDATE contact_changes SET failures = ? WHERE account_id = ? AND kind = ? AND brand = ?",
		Key:     []any{sess.AccountID, kind, sess.Brand},
		Account: sess.AccountID, Limiter: s.Limiter, Limits: s.Limits,
	}
}

// emailFree refuses an address another account of the brand has, or that
// an account may still take back (the former address of an email change
// under its 72 hours), and a change while the account's own last change
// may still be undone: an undo puts back the address before the first
// change, never one an intruder chained after it.
func (s *Service) emailFree(ctx context.Context, tx *store.Tx, a account.Account, email string, now time.Time) error {
	switch _, err := account.ByEmail(ctx, tx, a.Brand, email); {
	case err == nil:
		return ErrTaken
	case !errors.Is(err, account.ErrNotFound):
		return err
	}
	var reserved, pending int
	err := tx.QueryRow(ctx, `SELECT
			COALESCE(SUM(CASE WHEN old_email_normalized = ? THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN account_id = ? THEN 1 ELSE 0 END), 0)
		FROM email_undos WHERE brand = ? AND used_at = 0 AND expires_at > ?`,
		account.NormalizeEmail(email), a.ID, a.Brand, now.UnixMilli()).Scan(&reserved, &pending)
	switch {
	case err != nil:
		return fmt.Errorf("email undos: %w", err)
	case pending > 0:
		return ErrUndoPending
	case reserved > 0:
		return ErrTaken
	}
	return nil
}

// changeEmail sets the new address and sends the former one its notice
// with the undo link, in tx.
func (s *Service) changeEmail(ctx context.Context, tx *store.Tx, a account.Account, email string, in Confirm, now time.Time) error {
	if err := s.emailFree(ctx, tx, a, email, now); err != nil {
		return err
	}
	if err := account.SetEmail(ctx, tx, a.Brand, a.ID, email, now); errors.Is(err, account.ErrEmailTaken) {
		return ErrTaken
	} else if err != nil {
		return err
	}
	token, err := s.undoToken()
	if err != nil {
		return err
	}
	until := now.Add(UndoTTL)
	if _, err := tx.Exec(ctx, `INSERT INTO email_undos (token_hash, account_id, brand, old_email, old_email_normalized, new_email, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, codes.TokenHash(token), a.ID, a.Brand, a.Email, account.NormalizeEmail(a.Email), email,
		until.UnixMilli()); err != nil {
		return fmt.Errorf("store undo link: %w", err)
	}
	return notify.Queue(ctx, tx, notify.Message{
		Brand: a.Brand, Language: a.MessageLanguage(in.Language), Channel: notify.ChannelEmail, To: a.Email, Template: notify.TemplateEmailChanged,
		Data: withProvince(map[string]string{notify.DataAddress: email, notify.DataWhen: until.UTC().Format(time.RFC3339),
			notify.DataLink: in.UndoBase + "?token=" + token}, in.Province),
		Sensitive: true, ExpiresAt: until,
	}, s.Poke)
}

// changePhone sets the new number and tells the account's address, with
// a link to recovery for a change that was not theirs.
func (s *Service) changePhone(ctx context.Context, tx *store.Tx, a account.Account, phone string, in Confirm, now time.Time) error {
	if err := account.SetPhone(ctx, tx, a.Brand, a.ID, phone, now); err != nil {
		return err
	}
	return notify.Queue(ctx, tx, notify.Message{
		Brand: a.Brand, Language: a.MessageLanguage(in.Language), Channel: notify.ChannelEmail, To: a.Email, Template: notify.TemplatePhoneChanged,
		Data: withProvince(map[string]string{notify.DataLink: in.ForgotLink}, in.Province),
	}, s.Poke)
}

func withProvince(data map[string]string, province string) map[string]string {
	if province != "" {
		data[notify.DataProvince] = province
	}
	return data
}

// Undo is the former address's link, used: within UndoTTL and once, the
// former address comes back, the password goes (a reset by that address
// sets a new one), and every session and sign-in of the account ends.
// Should the address have been taken since (which emailFree refuses to the
// portal's own changes), the account keeps the new one but is locked until
// staff release it: a reset through the intruder's address must not give
// it back. It returns the address put back.
func (s *Service) Undo(ctx context.Context, brand, token, ip string) (string, error) {
	now := s.Now()
	e := audit.Event{Brand: brand, IP: ip, Event: audit.ContactUndo, At: now}
	var answer error
	var old string
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		answer = nil
		var accountID string
		err := tx.QueryRow(ctx, `UPDATE email_undos SET used_at = ?
			WHERE token_hash = ? AND brand = ? AND used_at = 0 AND expires_at > ? RETURNING account_id, old_email`,
			now.UnixMilli(), codes.TokenHash(token), brand, now.UnixMilli()).Scan(&accountID, &old)
		if errors.Is(store.NotFound(err), store.ErrNotFound) {
			e.Outcome, answer = "invalid", ErrUndoInvalid
			return audit.Record(ctx, tx, e)
		}
		if err != nil {
			return err
		}
		e.AccountID = accountID
		if _, err := tx.Exec(ctx, "UPDATE email_undos SET used_at = ? WHERE account_id = ? AND used_at = 0", now.UnixMilli(), accountID); err != nil {
			return err
		}
		taken := false
		switch _, err := account.ByEmail(ctx, tx, brand, old); {
		case err == nil:
			taken = true
		case !errors.Is(err, account.ErrNotFound):
			return err
		}
		if taken {
			e.Detail = "address_taken"
			if err := account.Lock(ctx, tx, accountID, time.Time{}, now); err != nil {
				return err
			}
		} else if err := account.SetEmail(ctx, tx, brand, accountID, old, now); err != nil {
			return err
		}
		if err := account.RequireReset(ctx, tx, brand, accountID, now); err != nil {
			return err
		}
		if s.Undone != nil {
			if err := s.Undone(ctx, tx, brand, accountID); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "DELETE FROM contact_changes WHERE account_id = ?", accountID); err != nil {
			return err
		}
		if err := sso.RevokeAll(ctx, tx, accountID); err != nil {
			return err
		}
		if err := s.Accounts.EndSignIns(ctx, tx, accountID); err != nil {
			return err
		}
		e.Outcome = "ok"
		return audit.Record(ctx, tx, e)
	})
	if err != nil {
		return "", err
	}
	return old, answer
}

// Prune deletes the changes whose code ended and the undo links past their
// end (the janitor calls it).
func (s *Service) Prune(ctx context.Context) (int64, error) {
	now := s.Now().UnixMilli()
	var n int64
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		n = 0
		for _, q := range []string{"DELETE FROM contact_changes WHERE expires_at <= ?", "DELETE FROM email_undos WHERE expires_at <= ?"} {
			res, err := tx.Exec(ctx, q, now)
			if err != nil {
				return fmt.Errorf("prune contact changes: %w", err)
			}
			k, _ := res.RowsAffected()
			n += k
		}
		return nil
	})
	return n, err
}

// codeHMAC binds a code to its account, kind and new value: a code sent to
// one address proves nothing of another.
func (s *Service) codeHMAC(accountID, kind, value, code string) string {
	return codes.HMAC(s.codeKey, accountID, kind, value, code)
}

// undoToken is 256 random bits (two random ids).
func (s *Service) undoToken() (string, error) {
	a, err := codes.RandomID(s.Rand)
	if err != nil {
		return "", err
	}
	b, err := codes.RandomID(s.Rand)
	return a + b, err
}
