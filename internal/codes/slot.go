package codes

import (
	"context"
	"errors"
	"time"

	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Limits are the per-account rules of a flow's codes, across its rows.
type Limits struct {
	// CodesPerAccount caps the codes sent to one account.
	CodesPerAccount throttle.Rule
	// GuessesPerAccount caps the tries of one account's codes: the try
	// over it ends the code, right or wrong.
	GuessesPerAccount throttle.Rule
}

// DefaultLimits are recovery's, counted under scope ("reauth": the rules
// "reauth.codes" and "reauth.guesses").
func DefaultLimits(scope string) Limits {
	return Limits{
		CodesPerAccount:   throttle.Rule{Scope: scope + ".codes", Limit: 10, Window: time.Hour},
		GuessesPerAccount: throttle.Rule{Scope: scope + ".guesses", Limit: 20, Window: 24 * time.Hour},
	}
}

// Slot is the row of its owner's table that holds one single-use code
// (a session's re-authentication code, an account's change under way), with
// the columns code_hmac, expires_at, failures and sends. The owner writes
// the statements, so its table's SQL stays in its package; each binds Key's
// values first, in the order of its WHERE clause.
type Slot struct {
	// Sends reads the codes sent to the row: SELECT sends … WHERE <key>.
	Sends string
	// Count counts a try of the row's live code in one statement:
	// UPDATE … SET failures = failures + 1 WHERE <key> AND expires_at > ?
	// AND failures < ? RETURNING code_hmac, failures[, what the code is
	// bound to].
	Count string
	// Exceeded counts the row's live code out of tries: SELECT COUNT(*) …
	// WHERE <key> AND expires_at > ? AND failures >= ?.
	Exceeded string
	// End spends the row's tries: UPDATE … SET failures = ? WHERE <key>.
	End string
	Key []any

	// Account is whose codes and tries Limits count on Limiter.
	Account string
	Limiter *throttle.Limiter
	Limits  Limits
}

// MaySend is ErrSendLimit when the row was sent MaxSends codes already or
// the account reached Limits.CodesPerAccount; otherwise the send is counted
// toward the account's limit and the caller stores and sends its code.
func (s Slot) MaySend(ctx context.Context, tx *store.Tx) error {
	var sends int
	err := tx.QueryRow(ctx, s.Sends, s.Key...).Scan(&sends)
	if err := store.NotFound(err); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if sends >= MaxSends {
		return ErrSendLimit
	}
	if ok, err := s.Limiter.AllowTx(ctx, tx, s.Limits.CodesPerAccount, s.Account); err != nil {
		return err
	} else if !ok {
		return ErrSendLimit
	}
	return nil
}

// Try is one try of the row's code. Every try is counted before the code
// is compared, in one statement (concurrent tries cannot all see a count
// under the limit); then the account's tries across its codes are
// counted, and over Limits.GuessesPerAccount the code ends, right or wrong.
// want is the HMAC the typed code must have, called once Count's further
// columns are read into bound (a code bound to a new address compares with
// the address stored beside it).
//
// answer is nil for the right code (the caller spends it in tx), else
// ErrWrong, ErrExceeded or ErrExpired; err is the store's.
func (s Slot) Try(ctx context.Context, tx *store.Tx, now time.Time, want func() string, bound ...any) (answer, err error) {
	args := append(append([]any{}, s.Key...), now.UnixMilli(), MaxFailures)
	var stored string
	var failures int
	err = tx.QueryRow(ctx, s.Count, args...).Scan(append([]any{&stored, &failures}, bound...)...)
	if errors.Is(store.NotFound(err), store.ErrNotFound) {
		var n int
		if err := tx.QueryRow(ctx, s.Exceeded, args...).Scan(&n); err != nil {
			return nil, err
		}
		if n > 0 {
			return ErrExceeded, nil
		}
		return ErrExpired, nil
	}
	if err != nil {
		return nil, err
	}
	ok, err := s.Limiter.AllowTx(ctx, tx, s.Limits.GuessesPerAccount, s.Account)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		if _, err := tx.Exec(ctx, s.End, append([]any{MaxFailures}, s.Key...)...); err != nil {
			return nil, err
		}
		return ErrExceeded, nil
	case !Equal(stored, want()):
		if failures >= MaxFailures {
			return ErrExceeded, nil
		}
		return ErrWrong, nil
	}
	return nil, nil
}

// Outcome is the audit outcome of Try's answer.
func Outcome(answer error) string { return outcomes[answer] }

var outcomes = map[error]string{nil: "ok", ErrWrong: "wrong_code", ErrExceeded: "exceeded", ErrExpired: "expired"}
