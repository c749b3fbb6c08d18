// Package account holds the policyholders' online accounts of every brand:
// their password (argon2id), the temporary passwords staff issue, the
// lockout after failed attempts, the one-time login tickets that hand a
// checked password over to the web SSO form, the password-reset link tokens
// and the sign-in API of spec §7 (find, temporary, authentication,
// notification).
//
// Size: about 2,200 lines, past the 2,000 a newcomer reads in an afternoon,
// because the owner of the accounts table also holds the admission of
// password hashes (hash.go): every password check of every flow waits there,
// and its ErrBusy answer and counters are the sign-in's. Its files split it
// by part: account.go (rows), login.go, temporary.go, notification.go,
// hash.go and admission.go (its per-address share), lookup.go and
// staffview.go (what other domains read).
package account

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"guichet/internal/codes"
	"guichet/internal/store"
)

// Status is an account's state.
type Status string

const (
	// Active accounts sign in with their password.
	Active Status = "active"
	// Temporary accounts hold a temporary password issued by staff (or none
	// any more, after three wrong tries) and must reset their password.
	Temporary Status = "temporary"
	// Locked accounts cannot sign in until staff or a timed lock release
	// them; they answer exactly like a wrong password.
	Locked Status = "locked"
)

// Account is an online account, without its secrets.
type Account struct {
	ID          string
	Brand       string
	Email       string // as typed at creation; compare with NormalizeEmail
	Status      Status
	UBIDriver   bool
	FirstName   string
	LastName    string
	Language    string // en | fr
	PostalCode  string // A9A 9A9
	Phone       string // 10 digits
	DateOfBirth string // YYYY-MM-DD
	CreatedAt   time.Time
	// LockedUntil is the end of a timed lock (zero: none). A Locked status
	// is locked until staff release it, whatever LockedUntil says.
	LockedUntil time.Time
	// DisabledAt is when staff disabled the account (zero: not disabled):
	// the right password answers ErrDisabled, whatever the status.
	DisabledAt time.Time
}

// MessageLanguage is the language of a message to the account: page (the
// language the visitor is reading the site in) when it is one of spec §1's
// (en, fr), else the account's (fallback en). "" asks for the account's.
func (a Account) MessageLanguage(page string) string {
	switch {
	case page == "en" || page == "fr":
		return page
	case a.Language == "fr":
		return "fr"
	}
	return "en"
}

// record is an account row with what only this package may see.
type record struct {
	Account
	passwordHash  string
	tempHash      string
	tempExpiresAt time.Time
	tempFailures  int
	lockLevel     int
	// failures: login_failures has rows of the account (lockRow only).
	failures bool
}

// lockedAt reports whether the account refuses sign-in at now.
func (r *record) lockedAt(now time.Time) bool {
	return r.Status == Locked || now.Before(r.LockedUntil)
}

// ErrNotFound is returned when no account matches.
var ErrNotFound = store.ErrNotFound

// NormalizeEmail is the form emails are unique and looked up in: trimmed and
// lower-cased.
func NormalizeEmail(email string) string {
	return strings.ToLower(strings.TrimSpace(email))
}

