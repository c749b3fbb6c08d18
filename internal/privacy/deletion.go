package privacy

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/notify"
	"guichet/internal/store"
)

// Account deletion: asked for on My account (after a fresh proof and a
// warning), pending for DeletionGrace, during which the customer still
// signs in (a pending account works as before: they may want a last
// export, and they cancel on My account) and may cancel, on My account or
// by the emailed link; then EraseDue erases the account and its personal
// rows. The policies stay (the insurer's records): they are unlinked.

// Deletion is a pending deletion as My account and the console show it.
type Deletion struct {
	RequestedAt time.Time
	DeleteAt    time.Time
}

// DeletionAsk is what a deletion request needs.
type DeletionAsk struct {
	Brand, AccountID string
	// Language and Province are the email's; Origin is the brand host the
	// customer asked from (the undo link's).
	Language, Province, Origin string
	IP                         string
}

// UndoPath is the SPA page the emailed link opens: the token rides in its
// query string, which the access log never writes for SPA pages; the page
// sends it in a POST body.
const UndoPath = "/undo-deletion"

// RequestDeletion marks the account for deletion in DeletionGrace and
// emails the undo link; asked again while pending, it answers the pending
// one and sends nothing. Audited deletion.request.
func (s *Service) RequestDeletion(ctx context.Context, in DeletionAsk) (Deletion, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return Deletion{}, err
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	now := s.Now()
	var d Deletion
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		a, err := account.ByID(ctx, tx, in.Brand, in.AccountID)
		if err != nil {
			return err
		}
		if d, err = pending(ctx, tx, in.Brand, in.AccountID); err == nil {
			return nil
		} else if !errors.Is(err, ErrNotPending) {
			return err
		}
		d = Deletion{RequestedAt: store.FromMillis(now.UnixMilli()), DeleteAt: store.FromMillis(now.Add(DeletionGrace).UnixMilli())}
		if _, err := tx.Exec(ctx, `INSERT INTO account_deletions (account_id, brand, requested_at, delete_at, undo_hash) VALUES (?, ?, ?, ?, ?)`,
			in.AccountID, in.Brand, d.RequestedAt.UnixMilli(), d.DeleteAt.UnixMilli(), codes.TokenHash(token)); err != nil {
			return fmt.Errorf("request deletion: %w", err)
		}
		lang := language(in.Language)
		data := map[string]string{
			notify.DataLink:    in.Origin + UndoPath + "?token=" + url.QueryEscape(token) + "&lang=" + lang,
			notify.DataExpires: d.DeleteAt.Format(time.DateOnly),
		}
		if a.FirstName != "" {
			data[notify.DataFirstName] = a.FirstName
		}
		if in.Province != "" {
			data[notify.DataProvince] = in.Province
		}
		if err := notify.Queue(ctx, tx, notify.Message{Brand: in.Brand, Language: lang, Channel: notify.ChannelEmail, To: a.Email,
			Template: notify.TemplateAccountDeletion, Data: data, Sensitive: true}, s.Poke); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{At: now, Brand: in.Brand, AccountID: in.AccountID, IP: in.IP, Event: audit.DeletionRequest, Outcome: "ok"})
	})
	if err != nil {
		return Deletion{}, err
	}
	return d, nil
}

// PendingDeletion is the account's pending deletion, ErrNotPending when
// there is none.
func (s *Service) PendingDeletion(ctx context.Context, brand, accountID string) (Deletion, error) {
	return pending(ctx, s.DB, brand, accountID)
}

type rowQuerier interface {
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

func pending(ctx context.Context, q rowQuerier, brand, accountID string) (Deletion, error) {
	var requested, deleteAt int64
	err := q.QueryRow(ctx, "SELECT requested_at, delete_at FROM account_deletions WHERE account_id = ? AND brand = ? AND deleted_at = 0",
		accountID, brand).Scan(&requested, &deleteAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Deletion{}, ErrNotPending
	}
	if err != nil {
		return Deletion{}, fmt.Errorf("pending deletion: %w", err)
	}
	return Deletion{RequestedAt: store.FromMillis(requested), DeleteAt: store.FromMillis(deleteAt)}, nil
}

// CancelDeletion cancels the account's pending deletion from My account
// (ErrNotPending when none; ErrUndoTooLate once its grace is over, even if
// the janitor has not erased it yet). Audited deletion.undo, detail
// account.
func (s *Service) CancelDeletion(ctx context.Context, brand, accountID, ip string) error {
	return s.cancel(ctx, brand, "account_id = ?", accountID, "account", ip, ErrNotPending)
}

// UndoByLink cancels the pending deletion whose emailed link carries token:
// the link works once (its row goes), never after the grace.
// ErrUndoInvalid for an unknown or used token. Audited deletion.undo,
// detail link.
func (s *Service) UndoByLink(ctx context.Context, brand, token, ip string) error {
	if token == "" || len(token) > 128 {
		return ErrUndoInvalid
	}
	return s.cancel(ctx, brand, "undo_hash = ?", codes.TokenHash(token), "link", ip, ErrUndoInvalid)
}

func (s *Service) cancel(ctx context.Context, brand, where, key, how, ip string, none error) error {
	now := s.Now()
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		var accountID string
		var deleteAt int64
		err := tx.QueryRow(ctx, "SELECT account_id, delete_at FROM account_deletions WHERE "+where+" AND brand = ? AND deleted_at = 0",
			key, brand).Scan(&accountID, &deleteAt)
		if errors.Is(err, sql.ErrNoRows) {
			return none
		}
		if err != nil {
			return fmt.Errorf("cancel deletion: %w", err)
		}
		if now.UnixMilli() >= deleteAt {
			return ErrUndoTooLate
		}
		res, err := tx.Exec(ctx, "DELETE FROM account_deletions WHERE account_id = ? AND deleted_at = 0", accountID)
		if err != nil {
			return fmt.Errorf("cancel deletion: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return none // cancelled meanwhile
		}
		return audit.Record(ctx, tx, audit.Event{At: now, Brand: brand, AccountID: accountID, IP: ip, Event: audit.DeletionUndo, Outcome: "ok", Detail: how})
	})
}

