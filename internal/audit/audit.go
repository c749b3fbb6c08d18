// Package audit writes the authentication trail of design.md "Logs": every
// sign-in event with its time (UTC), brand, account, client IP and outcome.
// Nothing secret is ever recorded: the caller passes no password, code, token
// or PIN, and Detail is for short machine words only. Every event name any
// package writes is declared once, in events.go.
package audit

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"guichet/internal/store"
)

// Execer is a *store.DB or a *store.Tx: an event is written on its own or in
// the transaction of the change it records.
type Execer interface {
	Exec(ctx context.Context, q string, args ...any) (sql.Result, error)
}

// Event is one audited authentication event.
type Event struct {
	At        time.Time
	Brand     string
	AccountID string // empty when the account is unknown
	IP        string
	Event     Name   // what was attempted (events.go), e.g. LoginAuthentication
	Outcome   string // how it ended, e.g. "ok", "wrong_password", "locked"
	Detail    string // optional short word; never a secret
	Actor     string // who acted for an operators' action ("cli"); empty for a visitor's
}

// Limits that keep a row small whatever a caller passes.
const (
	maxField = 200
)

// Record writes the event. At is stored in UTC unix milliseconds.
func Record(ctx context.Context, ex Execer, e Event) error {
	if e.Brand == "" || e.Event == "" || e.Outcome == "" {
		return fmt.Errorf("audit: brand, event and outcome are required")
	}
	_, err := ex.Exec(ctx,
		"INSERT INTO audit_events (at, brand, account_id, ip, event, outcome, detail, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		e.At.UTC().UnixMilli(), clip(e.Brand), clip(e.AccountID), clip(e.IP), clip(string(e.Event)), clip(e.Outcome), clip(e.Detail), clip(e.Actor))
	if err != nil {
		return fmt.Errorf("audit %s: %w", e.Event, err)
	}
	return nil
}

// Query is a *store.DB or a *store.Tx read side.
type Query interface {
	Query(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// ForAccount returns an account's events of a brand, oldest first, at most
// limit of them (the most recent ones).
func ForAccount(ctx context.Context, q Query, brand, accountID string, limit int) ([]Event, error) {
	rows, err := q.Query(ctx, "SELECT "+eventColumns+` FROM audit_events
		WHERE brand = ? AND account_id = ? ORDER BY at DESC, id DESC LIMIT ?`, brand, accountID, limit)
	if err != nil {
		return nil, fmt.Errorf("audit events: %w", err)
	}
	out, err := store.Collect(rows, scanEvent)
	if err != nil {
		return nil, err
	}
	slices.Reverse(out)
	return out, nil
}

// eventColumns are what scanEvent reads.
const eventColumns = "at, brand, account_id, ip, event, outcome, detail, actor"

func scanEvent(rows *sql.Rows) (Event, error) {
	var e Event
	var at int64
	err := rows.Scan(&at, &e.Brand, &e.AccountID, &e.IP, &e.Event, &e.Outcome, &e.Detail, &e.Actor)
	e.At = time.UnixMilli(at).UTC()
	return e, err
}

// clip bounds a field to maxField bytes, cut on a character boundary, and
// keeps it valid UTF-8 (PostgreSQL refuses anything else).
func clip(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxField {
		return s
	}
	cut := maxField
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
