package account

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"guichet/internal/store"
)

// What the staff console (internal/console) reads and changes of accounts
// and their failed sign-ins beyond the customers' own flows.

// BrandOf returns the brand of the account id, on whatever brand
// (ErrNotFound when none).
func BrandOf(ctx context.Context, q Querier, id string) (string, error) {
	var b string
	if err := q.QueryRow(ctx, "SELECT brand FROM accounts WHERE id = ?", id).Scan(&b); err != nil {
		return "", store.NotFound(err)
	}
	return b, nil
}

// RowsQuerier is a *store.DB or a *store.Tx (a read of many rows).
type RowsQuerier interface {
	Query(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// StaffSearch is what a staff search matches.
type StaffSearch struct {
	// Prefix is matched, ignoring case, against the start of the email,
	// the first, last and full name.
	Prefix string
	// Phone is a 10-digit phone number the account's must equal ("": none).
	Phone string
	// IDs are accounts found whatever the rest says (the holders of a
	// policy number).
	IDs []string
	// Brands narrows the search (none: every brand).
	Brands []string
	Limit  int
}

// SearchForStaff returns the accounts s matches, by email then brand, at most
// s.Limit of them, in one query.
func SearchForStaff(ctx context.Context, q RowsQuerier, s StaffSearch) ([]Account, error) {
	like := likePrefix(s.Prefix)
	where := `(email_normalized LIKE ? ESCAPE '\' OR LOWER(first_name) LIKE ? ESCAPE '\'
		OR LOWER(last_name) LIKE ? ESCAPE '\' OR LOWER(first_name || ' ' || last_name) LIKE ? ESCAPE '\'`
	args := []any{like, like, like, like}
	if len(s.IDs) > 0 {
		where += " OR id IN (" + inPlaceholders(len(s.IDs)) + ")"
		for _, id := range s.IDs {
			args = append(args, id)
		}
	}
	if s.Phone != "" {
		where += " OR phone = ?"
		args = append(args, s.Phone)
	}
	where += ")"
	if len(s.Brands) > 0 {
		where += " AND brand IN (" + inPlaceholders(len(s.Brands)) + ")"
		for _, b := range s.Brands {
			args = append(args, b)
		}
	}
	rows, err := q.Query(ctx, selectAccount+"WHERE "+where+" ORDER BY email_normalized, brand LIMIT ?", append(args, s.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("account search: %w", err)
	}
	return store.Collect(rows, func(rows *sql.Rows) (Account, error) {
		r, err := scanRecord(rows)
		return r.Account, err
	})
}

// likePrefix is a LIKE pattern matching what starts with s.
func likePrefix(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(strings.ToLower(s)) + "%"
}

func inPlaceholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// StaffFacts are what staff see of an account beyond Account.
type StaffFacts struct {
	// TemporaryExpiresAt is when the temporary password stops working
	// (zero: none was ever issued).
	TemporaryExpiresAt time.Time
	// FailedAttempts counts the failed sign-ins on record.
	FailedAttempts int
}

// StaffFactsOf reads the account id's StaffFacts in one query.
func StaffFactsOf(ctx context.Context, q Querier, id string) (StaffFacts, error) {
	var f StaffFacts
	var tempExpires int64
	err := q.QueryRow(ctx, `SELECT temp_expires_at, (SELECT COUNT(*) FROM login_failures WHERE account_id = ?)
		FROM accounts WHERE id = ?`, id, id).Scan(&tempExpires, &f.FailedAttempts)
	if err != nil {
		return f, fmt.Errorf("account facts: %w", err)
	}
	f.TemporaryExpiresAt = store.FromMillis(tempExpires)
	return f, nil
}

// Unlock ends the staff lock (status locked) and the timed lock of failed
// attempts and forgets the failed attempts; an account holding a live
// temporary password gets back the temporary status. changed is false when
// there was nothing to undo.
func Unlock(ctx context.Context, tx *store.Tx, id string, now time.Time) (changed bool, err error) {
	var failures int
	if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM login_failures WHERE account_id = ?", id).Scan(&failures); err != nil {
		return false, err
	}
	res, err := tx.Exec(ctx, `UPDATE accounts SET status = CASE WHEN status <> ? THEN status
		WHEN temp_hash <> '' AND temp_expires_at > ? THEN ? ELSE ? END,
		locked_until = 0, lock_level = 0, updated_at = ?
		WHERE id = ? AND (status = ? OR locked_until > ? OR lock_level > 0)`,
		string(Locked), now.UnixMilli(), string(Temporary), string(Active), now.UnixMilli(),
		id, string(Locked), now.UnixMilli())
	if err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM login_failures WHERE account_id = ?", id); err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0 || failures > 0, nil
}