// Querier is a *store.DB or a *store.Tx.
type Querier interface {
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

const accountColumns = `SELECT id, brand, email, status, ubi_driver, first_name, last_name, language,
	postal_code, phone, date_of_birth, created_at, locked_until, disabled_at,
	password_hash, temp_hash, temp_expires_at, temp_failures, lock_level`

const selectAccount = accountColumns + " FROM accounts "

// scanRecord reads a row of accountColumns, then extra.
func scanRecord(row interface{ Scan(dest ...any) error }, extra ...any) (record, error) {
	var r record
	var status string
	var ubi int
	var created, lockedUntil, disabledAt, tempExpires int64
	err := row.Scan(append([]any{&r.ID, &r.Brand, &r.Email, &status, &ubi, &r.FirstName, &r.LastName, &r.Language,
		&r.PostalCode, &r.Phone, &r.DateOfBirth, &created, &lockedUntil, &disabledAt,
		&r.passwordHash, &r.tempHash, &tempExpires, &r.tempFailures, &r.lockLevel}, extra...)...)
	if err != nil {
		return record{}, store.NotFound(err)
	}
	r.Status, r.UBIDriver = Status(status), ubi != 0
	r.CreatedAt = time.UnixMilli(created).UTC()
	r.LockedUntil = store.FromMillis(lockedUntil)
	r.DisabledAt = store.FromMillis(disabledAt)
	r.tempExpiresAt = store.FromMillis(tempExpires)
	return r, nil
}

// ByID returns a brand's account by id; an account of another brand is not
// found.
func ByID(ctx context.Context, q Querier, brand, id string) (Account, error) {
	r, err := recordByID(ctx, q, brand, id)
	return r.Account, err
}

// ByEmail returns a brand's account by email, ignoring case.
func ByEmail(ctx context.Context, q Querier, brand, email string) (Account, error) {
	r, err := recordByEmail(ctx, q, brand, email)
	return r.Account, err
}

func recordByID(ctx context.Context, q Querier, brand, id string) (record, error) {
	if id == "" || len(id) > 64 {
		return record{}, ErrNotFound
	}
	return scanRecord(q.QueryRow(ctx, selectAccount+"WHERE id = ? AND brand = ?", id, brand))
}

func recordByEmail(ctx context.Context, q Querier, brand, email string) (record, error) {
	n := NormalizeEmail(email)
	if n == "" || len(n) > 254 {
		return record{}, ErrNotFound
	}
	return scanRecord(q.QueryRow(ctx, selectAccount+"WHERE brand = ? AND email_normalized = ?", brand, n))
}

// lockRow re-reads an account inside a transaction, holding its row lock on
// PostgreSQL so concurrent attempts on one account count one after the other
// (SQLite transactions here are IMMEDIATE: one writer at a time already),
// and whether it has failed attempts on record (failures): a success
// clears them only then, without a statement otherwise (issue 34).
func lockRow(ctx context.Context, tx *store.Tx, id string) (record, error) {
	q := accountColumns + `, EXISTS (SELECT 1 FROM login_failures f WHERE f.account_id = accounts.id)
		FROM accounts WHERE id = ?`
	if tx.Dialect == store.Postgres {
		q += " FOR UPDATE OF accounts"
	}
	var failures bool
	r, err := scanRecord(tx.QueryRow(ctx, q, id), &failures)
	r.failures = failures
	return r, err
}

// singleUse is a table of single-use tokens, each naming an account of a
// brand until it expires.
type singleUse struct {
	del     string // DELETE … RETURNING account_id, brand, expires_at of a token_hash
	what    string // the token's name in errors
	invalid error  // the answer to an unknown, expired or foreign token
}

var (
	loginTickets = singleUse{"DELETE FROM login_tickets WHERE token_hash = ? RETURNING account_id, brand, expires_at",
		"login ticket", ErrTicketInvalid}
	resetTokens = singleUse{"DELETE FROM password_reset_tokens WHERE token_hash = ? RETURNING account_id, brand, expires_at",
		"reset token", ErrResetTokenInvalid}
)

// consume deletes token in the caller's transaction, whatever happens next
// (single use, even under concurrent calls), and returns the account id it
// names when it is unexpired at now and of brand.
func (k singleUse) consume(ctx context.Context, tx *store.Tx, brand, token string, now time.Time) (string, error) {
	if token == "" || len(token) > 64 {
		return "", k.invalid
	}
	var accountID, tokenBrand string
	var expires int64
	err := tx.QueryRow(ctx, k.del, codes.TokenHash(token)).Scan(&accountID, &tokenBrand, &expires)
	if errors.Is(store.NotFound(err), store.ErrNotFound) {
		return "", k.invalid
	}
	if err != nil {
		return "", fmt.Errorf("consume %s: %w", k.what, err)
	}
	if tokenBrand != brand || now.UnixMilli() >= expires {
		return "", k.invalid
	}
	return accountID, nil
}

// inRowTx runs fn in a transaction holding the row lock of account id
// (lockRow), with the record as it is now and the time it began.
func (s *Service) inRowTx(ctx context.Context, id string, fn func(tx *store.Tx, now time.Time, cur record) error) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		cur, err := lockRow(ctx, tx, id)
		if err != nil {
			return err
		}
		return fn(tx, now, cur)
	})
}

