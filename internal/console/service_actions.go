package console

import (
	"context"
	"crypto/rand"
	"io"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/emailtoken"
	"guichet/internal/notify"
	"guichet/internal/store"
)

// TemporaryTTL is how long a temporary password issued by staff works.
const TemporaryTTL = 24 * time.Hour

// temporaryAlphabet has no look-alikes (0/O, 1/I/L) so the password can be
// read on the phone; temporaryLength of them carry about 49 bits, and the
// password works once, for 24 hours, three tries.
const (
	temporaryAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
	temporaryLength   = 10
)

// The customer actions below take a customer Customer returned (of a brand
// the caller serves, after Authorize with a fresh factor) and answer the
// customer as they are after the action.

// reload reads the customer as they are after an action.
func (s *Service) reload(ctx context.Context, a account.Account) (account.Account, error) {
	return account.ByID(ctx, s.DB, a.Brand, a.ID)
}

// Unlock ends the staff lock (status locked) and the timed lock of failed
// attempts and forgets the failed attempts. An account holding a live
// temporary password gets back the temporary status.
func (s *Service) Unlock(ctx context.Context, c Caller, a account.Account) (account.Account, error) {
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		changed, err := account.Unlock(ctx, tx, a.ID, s.Now())
		if err != nil {
			return err
		}
		outcome := "ok"
		if !changed {
			outcome = "unchanged"
		}
		return s.record(ctx, tx, c, audit.Event{Brand: a.Brand, AccountID: a.ID, Event: audit.ConsoleUnlock, Outcome: outcome})
	})
	if err != nil {
		return a, err
	}
	return s.reload(ctx, a)
}

// RemovePasskeys removes every passkey of the account (passkey.RemoveAll,
// audited passkey.remove with the staff member as actor): the customer
// signs in with the password and adds them again.
func (s *Service) RemovePasskeys(ctx context.Context, c Caller, a account.Account) (account.Account, error) {
	if s.Passkeys == nil {
		return a, nil
	}
	if _, err := s.Passkeys.RemoveAll(ctx, a.Brand, a.ID, c.Staff.Actor(), c.IP); err != nil {
		return a, err
	}
	return s.reload(ctx, a)
}

// Disable disables the account (account.Disable, audited there with the
// staff member as actor).
func (s *Service) Disable(ctx context.Context, c Caller, a account.Account) (account.Account, error) {
	if err := s.Accounts.Disable(ctx, a.Brand, a.ID, c.Staff.Actor(), c.IP); err != nil {
		return a, err
	}
	return s.reload(ctx, a)
}

// Enable enables the account again (account.Enable).
func (s *Service) Enable(ctx context.Context, c Caller, a account.Account) (account.Account, error) {
	if err := s.Accounts.Enable(ctx, a.Brand, a.ID, c.Staff.Actor(), c.IP); err != nil {
		return a, err
	}
	return s.reload(ctx, a)
}

// Temporary is a temporary password issued: Password is set for the
// delivery "show" only.
type Temporary struct {
	Delivery  string
	Password  string
	ExpiresAt time.Time
}

// newTemporary draws a temporary password from the readable alphabet
// (rejection sampling: every letter equally likely).
func newTemporary(rnd io.Reader) (string, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	out := make([]byte, 0, temporaryLength)
	limit := 256 - 256%len(temporaryAlphabet)
	buf := make([]byte, 32)
	for len(out) < temporaryLength {
		if _, err := io.ReadFull(rnd, buf); err != nil {
			return "", err
		}
		for _, b := range buf {
			if int(b) < limit && len(out) < temporaryLength {
				out = append(out, temporaryAlphabet[int(b)%len(temporaryAlphabet)])
			}
		}
	}
	return string(out), nil
}

// TemporaryPassword issues a new temporary password (hashed; single use; 24
// hours; the next sign-in must reset), shown once to the staff member for
// delivery "show", emailed to the customer for "email".
func (s *Service) TemporaryPassword(ctx context.Context, c Caller, a account.Account, delivery string) (Temporary, error) {
	if delivery != "show" && delivery != "email" {
		return Temporary{}, invalid("delivery", "console.temporary.delivery")
	}
	password, err := newTemporary(s.Rand)
	if err != nil {
		return Temporary{}, err
	}
	hash, err := s.Accounts.Hasher.Hash(ctx, password)
	if err != nil {
		return Temporary{}, err
	}
	out := Temporary{Delivery: delivery}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		out.ExpiresAt = time.UnixMilli(now.Add(TemporaryTTL).UnixMilli()).UTC()
		if err := account.SetTemporaryPassword(ctx, tx, a.ID, hash, out.ExpiresAt, now); err != nil {
			return err
		}
		if delivery == "email" {
			if err := notify.Queue(ctx, tx, notify.Message{Brand: a.Brand, Language: a.Language,
				Channel: notify.ChannelEmail, To: a.Email, Template: notify.TemplateTemporaryPassword,
				Data:      map[string]string{notify.DataCode: password, notify.DataExpires: out.ExpiresAt.Format(time.DateOnly)},
				Sensitive: true, ExpiresAt: out.ExpiresAt}, s.Accounts.Poke); err != nil {
				return err
			}
		}
		return s.record(ctx, tx, c, audit.Event{Brand: a.Brand, AccountID: a.ID, Event: audit.ConsoleTemporaryPassword,
			Outcome: "ok", Detail: delivery})
	})
	if err != nil {
		return Temporary{}, err
	}
	if delivery != "email" {
		out.Password = password
	}
	return out, nil
}

// ResetEmail sends the password-reset link email (account.Notify's
// RESET_PSW) to the customer, the link on the brand's site.
func (s *Service) ResetEmail(ctx context.Context, c Caller, a account.Account) (account.Account, error) {
	b, ok := s.Brands(a.Brand)
	if !ok {
		return a, ErrNotFound
	}
	if err := s.Accounts.Notify(ctx, account.NotifyRequest{Brand: a.Brand, AccountID: a.ID,
		Type: account.NotifyResetPassword, IP: c.IP, BaseURL: s.LinkBase(b)}); err != nil {
		return a, err
	}
	if err := s.record(ctx, s.DB, c, audit.Event{Brand: a.Brand, AccountID: a.ID, Event: audit.ConsoleResetEmail,
		Outcome: "ok"}); err != nil {
		return a, err
	}
	return s.reload(ctx, a)
}

// Invitation sends a registration invitation (an email token issued by
// staff:<id>) for the policy's insured person whose email is the
// customer's; it answers when the invitation expires.
func (s *Service) Invitation(ctx context.Context, c Caller, a account.Account, policyNumber, source string) (time.Time, error) {
	var issued emailtoken.Issued
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		issued, err = s.Tokens.IssueTx(ctx, tx, emailtoken.Request{Brand: a.Brand, PolicyNumber: policyNumber,
			Email: a.Email, Source: source, Send: true, IssuedBy: c.Staff.Actor(), IP: c.IP})
		if err != nil {
			return err
		}
		return s.record(ctx, tx, c, audit.Event{Brand: a.Brand, AccountID: a.ID, Event: audit.ConsoleInvitation,
			Outcome: "ok", Detail: source})
	})
	if err != nil {
		return time.Time{}, err
	}
	return issued.ExpiresAt, nil
}