// eraseBatch bounds one EraseDue pass (the janitor comes back).
const eraseBatch = 100

// EraseDue erases the accounts whose grace is over, each in a transaction
// of its own that first takes the deletion (so two instances never erase
// one twice): every holder's rows, the account's exports, then the account
// row; audited deletion.done. Their audit rows are scrubbed now, or after
// the brand's privacy.deletedAuditDays (ScrubDue). The janitor runs it.
func (s *Service) EraseDue(ctx context.Context) (int64, error) {
	now := s.Now()
	due, err := s.due(ctx, "deleted_at = 0 AND delete_at <= ? ORDER BY delete_at", now)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, d := range due {
		erased, err := s.erase(ctx, d.brand, d.accountID, now)
		if err != nil {
			return n, err
		}
		if erased {
			n++
		}
	}
	scrubbed, err := s.ScrubDue(ctx)
	return n + scrubbed, err
}

func (s *Service) erase(ctx context.Context, brand, accountID string, now time.Time) (bool, error) {
	scrubAt := now
	if b, ok := s.Brands(brand); ok {
		scrubAt = now.AddDate(0, 0, b.Privacy.DeletedAuditDays)
	}
	erased := false
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		erased = false
		res, err := tx.Exec(ctx, `UPDATE account_deletions SET deleted_at = ?, undo_hash = '', scrub_at = ?
			WHERE account_id = ? AND deleted_at = 0 AND delete_at <= ?`, now.UnixMilli(), scrubAt.UnixMilli(), accountID, now.UnixMilli())
		if err != nil {
			return fmt.Errorf("take deletion: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil // cancelled, or another instance took it
		}
		for _, h := range s.Holders {
			if err := h.EraseHeld(ctx, tx, brand, accountID); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "DELETE FROM data_exports WHERE account_id = ?", accountID); err != nil {
			return fmt.Errorf("erase exports: %w", err)
		}
		if err := audit.Record(ctx, tx, audit.Event{At: now, Brand: brand, AccountID: accountID, Event: audit.DeletionDone, Outcome: "ok",
			Actor: "janitor"}); err != nil {
			return err
		}
		erased = true
		if scrubAt.After(now) {
			return nil
		}
		return scrub(ctx, tx, brand, accountID)
	})
	return erased, err
}

// scrub strips the erased account's audit rows and forgets the deletion.
func scrub(ctx context.Context, tx *store.Tx, brand, accountID string) error {
	if _, err := audit.Scrub(ctx, tx, brand, accountID); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "DELETE FROM account_deletions WHERE account_id = ? AND deleted_at > 0", accountID)
	return err
}

// ScrubDue strips the audit rows of the accounts erased
// privacy.deletedAuditDays ago.
func (s *Service) ScrubDue(ctx context.Context) (int64, error) {
	due, err := s.due(ctx, "deleted_at > 0 AND scrub_at <= ? ORDER BY scrub_at", s.Now())
	if err != nil {
		return 0, err
	}
	for i, d := range due {
		if err := s.DB.InTx(ctx, func(tx *store.Tx) error { return scrub(ctx, tx, d.brand, d.accountID) }); err != nil {
			return int64(i), err
		}
	}
	return int64(len(due)), nil
}

// DeletionDate is when the account's pending deletion happens, zero when
// none is pending (the staff console's customer view).
func (s *Service) DeletionDate(ctx context.Context, brand, accountID string) (time.Time, error) {
	d, err := s.PendingDeletion(ctx, brand, accountID)
	if errors.Is(err, ErrNotPending) {
		return time.Time{}, nil
	}
	return d.DeleteAt, err
}

// dueDeletion is a deletion the janitor has work on.
type dueDeletion struct{ accountID, brand string }

// due lists up to eraseBatch deletions matching where, whose one
// placeholder is now.
func (s *Service) due(ctx context.Context, where string, now time.Time) ([]dueDeletion, error) {
	rows, err := s.DB.Query(ctx, "SELECT account_id, brand FROM account_deletions WHERE "+where+" LIMIT ?", now.UnixMilli(), eraseBatch)
	if err != nil {
		return nil, fmt.Errorf("due deletions: %w", err)
	}
	return store.Collect(rows, func(r *sql.Rows) (dueDeletion, error) {
		var d dueDeletion
		err := r.Scan(&d.accountID, &d.brand)
		return d, err
	})
}