// ErrInvalid is returned by Insert for an account missing what it needs.
var ErrInvalid = errors.New("account: invalid account")

// ErrEmailTaken is returned by Insert when the brand already has an account
// with that email (ignoring case).
var ErrEmailTaken = errors.New("account: email already used")

// Insert stores a new account with a password hash made by Hasher.Hash (or
// none, for an account that only holds a temporary password) and returns it
// with its new random id. Status defaults to Active, Language to "en".
func Insert(ctx context.Context, tx *store.Tx, a Account, passwordHash string, now time.Time) (Account, error) {
	if a.Brand == "" || NormalizeEmail(a.Email) == "" {
		return Account{}, fmt.Errorf("%w: brand and email are required", ErrInvalid)
	}
	if a.Status == "" {
		a.Status = Active
	}
	if a.Status != Active && a.Status != Temporary && a.Status != Locked {
		return Account{}, fmt.Errorf("%w: status %q", ErrInvalid, a.Status)
	}
	if a.Language == "" {
		a.Language = "en"
	}
	id, err := randomToken(16)
	if err != nil {
		return Account{}, err
	}
	a.ID = id
	a.Email = strings.TrimSpace(a.Email)
	a.CreatedAt = time.UnixMilli(now.UnixMilli()).UTC()
	ubi := 0
	if a.UBIDriver {
		ubi = 1
	}
	_, err = tx.Exec(ctx, `INSERT INTO accounts (id, brand, email, email_normalized, password_hash, status,
		locked_until, ubi_driver, first_name, last_name, language, postal_code, phone, date_of_birth,
		created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.Brand, a.Email, NormalizeEmail(a.Email), passwordHash, string(a.Status),
		store.Millis(a.LockedUntil), ubi, a.FirstName, a.LastName, a.Language, a.PostalCode, a.Phone, a.DateOfBirth,
		now.UnixMilli(), now.UnixMilli())
	if store.IsUniqueViolation(err) {
		return Account{}, ErrEmailTaken
	}
	if err != nil {
		return Account{}, fmt.Errorf("insert account: %w", err)
	}
	return a, nil
}

// Lock locks an account until staff release it (status Locked), or, when
// until is not zero, until that time whatever its status (the lock the
// failed attempts set, or spec §9's 24 hours after a wrong phone number).
// A locked account answers exactly like a wrong password.
func Lock(ctx context.Context, tx *store.Tx, id string, until, now time.Time) error {
	q, args := "UPDATE accounts SET status = ?, updated_at = ? WHERE id = ?", []any{string(Locked), now.UnixMilli(), id}
	if !until.IsZero() {
		q, args = "UPDATE accounts SET locked_until = ?, updated_at = ? WHERE id = ?", []any{store.Millis(until), now.UnixMilli(), id}
	}
	res, err := tx.Exec(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("lock account: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// SetTemporaryPassword gives the account a temporary password (hash from
// Hasher.Hash) valid until expires: the account must reset its password.
func SetTemporaryPassword(ctx context.Context, tx *store.Tx, id, tempHash string, expires, now time.Time) error {
	res, err := tx.Exec(ctx, `UPDATE accounts SET status = ?, temp_hash = ?, temp_expires_at = ?, temp_failures = 0,
		updated_at = ? WHERE id = ?`, string(Temporary), tempHash, store.Millis(expires), now.UnixMilli(), id)
	if err != nil {
		return fmt.Errorf("set temporary password: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// randomToken returns n random bytes, URL-safe base64 without padding.
func randomToken(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
