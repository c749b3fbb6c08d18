package smartreg

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"guichet/internal/store"
)

// Entry is one step of a session's history (for back).
type Entry struct {
	Step string `json:"step"`
	Page string `json:"page"`
}

// Option is one verification option of the identified person.
type Option struct {
	ID         string `json:"id"`
	OptionName string `json:"optionName"`
	Data       string `json:"data"`
}

// session is one row of smart_registrations.
type session struct {
	id, brand, accountType string
	step, page             string
	history                []Entry
	personID               string
	options                []Option
	// chosen is the option a code went to (or PIN); chosenEmail when the
	// code went to pendingEmail, the username being chosen.
	chosen                         string
	email                          string // the username candidate
	emailVerified                  bool   // a code sent to email was verified
	pendingEmail                   string // the email a username code went to
	codeHMAC                       string
	codeExpiresAt                  int64
	codeAttempts, sends            int
	identifyFailures               int
	createFailures                 int
	redirectNumber, redirectPostal string
	accountID                      string
	language, province             string
	version                        int
	expiresAt, closedAt            int64
}

// chosenEmail marks a code sent to the email being chosen as username.
const chosenEmail = "username-email"

func (s *session) option(id string) (Option, bool) {
	i := slices.IndexFunc(s.options, func(o Option) bool { return o.ID == id })
	if i < 0 {
		return Option{}, false
	}
	return s.options[i], true
}

// live: the session may still be served at now.
func (s *session) live(now time.Time) bool {
	return s.closedAt == 0 && now.UnixMilli() < s.expiresAt
}

// identified: the person's identity was proven (a right code or PIN).
func (s *session) identified() bool {
	switch s.step {
	case StepConfirmUsername, StepAskNewUsername, StepCreate, StepDone:
		return true
	}
	return s.step == StepVerify && s.chosen == chosenEmail
}

const selectSession = `SELECT id, brand, account_type, step, page, history, COALESCE(person_id, ''), options, chosen,
	email, email_verified, pending_email, code_hmac, code_expires_at, code_attempts, sends, identify_failures,
	create_failures, redirect_number, redirect_postal, account_id, language, province, version, expires_at, closed_at
	FROM smart_registrations WHERE id = ? AND brand = ?`

type querier interface {
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

// errGone: no row has that id in the brand.
var errGone = errors.New("smartreg: no such session")

func load(ctx context.Context, q querier, brand, id string) (session, error) {
	var s session
	var history, options string
	var verified int
	err := q.QueryRow(ctx, selectSession, id, brand).Scan(&s.id, &s.brand, &s.accountType, &s.step, &s.page, &history,
		&s.personID, &options, &s.chosen, &s.email, &verified, &s.pendingEmail, &s.codeHMAC, &s.codeExpiresAt,
		&s.codeAttempts, &s.sends, &s.identifyFailures, &s.createFailures, &s.redirectNumber, &s.redirectPostal,
		&s.accountID, &s.language, &s.province, &s.version, &s.expiresAt, &s.closedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return session{}, errGone
	}
	if err != nil {
		return session{}, fmt.Errorf("load smart registration: %w", err)
	}
	s.emailVerified = verified != 0
	if err := json.Unmarshal([]byte(history), &s.history); err != nil {
		return session{}, fmt.Errorf("smart registration history: %w", err)
	}
	if err := json.Unmarshal([]byte(options), &s.options); err != nil {
		return session{}, fmt.Errorf("smart registration options: %w", err)
	}
	return s, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func insert(ctx context.Context, db *store.DB, s session, now time.Time) error {
	history, err := json.Marshal(s.history)
	if err != nil {
		return err
	}
	_, err = db.Exec(ctx, `INSERT INTO smart_registrations (id, brand, account_type, step, page, history, language,
		province, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, s.id, s.brand, s.accountType, s.step,
		s.page, string(history), s.language, s.province, now.UnixMilli(), s.expiresAt)
	if err != nil {
		return fmt.Errorf("insert smart registration: %w", err)
	}
	return nil
}

// save writes next if the row is still the version `from` was read at
// (false when another call moved the session first: a code is spent once,
// one create wins), and bumps the version.
func save(ctx context.Context, tx *store.Tx, next, from session) (bool, error) {
	history, err := json.Marshal(next.history)
	if err != nil {
		return false, err
	}
	options, err := json.Marshal(next.options)
	if err != nil {
		return false, err
	}
	verified := 0
	if next.emailVerified {
		verified = 1
	}
	res, err := tx.Exec(ctx, `UPDATE smart_registrations SET step = ?, page = ?, history = ?, person_id = ?, options = ?,
		chosen = ?, email = ?, email_verified = ?, pending_email = ?, code_hmac = ?, code_expires_at = ?,
		code_attempts = ?, sends = ?, identify_failures = ?, create_failures = ?, redirect_number = ?,
		redirect_postal = ?, account_id = ?, version = ?, expires_at = ?, closed_at = ?
		WHERE id = ? AND version = ?`,
		next.step, next.page, string(history), nullable(next.personID), string(options), next.chosen, next.email,
		verified, next.pendingEmail, next.codeHMAC, next.codeExpiresAt, next.codeAttempts, next.sends,
		next.identifyFailures, next.createFailures, next.redirectNumber, next.redirectPostal, next.accountID,
		from.version+1, next.expiresAt, next.closedAt, from.id, from.version)
	if err != nil {
		return false, fmt.Errorf("save smart registration: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
