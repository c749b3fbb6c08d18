package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"guichet/internal/store"
)

// listLimit bounds the rows List prints.
const listLimit = 500

// List writes, for operators (`guichet outbox list`), how many messages
// are in each state, then every message not yet sent, oldest first. No
// data or body is printed.
func List(ctx context.Context, db *store.DB, w io.Writer) error {
	return list(ctx, db, w, time.Now())
}

func list(ctx context.Context, db *store.DB, w io.Writer, now time.Time) error {
	rows, err := db.Query(ctx, `SELECT state, COUNT(*) FROM outbox GROUP BY state ORDER BY state`)
	if err != nil {
		return fmt.Errorf("outbox list: %w", err)
	}
	var counts []string
	for rows.Next() {
		var state string
		var n int64
		if err := rows.Scan(&state, &n); err != nil {
			rows.Close()
			return fmt.Errorf("outbox list: %w", err)
		}
		counts = append(counts, fmt.Sprintf("%s %d", state, n))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("outbox list: %w", err)
	}
	if len(counts) == 0 {
		counts = []string{"empty"}
	}
	if _, err := fmt.Fprintf(w, "outbox: %s\n", strings.Join(counts, ", ")); err != nil {
		return err
	}

	rows, err = db.Query(ctx, `SELECT id, state, channel, brand, language, template, recipient, attempts,
		next_attempt_at, lease_until, created_at, expires_at, data, last_error
		FROM outbox WHERE state <> 'sent' ORDER BY created_at, id LIMIT ?`, listLimit+1)
	if err != nil {
		return fmt.Errorf("outbox list: %w", err)
	}
	defer rows.Close()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tCHANNEL\tBRAND\tLANG\tTEMPLATE\tTO\tATTEMPTS\tNEXT\tCREATED\tEXPIRES\tLAST ERROR")
	shown := 0
	for rows.Next() {
		var id, state, channel, brandID, lang, template, to, data, lastErr string
		var attempts int
		var next, leaseUntil, created, expires int64
		if err := rows.Scan(&id, &state, &channel, &brandID, &lang, &template, &to, &attempts,
			&next, &leaseUntil, &created, &expires, &data, &lastErr); err != nil {
			return fmt.Errorf("outbox list: %w", err)
		}
		if shown == listLimit {
			fmt.Fprintf(tw, "… more rows not shown\n")
			break
		}
		shown++
		nextText := "-"
		switch state {
		case stateQueued:
			nextText = "now"
			if next > now.UnixMilli() {
				nextText = stamp(next)
			}
		case stateSending:
			nextText = "lease until " + stamp(leaseUntil)
		}
		expiresText := "-"
		if expires > 0 {
			expiresText = stamp(expires)
		}
		if data == "" {
			template += " (purged)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", id, state, channel, brandID, lang,
			template, to, attempts, nextText, stamp(created), expiresText, oneLine(lastErr))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("outbox list: %w", err)
	}
	return tw.Flush()
}

func stamp(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05Z") }

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "-"
	}
	return s
}

// Errors of Retry.
var (
	ErrAlreadySent  = errors.New("outbox: the message was already sent")
	ErrBeingSent    = errors.New("outbox: the message is being delivered right now")
	ErrPurged       = errors.New("outbox: the message's content was purged after it was done with")
	ErrContentStale = errors.New("outbox: the message's content has expired")
)

// Retry makes a message due now (`guichet outbox retry ID`): a queued one
// skips its wait, a failed or abandoned one is queued again with its
// attempts reset. A sent message, one being delivered, one whose content
// was purged or has expired cannot be retried. An unknown id gives
// store.ErrNotFound.
func Retry(ctx context.Context, db *store.DB, id string) error {
	return retry(ctx, db, id, time.Now())
}

func retry(ctx context.Context, db *store.DB, id string, now time.Time) error {
	return db.InTx(ctx, func(tx *store.Tx) error {
		var state, data string
		var leaseUntil, expires int64
		err := tx.QueryRow(ctx, `SELECT state, data, lease_until, expires_at FROM outbox WHERE id = ?`, id).
			Scan(&state, &data, &leaseUntil, &expires)
		if err != nil {
			return fmt.Errorf("outbox retry %s: %w", id, store.NotFound(err))
		}
		switch {
		case state == stateSent:
			return ErrAlreadySent
		case state == stateSending && leaseUntil > now.UnixMilli():
			return ErrBeingSent
		case data == "":
			return ErrPurged
		case expires > 0 && expires <= now.UnixMilli():
			return ErrContentStale
		}
		attempts := "attempts"
		if state == stateFailed || state == stateAbandoned {
			attempts = "0"
		}
		_, err = tx.Exec(ctx, `UPDATE outbox SET state = 'queued', next_attempt_at = 0, lease_token = '',
			lease_until = 0, attempts = `+attempts+`, updated_at = ? WHERE id = ?`, now.UnixMilli(), id)
		return err
	})
}
