package registration

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"guichet/internal/store"
)

// States of a registration (spec §4.2).
const (
	// stateIdentified: options offered (EMAIL, SMS, PIN, NONE).
	stateIdentified = "identified"
	// stateCodeSent: a code went by the chosen EMAIL or SMS option.
	stateCodeSent = "code_sent"
	// stateAskEmail: an email is asked for (ask-email or ask-username).
	stateAskEmail = "ask_email"
	// stateEmailCodeSent: a code went to the email submitted.
	stateEmailCodeSent = "email_code_sent"
	// stateEmailLinkSent: a link went to the email submitted (the brand
	// proves an email by link).
	stateEmailLinkSent = "email_link_sent"
	// stateAskPassword: a UBI driver links the policy with the password of
	// the policyholder account of the email on file.
	stateAskPassword = "ask_password"
	// stateVerified: identity proved, the account may be created.
	stateVerified = "verified"
	stateClosed   = "closed"
)

// Methods of spec §3's two-factor option besides identity's (MethodEmail,
// MethodSMS, MethodPIN).
const (
	MethodNone         = "NONE"
	MethodAskEmail     = "ask-email"
	MethodAskPassword  = "ask-password"
	MethodAskUsername  = "ask-username"
	MethodAskEmailCode = "ask-email-code"
	// MethodAskEmailLink: a link went to the email submitted; its token
	// is the option's value.
	MethodAskEmailLink = "ask-email-link"
)

// Option is one two-factor option (spec §3): the id the validation call
// names, its method and what the visitor sees of the value.
type Option struct {
	ID          string `json:"id"`
	Method      string `json:"method"`
	MaskedValue string `json:"maskedValue"`
}

// registration is one row of registrations.
type registration struct {
	id, brand, personID, state string
	options                    []Option
	chosen                     string
	email, pendingEmail        string
	codeHMAC                   string
	codeExpiresAt              int64
	codeAttempts               int
	sends                      int
	pinAttempts                int
	createFailures             int
	language, province         string
	expiresAt                  int64
	closedAt                   int64
}

func (r *registration) option(id string) (Option, bool) {
	for _, o := range r.options {
		if o.ID == id {
			return o, true
		}
	}
	return Option{}, false
}

// live reports whether the registration may still move at now.
func (r *registration) live(now time.Time) bool {
	return r.state != stateClosed && now.UnixMilli() < r.expiresAt
}

const selectRegistration = `SELECT id, brand, person_id, state, options, chosen, email, pending_email, code_hmac,
	code_expires_at, code_attempts, sends, pin_attempts, create_failures, language, province, expires_at
	FROM registrations WHERE id = ? AND brand = ?`

// querier is a *store.DB or a *store.Tx.
type querier interface {
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

func load(ctx context.Context, q querier, brand, id string) (registration, error) {
	var r registration
	var options string
	err := q.QueryRow(ctx, selectRegistration, id, brand).Scan(&r.id, &r.brand, &r.personID, &r.state, &options,
		&r.chosen, &r.email, &r.pendingEmail, &r.codeHMAC, &r.codeExpiresAt, &r.codeAttempts, &r.sends,
		&r.pinAttempts, &r.createFailures, &r.language, &r.province, &r.expiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return registration{}, ErrNotFound
	}
	if err != nil {
		return registration{}, fmt.Errorf("load registration: %w", err)
	}
	if err := json.Unmarshal([]byte(options), &r.options); err != nil {
		return registration{}, fmt.Errorf("registration options: %w", err)
	}
	return r, nil
}

func insert(ctx context.Context, tx *store.Tx, r registration, now time.Time) error {
	options, err := json.Marshal(r.options)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO registrations (id, brand, person_id, state, options, email, language, province,
		created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.id, r.brand, r.personID, r.state,
		string(options), r.email, r.language, r.province, now.UnixMilli(), r.expiresAt)
	if err != nil {
		return fmt.Errorf("insert registration: %w", err)
	}
	return nil
}

// closeRegistration closes r (as move does: false when another call moved
// it meanwhile).
func closeRegistration(ctx context.Context, tx *store.Tx, r registration, now time.Time) (bool, error) {
	next := r
	next.state, next.closedAt = stateClosed, now.UnixMilli()
	return move(ctx, tx, next, r)
}

// move writes r's state, options, chosen option, emails and code if the
// row is still in the state and code `from` was read with: false when
// another call moved it meanwhile (a code is spent once, under concurrency).
func move(ctx context.Context, tx *store.Tx, r registration, from registration) (bool, error) {
	options, err := json.Marshal(r.options)
	if err != nil {
		return false, err
	}
	res, err := tx.Exec(ctx, `UPDATE registrations SET state = ?, options = ?, chosen = ?, email = ?, pending_email = ?,
		code_hmac = ?, code_expires_at = ?, code_attempts = ?, sends = ?, closed_at = ?
		WHERE id = ? AND state = ? AND code_hmac = ? AND sends = ?`,
		r.state, string(options), r.chosen, r.email, r.pendingEmail, r.codeHMAC, r.codeExpiresAt, r.codeAttempts,
		r.sends, r.closedAt, r.id, from.state, from.codeHMAC, from.sends)
	if err != nil {
		return false, fmt.Errorf("move registration: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// count adds one to a counter column (code_attempts, pin_attempts,
// create_failures) below limit, if the row is still in state and code
// `from` was read with; it returns the new value, or 0 when nothing moved.
func count(ctx context.Context, tx *store.Tx, column string, from registration, limit int) (int, error) {
	var n int
	var q string
	switch column {
	case "code_attempts":
		q = `UPDATE registrations SET code_attempts = code_attempts + 1
			WHERE id = ? AND state = ? AND code_hmac = ? AND code_attempts < ? RETURNING code_attempts`
	case "pin_attempts":
		q = `UPDATE registrations SET pin_attempts = pin_attempts + 1
			WHERE id = ? AND state = ? AND code_hmac = ? AND pin_attempts < ? RETURNING pin_attempts`
	case "create_failures":
		q = `UPDATE registrations SET create_failures = create_failures + 1
			WHERE id = ? AND state = ? AND code_hmac = ? AND create_failures < ? RETURNING create_failures`
	default:
		return 0, fmt.Errorf("count %s: unknown counter", column)
	}
	err := tx.QueryRow(ctx, q, from.id, from.state, from.codeHMAC, limit).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", column, err)
	}
	return n, nil
}
