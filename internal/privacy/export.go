package privacy

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"sync/atomic"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/notify"
	"guichet/internal/store"
)

// The data export: asked for on My account (ExportRequest), prepared by the
// export worker of whichever instance claims it first (a lease, as the
// outbox's: PostgreSQL's FOR UPDATE SKIP LOCKED, SQLite's single writer),
// announced by email, downloaded for ExportLife by the signed-in owner.

// Export states.
const (
	ExportRequested = "requested"
	ExportPreparing = "preparing"
	ExportReady     = "ready"
)

// maxExportAttempts: an export that failed this many times is left alone
// (the customer may ask again); each try waits out the previous lease.
const maxExportAttempts = 5

// Export is an export as My account shows it.
type Export struct {
	State       string
	RequestedAt time.Time
	ReadyAt     time.Time // zero until ready
	ExpiresAt   time.Time // zero until ready
}

// ExportAsk is what an export request needs.
type ExportAsk struct {
	Brand, AccountID string
	// Language and Province are the email's; Origin is the brand host the
	// customer asked from (the email's link to My account).
	Language, Province, Origin string
	IP                         string
}

// RequestExport asks for an export of the account's data: any earlier one
// of the account is replaced (a new request starts afresh), and the worker
// is woken. Audited export.request.
func (s *Service) RequestExport(ctx context.Context, in ExportAsk) (Export, error) {
	id, err := codes.RandomID(rand.Reader)
	if err != nil {
		return Export{}, err
	}
	now := s.Now()
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if s.Limiter != nil {
			if ok, err := s.Limiter.AllowTx(ctx, tx, exportRule, in.AccountID); err != nil {
				return err
			} else if !ok {
				return ErrTooManyExports
			}
		}
		if _, err := tx.Exec(ctx, "DELETE FROM data_exports WHERE account_id = ?", in.AccountID); err != nil {
			return fmt.Errorf("replace export: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO data_exports (id, account_id, brand, language, province, origin, state, requested_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, in.AccountID, in.Brand, language(in.Language), in.Province, in.Origin, ExportRequested,
			now.UnixMilli()); err != nil {
			return fmt.Errorf("request export: %w", err)
		}
		return audit.Record(ctx, tx, audit.Event{At: now, Brand: in.Brand, AccountID: in.AccountID, IP: in.IP, Event: audit.ExportRequest, Outcome: "ok"})
	})
	if err != nil {
		return Export{}, err
	}
	s.PokeExports()
	return Export{State: ExportRequested, RequestedAt: store.FromMillis(now.UnixMilli())}, nil
}

// CurrentExport is the account's latest export, ErrNoExport when it has
// none or it expired.
func (s *Service) CurrentExport(ctx context.Context, brand, accountID string) (Export, error) {
	var e Export
	var requested, ready, expires int64
	err := s.DB.QueryRow(ctx, `SELECT state, requested_at, ready_at, expires_at FROM data_exports
		WHERE account_id = ? AND brand = ? ORDER BY requested_at DESC LIMIT 1`, accountID, brand).Scan(&e.State, &requested, &ready, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return Export{}, ErrNoExport
	}
	if err != nil {
		return Export{}, fmt.Errorf("export: %w", err)
	}
	if e.State == ExportPreparing {
		e.State = ExportRequested // the customer sees one waiting state
	}
	e.RequestedAt, e.ReadyAt, e.ExpiresAt = store.FromMillis(requested), store.FromMillis(ready), store.FromMillis(expires)
	if e.State == ExportReady && !s.Now().Before(e.ExpiresAt) {
		return Export{}, ErrNoExport
	}
	return e, nil
}

// Download returns the account's ready export's document (JSON) and when
// it expires; ErrNoExport when none is ready or it expired. Audited
// export.download with the format.
func (s *Service) Download(ctx context.Context, brand, accountID, format, ip string) ([]byte, error) {
	var doc string
	now := s.Now()
	err := s.DB.QueryRow(ctx, `SELECT document FROM data_exports WHERE account_id = ? AND brand = ? AND state = ? AND expires_at > ?`,
		accountID, brand, ExportReady, now.UnixMilli()).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoExport
	}
	if err != nil {
		return nil, fmt.Errorf("download export: %w", err)
	}
	if err := audit.Record(ctx, s.DB, audit.Event{At: now, Brand: brand, AccountID: accountID, IP: ip, Event: audit.ExportDownload,
		Outcome: "ok", Detail: format}); err != nil {
		return nil, err
	}
	return []byte(doc), nil
}

