package recovery

import (
	"context"
	"crypto/hmac"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/notify"
	"guichet/internal/store"
)

// Request is a forgot-password request (the /forgot page).
type Request struct {
	Brand    string
	Email    string // checked with rules.Email
	Language string // the site's language, the email's
	Province string // the site's province: the phone number the email shows
	IP       string
}

// Started answers a request or a resend: the id the next calls name (the
// account id, or a decoy id for an unknown email) and the code's validation
// id.
type Started struct {
	ID           string `json:"id"`
	ValidationID string `json:"validationId"`
}

// RequestReset starts a reset: a new code for the account of the email,
// emailed in the transaction that stores it; the account's previous codes
// die. An unknown email gets a decoy: the same answer, the same work, a code
// that never matches and no email.
func (s *Service) RequestReset(ctx context.Context, req Request) (Started, error) {
	e := audit.Event{Brand: req.Brand, IP: req.IP, Event: audit.RecoveryRequest}
	if err := s.allow(ctx, s.Limits.Request, e); err != nil {
		return Started{}, err
	}
	a, err := account.ByEmail(ctx, s.DB, req.Brand, req.Email)
	found := err == nil
	if err != nil && !errors.Is(err, account.ErrNotFound) {
		return Started{}, err
	}
	subject := s.decoyID(req.Brand, account.NormalizeEmail(req.Email))
	if found {
		subject = a.ID
	}
	// Counted for decoys too, so both paths do the same work.
	withinCap, err := s.Limiter.Allow(ctx, s.Limits.CodesPerAccount, subject)
	if err != nil {
		return Started{}, err
	}
	resetID, err := s.randomID()
	if err != nil {
		return Started{}, err
	}
	c, err := s.newCodeFor()
	if err != nil {
		return Started{}, err
	}
	send := found && withinCap
	if !send {
		c.hmac = ""
	}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		if err := lockSubject(ctx, tx, req.Brand, subject); err != nil {
			return err
		}
		if err := revokeLiveCodes(ctx, tx, req.Brand, subject, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO password_resets (id, brand, subject, account_id, created_at)
			VALUES (?, ?, ?, ?, ?)`, resetID, req.Brand, subject, a.ID, now.UnixMilli()); err != nil {
			return fmt.Errorf("insert reset request: %w", err)
		}
		if err := insertCode(ctx, tx, c.validationID, resetID, c.hmac, now); err != nil {
			return err
		}
		e.AccountID = a.ID
		switch {
		case !found:
			e.Outcome = "unknown_email"
		case !withinCap:
			e.Outcome = "suppressed"
		default:
			if err := s.queueCode(ctx, tx, a, c.code, req.Language, req.Province, now); err != nil {
				return err
			}
			e.Outcome = "code_sent"
		}
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return Started{}, err
	}
	return Started{ID: subject, ValidationID: c.validationID}, nil
}

// ResendRequest asks for a new code of a reset request (the /verify page's
// resend link), naming it by the ids its last answer gave.
type ResendRequest struct {
	Brand        string
	ID           string
	ValidationID string
	Language     string
	Province     string
	IP           string
}

// Resend replaces the request's code with a new one (a new validation id;
// the old code dies) and emails it, at most MaxResends times per request.
func (s *Service) Resend(ctx context.Context, req ResendRequest) (Started, error) {
	e := audit.Event{Brand: req.Brand, IP: req.IP, Event: audit.RecoveryResend}
	if err := s.allow(ctx, s.Limits.Resend, e); err != nil {
		return Started{}, err
	}
	if _, err := findCode(ctx, s.DB, req.Brand, req.ID, req.ValidationID); err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			return Started{}, err
		}
		e.Outcome = "unknown_request"
		if err := s.record(ctx, s.DB, e); err != nil {
			return Started{}, err
		}
		return Started{}, ErrResetNotFound
	}
	withinCap, err := s.Limiter.Allow(ctx, s.Limits.CodesPerAccount, req.ID)
	if err != nil {
		return Started{}, err
	}
	c, err := s.newCodeFor()
	if err != nil {
		return Started{}, err
	}
	var answer error
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		if err := lockSubject(ctx, tx, req.Brand, req.ID); err != nil {
			return err
		}
		cur, err := findCode(ctx, tx, req.Brand, req.ID, req.ValidationID)
		if errors.Is(err, store.ErrNotFound) {
			// Pruned since the look-up above.
			e.Outcome, answer = "unknown_request", ErrResetNotFound
			return s.record(ctx, tx, e)
		}
		if err != nil {
			return err
		}
		e.AccountID = cur.accountID
		switch {
		case cur.doneAt != 0:
			e.Outcome, answer = "closed", ErrResetClosed
			return s.record(ctx, tx, e)
		case cur.resends >= MaxResends:
			e.Outcome, answer = "resend_limit", ErrResendLimit
			return s.record(ctx, tx, e)
		}
		if _, err := tx.Exec(ctx, "UPDATE password_resets SET resends = resends + 1 WHERE id = ?", cur.resetID); err != nil {
			return fmt.Errorf("count resend: %w", err)
		}
		if err := revokeLiveCodes(ctx, tx, req.Brand, req.ID, now); err != nil {
			return err
		}
		var a account.Account
		if cur.accountID != "" {
			a, err = account.ByID(ctx, tx, req.Brand, cur.accountID)
			if err != nil && !errors.Is(err, account.ErrNotFound) {
				return err
			}
		}
		send := a.ID != "" && withinCap
		stored := c.hmac
		if !send {
			stored = ""
		}
		if err := insertCode(ctx, tx, c.validationID, cur.resetID, stored, now); err != nil {
			return err
		}
		switch {
		case cur.accountID == "":
			e.Outcome = "unknown_email"
		case !send:
			e.Outcome = "suppressed"
		default:
			if err := s.queueCode(ctx, tx, a, c.code, req.Language, req.Province, now); err != nil {
				return err
			}
			e.Outcome = "code_sent"
		}
		e.Detail = "resend_" + strconv.Itoa(cur.resends+1)
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return Started{}, err
	}
	if answer != nil {
		return Started{}, answer
	}
	return Started{ID: req.ID, ValidationID: c.validationID}, nil
}

// freshCode is a new code with its validation id and stored form.
type freshCode struct {
	validationID string
	code         string
	hmac         string
}

func (s *Service) newCodeFor() (freshCode, error) {
	id, err := s.randomID()
	if err != nil {
		return freshCode{}, err
	}
	code, err := s.newCode()
	if err != nil {
		return freshCode{}, err
	}
	return freshCode{validationID: id, code: code, hmac: s.codeHMAC(id, code)}, nil
}

// queueCode puts the reset-code email in the outbox, in the transaction
// that stores the code; it is abandoned if not delivered before the code
// expires.
func (s *Service) queueCode(ctx context.Context, tx *store.Tx, a account.Account, code, language, province string, now time.Time) error {
	data := map[string]string{notify.DataCode: code, notify.DataMinutes: strconv.Itoa(int(CodeTTL / time.Minute))}
	if a.FirstName != "" {
		data[notify.DataFirstName] = a.FirstName
	}
	if province != "" {
		data[notify.DataProvince] = province
	}
	return notify.Queue(ctx, tx, notify.Message{
		Brand: a.Brand, Language: a.MessageLanguage(language), Channel: notify.ChannelEmail, To: a.Email,
		Template: notify.TemplateResetCode, Data: data, Sensitive: true, ExpiresAt: now.Add(CodeTTL),
	}, s.Poke)
}

// VerifyRequest is a code typed on /verify.
type VerifyRequest struct {
	Brand        string
	ID           string
	ValidationID string
	Code         string // checked with rules.SecurityCode
	IP           string
}

// ActionResetPassword is the action of spec §4.2's token routing that sends
// the SPA to /reset.
const ActionResetPassword = "reset-password-login"

// Verified answers a right code (or a reset link): the reset token the
// password call needs, and which proof of identity /reset must ask for.
type Verified struct {
	ID     string `json:"id"`
	Action string `json:"action"`
	Token  string `json:"token"`
	// UBIDriver: /reset asks for the phone (cellPhone) instead of the
	// postal code.
	UBIDriver bool `json:"ubiDriver"`
}

// Verify checks a code. A right one is spent (exactly once, even under
// concurrent submits: a conditional UPDATE lets one transaction through) and
// exchanged for a reset token valid TokenTTL. A wrong one counts; the
// CodeGuesses-th wrong one kills the code (ErrCodeExceeded), as does the
// account's GuessesPerAccount-th wrong code of the day.
func (s *Service) Verify(ctx context.Context, req VerifyRequest) (Verified, error) {
	e := audit.Event{Brand: req.Brand, IP: req.IP, Event: audit.RecoveryVerify}
	if err := s.allow(ctx, s.Limits.Verify, e); err != nil {
		return Verified{}, err
	}
	var out Verified
	var answer error
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		c, err := findCode(ctx, tx, req.Brand, req.ID, req.ValidationID)
		if errors.Is(err, store.ErrNotFound) {
			e.Outcome, answer = "unknown_code", ErrCodeExpired
			return s.record(ctx, tx, e)
		}
		if err != nil {
			return err
		}
		e.AccountID = c.accountID
		if dead := c.dead(now); dead != nil {
			e.Outcome, answer = deadOutcome(dead), dead
			return s.record(ctx, tx, e)
		}
		guesses, err := wrongGuesses(ctx, tx, req.Brand, req.ID, now)
		if err != nil {
			return err
		}
		if s.Limits.GuessesPerAccount > 0 && guesses >= s.Limits.GuessesPerAccount {
			e.Outcome, answer = "account_guess_limit", ErrCodeExceeded
			return s.record(ctx, tx, e)
		}
		if !hmac.Equal([]byte(c.codeHMAC), []byte(s.codeHMAC(c.id, req.Code))) {
			if answer, err = countWrongCode(ctx, tx, c.id, now); err != nil {
				return err
			}
			e.Outcome = "wrong_code"
			if answer != ErrWrongCode {
				e.Outcome = deadOutcome(answer)
			}
			return s.record(ctx, tx, e)
		}
		res, err := tx.Exec(ctx, `UPDATE password_reset_codes SET used_at = ?
			WHERE id = ? AND used_at = 0 AND revoked_at = 0 AND attempts < ? AND expires_at > ?`,
			now.UnixMilli(), c.id, CodeGuesses, now.UnixMilli())
		if err != nil {
			return fmt.Errorf("spend code: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			if err != nil {
				return err
			}
			// Another submit of the same code won the race.
			e.Outcome, answer = "code_used", ErrCodeExpired
			return s.record(ctx, tx, e)
		}
		if _, err := tx.Exec(ctx, "UPDATE password_resets SET done_at = ? WHERE id = ?", now.UnixMilli(), c.resetID); err != nil {
			return fmt.Errorf("close reset request: %w", err)
		}
		a, err := account.ByID(ctx, tx, req.Brand, c.accountID)
		if errors.Is(err, account.ErrNotFound) {
			e.Outcome, answer = "account_gone", ErrCodeExpired
			return s.record(ctx, tx, e)
		}
		if err != nil {
			return err
		}
		token, err := s.issueToken(ctx, tx, req.Brand, a.ID, sourceCode, now)
		if err != nil {
			return err
		}
		out = Verified{ID: a.ID, Action: ActionResetPassword, Token: token, UBIDriver: a.UBIDriver}
		e.Outcome = "ok"
		return s.record(ctx, tx, e)
	})
	if err != nil {
		return Verified{}, err
	}
	if answer != nil {
		return Verified{}, answer
	}
	return out, nil
}

// countWrongCode adds a wrong guess to a live code. The answer is
// ErrWrongCode with tries left, ErrCodeExceeded for the last one, or
// ErrCodeExpired when the code died meanwhile; err is a technical error.
func countWrongCode(ctx context.Context, tx *store.Tx, id string, now time.Time) (answer, err error) {
	var attempts int
	err = tx.QueryRow(ctx, `UPDATE password_reset_codes SET attempts = attempts + 1
		WHERE id = ? AND used_at = 0 AND revoked_at = 0 AND attempts < ? AND expires_at > ? RETURNING attempts`,
		id, CodeGuesses, now.UnixMilli()).Scan(&attempts)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ErrCodeExpired, nil
	case err != nil:
		return nil, fmt.Errorf("count wrong code: %w", err)
	case attempts >= CodeGuesses:
		return ErrCodeExceeded, nil
	}
	return ErrWrongCode, nil
}

// deadOutcome is the audit outcome of a dead code.
func deadOutcome(err error) string {
	if errors.Is(err, ErrCodeExceeded) {
		return "code_exceeded"
	}
	return "code_expired"
}

// ExchangeLink redeems the link of a RESET_PSW or LOCKED_ACCOUNT email
// (account.Notify: /reset?token=…) once, for a reset token like a right
// code's, so /reset works the same way whichever proof of email brought the
// visitor there.
func (s *Service) ExchangeLink(ctx context.Context, brand, link, ip string) (Verified, error) {
	e := audit.Event{Brand: brand, IP: ip, Event: audit.RecoveryLink}
	if err := s.allow(ctx, s.Limits.Verify, e); err != nil {
		return Verified{}, err
	}
	var out Verified
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		a, err := account.ConsumeResetToken(ctx, tx, brand, link, now)
		if err != nil {
			// An invalid link rolls back: a link presented on another
			// brand's site stays usable on its own.
			return err
		}
		token, err := s.issueToken(ctx, tx, brand, a.ID, sourceLink, now)
		if err != nil {
			return err
		}
		out = Verified{ID: a.ID, Action: ActionResetPassword, Token: token, UBIDriver: a.UBIDriver}
		e.AccountID, e.Outcome = a.ID, "ok"
		return s.record(ctx, tx, e)
	})
	if errors.Is(err, account.ErrResetTokenInvalid) {
		return Verified{}, s.refuseToken(ctx, e, "invalid_link")
	}
	if err != nil {
		return Verified{}, err
	}
	return out, nil
}
