// Package throttle limits how often a subject (a client IP, an account) may do
// something, with counters kept in the database so that every instance behind
// a load balancer shares them (design.md "Storage").
//
// The count is a sliding window estimated from two fixed windows: the hits of
// the current window plus the previous window's hits weighted by how much of
// it still overlaps the sliding window. Denied attempts count too, so a client
// that keeps hammering stays limited.
package throttle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"time"
	"unicode/utf8"

	"guichet/internal/store"
)

// Rule is one limit: at most Limit hits per Window for a subject of Scope.
type Rule struct {
	Scope  string
	Limit  int
	Window time.Duration
}

// Limiter checks rules against the shared counters.
type Limiter struct {
	db  *store.DB
	now func() time.Time
}

// New returns a limiter on db; now is the clock (time.Now in production).
func New(db *store.DB, now func() time.Time) *Limiter {
	return &Limiter{db: db, now: now}
}

// maxSubject bounds the stored subject: an IP or an account id is short;
// anything longer (or not UTF-8) is stored as its SHA-256.
const maxSubject = 128

// ClientKey is the subject of a per-client rule for the client address ip:
// an IPv4 address as it is, an IPv6 address as its /64. A subscriber is
// given a whole /64 (or more), so counting its addresses one by one would
// let it try 2^64 times. Anything that is not an address is kept as it is.
func ClientKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a.WithZone(""), 64).Masked().String()
}

// Allow counts one hit of subject under rule, in a transaction of its own,
// and reports whether it is within the limit.
func (l *Limiter) Allow(ctx context.Context, rule Rule, subject string) (bool, error) {
	var ok bool
	err := l.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		ok, err = l.AllowTx(ctx, tx, rule, subject)
		return err
	})
	return ok, err
}

// AllowTx is Allow in the caller's transaction (the hit counts only if it
// commits). A rule with Limit <= 0 or Window <= 0 allows everything without
// counting.
func (l *Limiter) AllowTx(ctx context.Context, tx *store.Tx, rule Rule, subject string) (bool, error) {
	wait, err := l.CheckTx(ctx, tx, rule, subject)
	return wait == 0, err
}

// Check is Allow that tells, on a refusal, how long until a hit would be
// allowed again: zero when this hit is within the limit.
// The hit is one statement, run as a unit of its own (store.ScanOne: on
// PostgreSQL no BEGIN and COMMIT around it).
func (l *Limiter) Check(ctx context.Context, rule Rule, subject string) (time.Duration, error) {
	return l.check(rule, subject, func(q string, args []any, dest ...any) error {
		return l.db.ScanOne(ctx, q, args, dest...)
	})
}

// CheckTx is Check in the caller's transaction, as AllowTx. The wait
// assumes no other hit meanwhile: what a client that waits as told sees
// (the Retry-After of a 429), while one that keeps trying keeps counting.
func (l *Limiter) CheckTx(ctx context.Context, tx *store.Tx, rule Rule, subject string) (time.Duration, error) {
	return l.check(rule, subject, func(q string, args []any, dest ...any) error {
		return tx.QueryRow(ctx, q, args...).Scan(dest...)
	})
}

// check counts the hit with scan, which runs the one statement it is given
// (in the caller's transaction or alone) and scans its row.
func (l *Limiter) check(rule Rule, subject string, scan func(q string, args []any, dest ...any) error) (time.Duration, error) {
	if rule.Limit <= 0 || rule.Window <= 0 {
		return 0, nil
	}
	if len(subject) > maxSubject || !utf8.ValidString(subject) {
		sum := sha256.Sum256([]byte(subject))
		subject = "sha256:" + hex.EncodeToString(sum[:])
	}
	now := l.now().UnixMilli()
	win := rule.Window.Milliseconds()
	start := now - now%win
	// One statement (one round trip, issue 34): the hit, and the previous
	// window's count read by the subquery (0 without a row; the statement
	// does not change that row, so both databases read it as it was).
	var current, previous int64
	err := scan(`INSERT INTO rate_limits (scope, subject, window_start, hits, expires_at)
		VALUES (?, ?, ?, 1, ?)
		ON CONFLICT (scope, subject, window_start) DO UPDATE SET hits = rate_limits.hits + 1
		RETURNING hits, COALESCE((SELECT p.hits FROM rate_limits p
			WHERE p.scope = ? AND p.subject = ? AND p.window_start = ?), 0)`,
		[]any{rule.Scope, subject, start, start + 2*win, rule.Scope, subject, start - win}, &current, &previous)
	if err != nil {
		return 0, fmt.Errorf("throttle %s: %w", rule.Scope, err)
	}
	// current + previous * (win - elapsed) / win <= limit, multiplied by win
	// to stay exact in integers.
	elapsed := now - start
	limit := int64(rule.Limit)
	if current*win+previous*(win-elapsed) <= limit*win {
		return 0, nil
	}
	refusals.WithLabelValues(rule.Scope).Inc()
	return time.Duration(waitMillis(current, previous, elapsed, win, limit)) * time.Millisecond, nil
}

// waitMillis is the least wait after which one more hit is within the limit,
// with no hit meanwhile, at least 1 ms. A hit at elapsed t of this window
// needs (current+1)*win + previous*(win-t) <= limit*win; failing that, a hit
// at t of the next window needs win + current*(win-t) <= limit*win, which
// holds at t = win at the latest.
func waitMillis(current, previous, elapsed, win, limit int64) int64 {
	if room := (limit - current - 1) * win; room >= 0 && previous > 0 {
		if t := win - room/previous; t < win {
			return max(t-elapsed, 1)
		}
	}
	t := win - (limit-1)*win/current
	return max(win-elapsed+max(t, 0), 1)
}

// Limited is a refusal of a rule (Err, the caller's own error) with the
// wait before the client may try again, for a Retry-After header.
type Limited struct {
	Err        error
	RetryAfter time.Duration
}

func (e *Limited) Error() string { return e.Err.Error() }
func (e *Limited) Unwrap() error { return e.Err }

// Guard applies rule to subject: nil when within it; else refused (the
// caller's error) with the wait, after onRefusal(rule.Scope) (the caller
// audits the refusal; its error wins).
func (l *Limiter) Guard(ctx context.Context, rule Rule, subject string, refused error, onRefusal func(scope string) error) error {
	wait, err := l.Check(ctx, rule, subject)
	if err != nil || wait == 0 {
		return err
	}
	if err := onRefusal(rule.Scope); err != nil {
		return err
	}
	return &Limited{Err: refused, RetryAfter: wait}
}

// RetryAfter is the wait a *Limited in err's chain carries, else zero.
func RetryAfter(err error) time.Duration {
	var l *Limited
	if errors.As(err, &l) {
		return l.RetryAfter
	}
	return 0
}

// Prune deletes counters no rule can read any more and returns how many.
func (l *Limiter) Prune(ctx context.Context) (int64, error) {
	n, err := l.db.Affected(ctx, "DELETE FROM rate_limits WHERE expires_at <= ?", l.now().UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("throttle prune: %w", err)
	}
	return n, nil
}