// PokeExports wakes the export worker; it never blocks.
func (s *Service) PokeExports() {
	if s.wake == nil {
		return
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// NewWake readies PokeExports; call it once, before RunExports and the
// first request.
func (s *Service) NewWake() { s.wake = make(chan struct{}, 1) }

// RunExports prepares the exports asked for until ctx ends: at once when
// poked, else every PollInterval.
func (s *Service) RunExports(ctx context.Context) error {
	every := s.PollInterval
	if every <= 0 {
		every = 2 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		for {
			done, err := s.PrepareNext(ctx)
			if err != nil {
				slog.ErrorContext(ctx, "data export failed", "err", err)
			}
			if !done || err != nil || ctx.Err() != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		case <-s.wake:
		}
	}
}

// claimed is an export a worker holds.
type claimed struct {
	id, accountID, brand, language, province, origin, lease string
}

var leaseSeq atomic.Uint64

// PrepareNext claims one export asked for (or one whose worker's lease ran
// out), gathers the account's data from the holders, stores the document
// and queues the 'export ready' email in one transaction; it reports
// whether it claimed one. A claim lost meanwhile (the customer asked again,
// the account was erased) stores nothing.
func (s *Service) PrepareNext(ctx context.Context) (bool, error) {
	c, ok, err := s.claim(ctx)
	if err != nil || !ok {
		return false, err
	}
	doc, err := s.document(ctx, c.brand, c.accountID)
	if err != nil {
		return true, fmt.Errorf("export %s: %w", c.id, err)
	}
	now := s.Now()
	expires := now.Add(ExportLife)
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.Exec(ctx, `UPDATE data_exports SET state = ?, document = ?, ready_at = ?, expires_at = ?, lease_token = '', lease_until = 0
			WHERE id = ? AND lease_token = ? AND state = ?`, ExportReady, string(doc), now.UnixMilli(), expires.UnixMilli(), c.id, c.lease, ExportPreparing)
		if err != nil {
			return fmt.Errorf("store export: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		a, err := account.ByID(ctx, tx, c.brand, c.accountID)
		if err != nil {
			return err
		}
		data := map[string]string{notify.DataLink: c.origin + "/my-account?lang=" + c.language, notify.DataExpires: expires.UTC().Format(time.DateOnly)}
		if a.FirstName != "" {
			data[notify.DataFirstName] = a.FirstName
		}
		if c.province != "" {
			data[notify.DataProvince] = c.province
		}
		if err := notify.Queue(ctx, tx, notify.Message{Brand: c.brand, Language: c.language, Channel: notify.ChannelEmail, To: a.Email,
			Template: notify.TemplateExportReady, Data: data}, s.Poke); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{At: now, Brand: c.brand, AccountID: c.accountID, Event: audit.ExportReady, Outcome: "ok"})
	})
	return true, err
}

// claim leases the oldest export due to this worker.
func (s *Service) claim(ctx context.Context) (claimed, bool, error) {
	lease := s.Lease
	if lease <= 0 {
		lease = 2 * time.Minute
	}
	now := s.Now().UnixMilli()
	token := strconv.FormatUint(leaseSeq.Add(1), 36) + "-" + rand.Text()[:12]
	lock := ""
	if s.DB.Dialect == store.Postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	var c claimed
	var found bool
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		found = false
		err := tx.QueryRow(ctx, `UPDATE data_exports SET state = ?, lease_token = ?, lease_until = ?, attempts = attempts + 1
			WHERE id IN (SELECT id FROM data_exports WHERE (state = ? OR (state = ? AND lease_until <= ?)) AND attempts < ?
				ORDER BY requested_at LIMIT 1`+lock+`)
			RETURNING id, account_id, brand, language, province, origin`,
			ExportPreparing, token, now+lease.Milliseconds(), ExportRequested, ExportPreparing, now, maxExportAttempts).
			Scan(&c.id, &c.accountID, &c.brand, &c.language, &c.province, &c.origin)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		found = err == nil
		return err
	})
	if err != nil {
		return claimed{}, false, fmt.Errorf("claim export: %w", err)
	}
	c.lease = token
	return c, found, nil
}

// document is the account's data as JSON: the format, the brand, when it
// was made, and each holder's sections.
func (s *Service) document(ctx context.Context, brand, accountID string) ([]byte, error) {
	sections := map[string]any{}
	for _, h := range s.Holders {
		part, err := h.HeldData(ctx, brand, accountID)
		if err != nil {
			return nil, err
		}
		maps.Copy(sections, part)
	}
	return json.MarshalIndent(Document{Format: DocumentFormat, Brand: brand, GeneratedAt: s.Now().UTC(), Sections: sections}, "", "  ")
}

// DocumentFormat names the export's JSON shape.
const DocumentFormat = "guichet-export/1"

// Document is an export's JSON.
type Document struct {
	Format      string         `json:"format"`
	Brand       string         `json:"brand"`
	GeneratedAt time.Time      `json:"generatedAt"`
	Sections    map[string]any `json:"sections"`
}

// PruneExports deletes the exports past their seven days (the janitor).
func (s *Service) PruneExports(ctx context.Context) (int64, error) {
	n, err := s.DB.Affected(ctx, "DELETE FROM data_exports WHERE state = ? AND expires_at <= ?", ExportReady, s.Now().UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("prune exports: %w", err)
	}
	return n, nil
}

// language is "fr" or "en".
func language(l string) string {
	if l == "fr" {
		return "fr"
	}
	return "en"
}
