package audit

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"guichet/internal/store"
)

// The reads and the retention purge of the audit trail for other packages:
// the staff console's customer view and export, the janitor, the phone lock
// of internal/account.

// Counter is a *store.DB or a *store.Tx (a single-row read).
type Counter interface {
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

// CountSince counts an account's events of a brand that ended with outcome
// after since.
func CountSince(ctx context.Context, q Counter, brand, accountID, outcome string, since time.Time) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT COUNT(*) FROM audit_events WHERE brand = ? AND account_id = ? AND at > ? AND outcome = ?`,
		brand, accountID, since.UnixMilli(), outcome).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("audit count: %w", err)
	}
	return n, nil
}

// Times lists when an account's events of a brand named one of events
// ended with outcome, the most recent first, at most limit of them.
func Times(ctx context.Context, q Query, brand, accountID, outcome string, limit int, events ...Name) ([]time.Time, error) {
	args := []any{brand, accountID}
	for _, e := range events {
		args = append(args, string(e))
	}
	args = append(args, outcome, limit)
	rows, err := q.Query(ctx, `SELECT at FROM audit_events WHERE brand = ? AND account_id = ? AND event IN (`+
		store.Placeholders(len(events))+`) AND outcome = ? ORDER BY at DESC, id DESC LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("audit times: %w", err)
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var at int64
		if err := rows.Scan(&at); err != nil {
			return nil, err
		}
		out = append(out, time.UnixMilli(at).UTC())
	}
	return out, rows.Err()
}

// Cursor walks the events Between found, oldest first.
type Cursor struct {
	rows *sql.Rows
}

// Between opens the events of [from, to) of brands (every brand when
// none), oldest first; the caller closes the cursor.
func Between(ctx context.Context, q Query, from, to time.Time, brands []string) (*Cursor, error) {
	query, args := between(from, to, brands)
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("audit events: %w", err)
	}
	return &Cursor{rows: rows}, nil
}

// between is Between's query: in time order from audit_events_at, so the
// export streams without a sort however many rows the range holds.
func between(from, to time.Time, brands []string) (string, []any) {
	where, args := "at >= ? AND at < ?", []any{from.UnixMilli(), to.UnixMilli()}
	if len(brands) > 0 {
		// A filter, not an index condition: read through the account
		// index (its only prefix is the brand), the range would come out
		// of order and be sorted whole, which SQLite's planner (no
		// statistics) would choose.
		where += " AND (brand IN (" + store.Placeholders(len(brands)) + ")) = TRUE"
		for _, b := range brands {
			args = append(args, b)
		}
	}
	return "SELECT " + eventColumns + " FROM audit_events WHERE " + where + " ORDER BY at, id", args
}

// Next moves to the next event, false at the end or on an error (Err).
func (c *Cursor) Next() bool { return c.rows.Next() }

// Event reads the event Next moved to.
func (c *Cursor) Event() (Event, error) { return scanEvent(c.rows) }

// Err is the error that ended Next, if any.
func (c *Cursor) Err() error { return c.rows.Err() }

// Close releases the cursor.
func (c *Cursor) Close() error { return c.rows.Close() }

// purgeBatch bounds one purge statement. Each batch is a statement of its
// own (outside a transaction, a short write of its own): the hourly purge
// of a large table never holds the database's one writer (SQLite) or a
// long lock for its whole run, and each batch reads the oldest rows from
// audit_events_at rather than scanning the table.
var purgeBatch = 5000

// oldest is a purge batch: the oldest rows before a time, from
// audit_events_at.
const oldest = "SELECT id FROM audit_events WHERE at < ? ORDER BY at, id LIMIT ?"

// PurgeBefore deletes the events older than before (the retention purge),
// oldest first, purgeBatch rows a statement, until none is left or ctx
// ends; it returns how many it deleted.
func PurgeBefore(ctx context.Context, ex Execer, before time.Time) (int64, error) {
	var total int64
	for {
		res, err := ex.Exec(ctx, "DELETE FROM audit_events WHERE id IN ("+oldest+")", before.UnixMilli(), purgeBatch)
		if err != nil {
			return total, fmt.Errorf("audit purge: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, fmt.Errorf("audit purge: %w", err)
		}
		total += n
		if n < int64(purgeBatch) {
			return total, nil
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
}

// heldEvent is an event as the customer's data export shows it.
type heldEvent struct {
	At      time.Time `json:"at"`
	Event   string    `json:"event"`
	Outcome string    `json:"outcome"`
	IP      string    `json:"ip,omitempty"`
	Detail  string    `json:"detail,omitempty"`
}

// maxHeldEvents bounds the events of one export (the most recent ones).
const maxHeldEvents = 100000

// HeldData is an account's events of a brand, oldest first, for the
// customer's data export (issue 31); staff actors are not named.
func HeldData(ctx context.Context, q Query, brand, accountID string) (map[string]any, error) {
	events, err := ForAccount(ctx, q, brand, accountID, maxHeldEvents)
	if err != nil {
		return nil, err
	}
	out := make([]heldEvent, 0, len(events))
	for _, e := range events {
		out = append(out, heldEvent{At: e.At.UTC(), Event: string(e.Event), Outcome: e.Outcome, IP: e.IP, Detail: e.Detail})
	}
	return map[string]any{"auditEvents": out}, nil
}

// Scrub strips the personal data from an erased account's events (issue 31,
// Law 25): the client IP, the detail and the account id itself, so what is
// left says when, which brand, what and how it ended, and no more.
func Scrub(ctx context.Context, ex Execer, brand, accountID string) (int64, error) {
	if accountID == "" {
		return 0, nil
	}
	res, err := ex.Exec(ctx, "UPDATE audit_events SET account_id = '', ip = '', detail = '' WHERE brand = ? AND account_id = ?", brand, accountID)
	if err != nil {
		return 0, fmt.Errorf("audit scrub: %w", err)
	}
	return res.RowsAffected()
}
