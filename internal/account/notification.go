package account

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/notify"
	"guichet/internal/store"
)

// Notification types of spec §7's notification call.
const (
	NotifyLockedAccount = "LOCKED_ACCOUNT"
	NotifyResetPassword = "RESET_PSW"
)

// NotifyRequest asks for an email to an account's holder.
type NotifyRequest struct {
	Brand     string
	AccountID string
	Type      string // NotifyLockedAccount or NotifyResetPassword
	IP        string
	// BaseURL is the site's origin (scheme://host) the reset link points to.
	BaseURL string
}

// ErrUnknownNotification is returned for a type the call does not know.
var ErrUnknownNotification = errors.New("account: unknown notification type")

// Notify queues the email of spec §7's notification call in the outbox: the
// RESET_PSW link (token-expired roadblock), or the LOCKED_ACCOUNT notice
// (locked-account roadblock), which carries a reset link too. Each link holds
// a new reset token (ConsumeResetToken, valid ResetTokenTTL). Over the
// per-account cap nothing more is sent and the answer is the same.
//
// An id that names no account of the brand (the decoy id password reset
// gives an unknown email, or any other) gets the same answer and sends
// nothing: the call never tells a decoy from an account.
func (s *Service) Notify(ctx context.Context, n NotifyRequest) error {
	if n.Type != NotifyLockedAccount && n.Type != NotifyResetPassword {
		return ErrUnknownNotification
	}
	e := audit.Event{Brand: n.Brand, AccountID: n.AccountID, IP: n.IP, Event: audit.Notification, Detail: n.Type}
	if err := s.allow(ctx, s.Limits.Notify, n.IP, e); err != nil {
		return err
	}
	a, err := ByID(ctx, s.DB, n.Brand, n.AccountID)
	found := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	// Counted for unknown ids too, so both paths do the same work.
	ok, err := s.Limiter.Allow(ctx, s.Limits.NotifyPerAccount, n.AccountID+"/"+n.Type)
	if err != nil {
		return err
	}
	switch {
	case !found:
		e.AccountID, e.Outcome = "", "unknown_account"
		return s.recordAlone(ctx, e)
	case !ok:
		e.Outcome = "suppressed"
		return s.recordAlone(ctx, e)
	}
	template := notify.TemplateResetLink
	if n.Type == NotifyLockedAccount {
		template = notify.TemplateLockedAccount
	}
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		token, expires, err := issueResetToken(ctx, tx, a, now)
		if err != nil {
			return err
		}
		link, err := resetLink(n.BaseURL, token)
		if err != nil {
			return err
		}
		data := map[string]string{
			notify.DataLink:    link,
			notify.DataMinutes: strconv.Itoa(int(ResetTokenTTL / time.Minute)),
		}
		if a.FirstName != "" {
			data[notify.DataFirstName] = a.FirstName
		}
		// s.Poke once committed: the email leaves now, not at the worker's
		// next poll.
		if err := notify.Queue(ctx, tx, notify.Message{
			Brand: a.Brand, Language: a.Language, Channel: notify.ChannelEmail, To: a.Email,
			Template: template, Data: data, Sensitive: true, ExpiresAt: expires,
		}, s.Poke); err != nil {
			return err
		}
		e.Outcome = "queued"
		return s.record(ctx, tx, e)
	})
}

// resetLink is the /reset page's address with the token.
func resetLink(base, token string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("account: reset link base %q is not an http(s) origin", base)
	}
	return u.Scheme + "://" + u.Host + "/reset?token=" + url.QueryEscape(token), nil
}

// issueResetToken stores a new password-reset link token (hashed) and
// returns it with its expiry.
func issueResetToken(ctx context.Context, tx *store.Tx, a Account, now time.Time) (string, time.Time, error) {
	t, err := randomToken(16)
	if err != nil {
		return "", time.Time{}, err
	}
	expires := now.Add(ResetTokenTTL)
	_, err = tx.Exec(ctx, "INSERT INTO password_reset_tokens (token_hash, account_id, brand, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
		codes.TokenHash(t), a.ID, a.Brand, now.UnixMilli(), expires.UnixMilli())
	if err != nil {
		return "", time.Time{}, fmt.Errorf("issue reset token: %w", err)
	}
	return t, expires, nil
}

// ErrResetTokenInvalid: a reset link token unknown, used, expired or of
// another brand.
var ErrResetTokenInvalid = errors.New("account: invalid reset token")

// ConsumeResetToken redeems a /reset?token=… link in the caller's
// transaction (recovery issue): the token is deleted whatever happens next
// (single use, even under concurrent submits) and names the account it was
// issued for when it is unexpired and of the brand. Call it in the also of
// SetPassword to consume it with the password change, or alone to check a
// link once.
func ConsumeResetToken(ctx context.Context, tx *store.Tx, brand, token string, now time.Time) (Account, error) {
	accountID, err := resetTokens.consume(ctx, tx, brand, token, now)
	if err != nil {
		return Account{}, err
	}
	a, err := ByID(ctx, tx, brand, accountID)
	if errors.Is(err, ErrNotFound) {
		return Account{}, ErrResetTokenInvalid
	}
	return a, err
}
