package account

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

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

// searchKeys are what Prefix is matched against, each read as a range of
// an index of its own (migration 0025), in the "C" collation on PostgreSQL
// so that the range is the prefix's bytes whatever the database's.
var searchKeys = []struct{ sqlite, postgres string }{
	{"email_normalized", `email_normalized COLLATE "C"`},
	{"LOWER(first_name)", `(LOWER(first_name)) COLLATE "C"`},
	{"LOWER(last_name)", `(LOWER(last_name)) COLLATE "C"`},
	{"LOWER(first_name || ' ' || last_name)", `(LOWER(first_name || ' ' || last_name)) COLLATE "C"`},
}

// SearchForStaff returns the accounts s matches, by email then brand, at
// most s.Limit of them, in one query whose cost follows s.Limit, not the
// number of accounts: each kind of match (the email, each name, the phone)
// reads its first s.Limit rows in its index's order, and the union of
// those (with s.IDs) is ordered and cut. When more than s.Limit accounts
// match, the ones shown are the first by email among those candidates:
// the first s.Limit by email always are (staff narrow the search).
func SearchForStaff(ctx context.Context, db *store.DB, s StaffSearch) ([]Account, error) {
	query, args := staffSearch(db.Dialect, s)
	rows, err := db.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("account search: %w", err)
	}
	return store.Collect(rows, func(rows *sql.Rows) (Account, error) {
		r, err := scanRecord(rows)
		return r.Account, err
	})
}

// staffSearch is SearchForStaff's query on dialect d.
func staffSearch(d store.Dialect, s StaffSearch) (string, []any) {
	// The brands are a filter, not an index condition: through
	// accounts_brand_email (its only prefix is the brand) SQLite's planner,
	// which keeps no statistics, would read every account of the brands.
	brands, brandArgs := "", []any{}
	if len(s.Brands) > 0 {
		brands = " AND (brand IN (" + store.Placeholders(len(s.Brands)) + ")) = TRUE"
		for _, b := range s.Brands {
			brandArgs = append(brandArgs, b)
		}
	}
	var kinds []string
	var args []any
	// candidates adds the accounts where matches, at most s.Limit of
	// them, the first in order (by the index the kind reads, so nothing is
	// sorted); order "" adds them all (the holders of one policy).
	candidates := func(where, order string, whereArgs ...any) {
		kind := fmt.Sprintf("SELECT id FROM accounts WHERE %s%s", where, brands)
		args = append(append(args, whereArgs...), brandArgs...)
		if order != "" {
			kind = fmt.Sprintf("SELECT id FROM (%s ORDER BY %s LIMIT ?) AS k%d", kind, order, len(kinds))
			args = append(args, s.Limit)
		}
		kinds = append(kinds, kind)
	}
	from, to, bounded := prefixRange(strings.ToLower(s.Prefix))
	for _, k := range searchKeys {
		key := k.sqlite
		if d == store.Postgres {
			key = k.postgres
		}
		if bounded {
			candidates(key+" >= ? AND "+key+" < ?", key, from, to)
		} else {
			candidates(key+" >= ?", key, from)
		}
	}
	if s.Phone != "" {
		candidates("phone = ?", "phone", s.Phone)
	}
	if len(s.IDs) > 0 {
		ids := make([]any, len(s.IDs))
		for i, id := range s.IDs {
			ids[i] = id
		}
		candidates("id IN ("+store.Placeholders(len(s.IDs))+")", "", ids...)
	}
	return selectAccount + "WHERE id IN (" + strings.Join(kinds, " UNION ") + ") ORDER BY email_normalized, brand LIMIT ?",
		append(args, s.Limit)
}

// prefixRange is the range [from, to) of the strings that start with p, in
// byte order (which is code point order in UTF-8): p, and p with its last
// character one higher. bounded is false when no string is above the range
// (p is empty or ends in the highest code points).
func prefixRange(p string) (from, to string, bounded bool) {
	rs := []rune(p)
	for len(rs) > 0 {
		last := rs[len(rs)-1] + 1
		if last == 0xD800 { // the surrogates are not characters
			last = 0xE000
		}
		if last <= utf8.MaxRune {
			rs[len(rs)-1] = last
			return p, string(rs), true
		}
		rs = rs[:len(rs)-1]
	}
	return p, "", false
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
