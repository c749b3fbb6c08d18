// Package maintenance is maintenance mode (spec §8.1: API calls answer 503
// and the SPA shows the maintenance roadblock). Operators turn it on and off
// with `guichet maintenance`, for every brand or one, with an optional end
// after which it is off by itself. It lives in the database, so every
// instance sees a change: each reads it through a Reader that refreshes at
// most a second after the last read.
package maintenance

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"guichet/internal/audit"
	"guichet/internal/store"
)

// AllBrands is the brand of a window that covers every brand.
const AllBrands = "*"

// Window is maintenance for one brand (or AllBrands).
type Window struct {
	Brand string
	Since time.Time
	// Until is when it ends by itself; zero: when turned off.
	Until time.Time
}

// activeAt reports whether the window is on at now.
func (w Window) activeAt(now time.Time) bool { return w.Until.IsZero() || now.Before(w.Until) }

// covers reports whether the window applies to brand.
func (w Window) covers(brand string) bool { return w.Brand == AllBrands || w.Brand == brand }

// Change is one operator's action.
type Change struct {
	// Brand is a brand id, or AllBrands.
	Brand string
	// Until is the end of maintenance turned on; zero: no end.
	Until time.Time
	At    time.Time
	// Actor is who acted, recorded in the audit trail ("cli").
	Actor string
}

// ErrEveryBrandOn: maintenance of one brand cannot end while it is on for
// every brand (turn it off for every brand instead).
var ErrEveryBrandOn = errors.New("maintenance is on for every brand: turn it off for every brand, " +
	"then on again for the brands that stay under maintenance")

// On turns maintenance on for c.Brand (replacing its end, if it was on),
// audited in the same transaction.
func On(ctx context.Context, db *store.DB, c Change) error {
	if !c.Until.IsZero() && !c.Until.After(c.At) {
		return fmt.Errorf("maintenance: the end %s is not in the future", c.Until.UTC().Format(time.RFC3339))
	}
	var until int64
	detail := ""
	if !c.Until.IsZero() {
		until = c.Until.UnixMilli()
		detail = "until " + c.Until.UTC().Format(time.RFC3339)
	}
	return db.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO maintenance (brand, started_at, ends_at) VALUES (?, ?, ?)
			ON CONFLICT (brand) DO UPDATE SET started_at = excluded.started_at, ends_at = excluded.ends_at`,
			c.Brand, c.At.UnixMilli(), until)
		if err != nil {
			return fmt.Errorf("maintenance on: %w", err)
		}
		return audit.Record(ctx, tx, audit.Event{At: c.At, Brand: c.Brand, Event: audit.MaintenanceOn, Outcome: "ok", Detail: detail, Actor: c.Actor})
	})
}

// Off turns maintenance off for c.Brand; AllBrands ends every window. It
// reports whether maintenance was on (an ended window counts as off).
func Off(ctx context.Context, db *store.DB, c Change) (wasOn bool, err error) {
	err = db.InTx(ctx, func(tx *store.Tx) error {
		windows, err := load(ctx, tx)
		if err != nil {
			return err
		}
		wasOn = false
		for _, w := range windows {
			if !w.activeAt(c.At) {
				continue
			}
			if c.Brand != AllBrands && w.Brand == AllBrands {
				return ErrEveryBrandOn
			}
			wasOn = wasOn || c.Brand == AllBrands || w.Brand == c.Brand
		}
		q, args := "DELETE FROM maintenance WHERE brand = ?", []any{c.Brand}
		if c.Brand == AllBrands {
			q, args = "DELETE FROM maintenance", nil
		}
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("maintenance off: %w", err)
		}
		outcome := "ok"
		if !wasOn {
			outcome = "already_off"
		}
		return audit.Record(ctx, tx, audit.Event{At: c.At, Brand: c.Brand, Event: audit.MaintenanceOff, Outcome: outcome, Actor: c.Actor})
	})
	return wasOn, err
}

// Active returns the windows on at now, every brand's first.
func Active(ctx context.Context, db *store.DB, now time.Time) ([]Window, error) {
	windows, err := load(ctx, db)
	if err != nil {
		return nil, err
	}
	var out []Window
	for _, w := range windows {
		if w.activeAt(now) {
			out = append(out, w)
		}
	}
	return out, nil
}

type querier interface {
	Query(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// load reads every window by brand, AllBrands first (sorted here in byte
// order: database collations may ignore '*').
func load(ctx context.Context, q querier) ([]Window, error) {
	rows, err := q.Query(ctx, "SELECT brand, started_at, ends_at FROM maintenance")
	if err != nil {
		return nil, fmt.Errorf("maintenance: %w", err)
	}
	out, err := store.Collect(rows, func(rows *sql.Rows) (Window, error) {
		var w Window
		var since, until int64
		err := rows.Scan(&w.Brand, &since, &until)
		w.Since, w.Until = time.UnixMilli(since).UTC(), store.FromMillis(until)
		return w, err
	})
	if err != nil {
		return nil, fmt.Errorf("maintenance: %w", err)
	}
	slices.SortFunc(out, func(a, b Window) int { return strings.Compare(a.Brand, b.Brand) })
	return out, nil
}

// Refresh is how stale a Reader's copy may be: every instance sees a
// change within this time.
const Refresh = time.Second

// Reader answers "is this brand under maintenance" for every API call from
// a copy of the windows read again when it is Refresh old.
type Reader struct {
	db  *store.DB
	now func() time.Time

	// loading is held by the one caller reading the table; the others
	// answer from the last copy meanwhile (only the very first read is
	// waited for), so a slow database never holds up every API call.
	loading sync.Mutex
	mu      sync.Mutex // guards read, loaded and windows
	read    time.Time  // when the copy was last tried (clock time); zero: never
	loaded  bool       // a read has succeeded
	windows []Window
}

// loadTimeout bounds one read of the table; it does not end with the request
// that happened to trigger it.
const loadTimeout = 2 * time.Second

// current returns the copy of the windows, read again when it is Refresh old.
func (r *Reader) current(ctx context.Context) ([]Window, time.Time) {
	now := r.now()
	r.mu.Lock()
	fresh := !r.read.IsZero() && now.Sub(r.read) < Refresh && !now.Before(r.read)
	windows, loaded := r.windows, r.loaded
	r.mu.Unlock()
	if fresh {
		return windows, now
	}
	if loaded {
		if !r.loading.TryLock() {
			return windows, now // another caller is reading it
		}
	} else {
		r.loading.Lock()
	}
	defer r.loading.Unlock()
	now = r.now()
	r.mu.Lock()
	if !r.read.IsZero() && now.Sub(r.read) < Refresh && !now.Before(r.read) {
		windows = r.windows // read by the caller we waited for
		r.mu.Unlock()
		return windows, now
	}
	r.mu.Unlock()
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loadTimeout)
	fresher, err := load(lctx, r.db)
	cancel()
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		slog.WarnContext(ctx, "maintenance state not read; keeping the last one", "err", err)
	} else {
		r.windows, r.loaded = fresher, true
	}
	r.read = now
	return r.windows, now
}

// NewReader reads db's windows; now is the clock (time.Now in production).
func NewReader(db *store.DB, now func() time.Time) *Reader {
	return &Reader{db: db, now: now}
}

// Check reports whether brand is under maintenance and, when its end is
// known, how long until then (0: unknown). A database that cannot be read
// keeps the last copy (logged) and is tried again after Refresh.
func (r *Reader) Check(ctx context.Context, brand string) (on bool, retryAfter time.Duration) {
	windows, now := r.current(ctx)

	var end time.Time
	for _, w := range windows {
		if !w.covers(brand) || !w.activeAt(now) {
			continue
		}
		if !on {
			end = w.Until
		} else if end.IsZero() || w.Until.IsZero() {
			end = time.Time{}
		} else if w.Until.After(end) {
			end = w.Until
		}
		on = true
	}
	if on && !end.IsZero() {
		retryAfter = end.Sub(now)
	}
	return on, retryAfter
}
