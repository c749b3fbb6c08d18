package console

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"guichet/internal/api"
	"guichet/internal/audit"
	"guichet/internal/maintenance"
	"guichet/internal/policy"
	"guichet/internal/staff"
)

// maxImport bounds a policy file sent from the console.
const maxImport = 10 << 20

var (
	errTooLarge      = api.NewError(http.StatusRequestEntityTooLarge, "TOO_LARGE", "console.import.tooLarge")
	errEveryBrandOn  = api.NewError(http.StatusConflict, "MAINTENANCE_EVERY_BRAND", "console.maintenance.everyBrand")
	errPeriodInvalid = "console.audit.period"
)

type rowErrorJSON struct {
	Line    int    `json:"line"`
	Column  string `json:"column"`
	Problem string `json:"problem"`
}

type importJSON struct {
	DryRun    bool           `json:"dryRun"`
	ErrorCode string         `json:"errorCode,omitempty"`
	Rows      int            `json:"rows"`
	Added     int            `json:"added"`
	Updated   int            `json:"updated"`
	Unchanged int            `json:"unchanged"`
	Errors    []rowErrorJSON `json:"errors"`
}

// fileBrands lists the brands of a policy file's rows (the brand column),
// or ok false when the file does not read as CSV with that column.
func fileBrands(body []byte) (brands []string, ok bool) {
	r := csv.NewReader(bytes.NewReader(body))
	header, err := r.Read()
	if err != nil {
		return nil, false
	}
	col := -1
	for i, h := range header {
		if strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) == "brand" {
			col = i
		}
	}
	if col < 0 {
		return nil, false
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return brands, true
		}
		if err != nil || col >= len(rec) {
			return nil, false
		}
		if b := strings.TrimSpace(rec[col]); !slices.Contains(brands, b) {
			brands = append(brands, b)
		}
	}
}

// Import is POST /policies/import?dryRun=: the policy CSV (the body) through
// internal/policy's importer; dryRun (the default) reports and writes
// nothing. A staff member serving some brands only may import rows of those
// brands only (403 FORBIDDEN_BRAND for the whole file otherwise).
func (h *Handler) Import(w http.ResponseWriter, r *http.Request) error {
	p, err := h.call(r, staff.RoleSupervisor, true)
	if err != nil {
		return err
	}
	dryRun := true
	if v := r.URL.Query().Get("dryRun"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return validation("dryRun", "console.import.dryRun")
		}
		dryRun = b
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxImport))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return errTooLarge
	}
	if err != nil {
		return err
	}
	if len(p.Brands) > 0 {
		brands, ok := fileBrands(body)
		if !ok {
			// Unreadable as CSV: the importer reports why and writes nothing.
			dryRun = true
		}
		for _, b := range brands {
			if !p.Serves(b) {
				h.refuse(r.Context(), r, p, auditBrand, "", "forbidden_brand")
				return errForbiddenBrand
			}
		}
	}
	im := policy.Importer{DB: h.DB, Brands: h.Brands, Now: h.Now(), DryRun: dryRun}
	res, err := im.Import(r.Context(), bytes.NewReader(body))
	out := importJSON{DryRun: dryRun, Rows: res.Rows, Added: res.Added, Updated: res.Updated, Unchanged: res.Unchanged,
		Errors: []rowErrorJSON{}}
	var problems policy.ImportErrors
	status, outcome := http.StatusOK, "ok"
	switch {
	case errors.As(err, &problems):
		out.ErrorCode, status, outcome = "IMPORT_INVALID", http.StatusBadRequest, "invalid"
		for _, e := range problems {
			out.Errors = append(out.Errors, rowErrorJSON{Line: e.Line, Column: e.Column, Problem: e.Problem})
		}
	case err != nil:
		return err
	}
	detail := res.String()
	if dryRun {
		detail = "dry run: " + detail
	}
	if err := h.record(r.Context(), h.DB, r, p, audit.Event{Brand: auditBrand, Event: EventImport, Outcome: outcome,
		Detail: detail}); err != nil {
		return err
	}
	api.JSON(w, status, out)
	return nil
}

type maintenanceForm struct {
	Brand string     `json:"brand"`
	On    *bool      `json:"on"`
	Until *time.Time `json:"until"`
}

type maintenanceAnswer struct {
	Brand string     `json:"brand"`
	On    bool       `json:"on"`
	Until *time.Time `json:"until,omitempty"`
}

// Maintenance is POST /maintenance {brand, on, until?}: a brand's
// maintenance mode on (until optional) or off (internal/maintenance, which
// audits it with the staff member as actor). "*" (every brand) is for
// staff serving every brand.
func (h *Handler) Maintenance(w http.ResponseWriter, r *http.Request) error {
	p, err := h.call(r, staff.RoleSupervisor, true)
	if err != nil {
		return err
	}
	var f maintenanceForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	if f.On == nil {
		return validation("on", "console.maintenance.on")
	}
	if _, known := h.Brands(f.Brand); !known && f.Brand != maintenance.AllBrands {
		return validation("brand", "console.maintenance.brand")
	}
	if (f.Brand == maintenance.AllBrands && len(p.Brands) > 0) || !p.Serves(f.Brand) && f.Brand != maintenance.AllBrands {
		h.refuse(r.Context(), r, p, auditBrand, "", "forbidden_brand")
		return errForbiddenBrand
	}
	now := h.Now()
	c := maintenance.Change{Brand: f.Brand, At: now, Actor: p.Actor()}
	out := maintenanceAnswer{Brand: f.Brand, On: *f.On}
	if !*f.On {
		if _, err := maintenance.Off(r.Context(), h.DB, c); err != nil {
			if errors.Is(err, maintenance.ErrEveryBrandOn) {
				return errEveryBrandOn
			}
			return err
		}
		api.JSON(w, http.StatusOK, out)
		return nil
	}
	if f.Until != nil {
		if !f.Until.After(now) {
			return validation("until", "console.maintenance.until")
		}
		c.Until = f.Until.UTC()
		out.Until = &c.Until
	}
	if err := maintenance.On(r.Context(), h.DB, c); err != nil {
		return err
	}
	api.JSON(w, http.StatusOK, out)
	return nil
}

// maxPeriod bounds an audit export.
const maxPeriod = 366 * 24 * time.Hour

// parseInstant reads an RFC 3339 time or a date (midnight UTC).
func parseInstant(s string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// periodError is the answer to a from or to that is no instant: VALIDATION
// when missing (the console's form left it empty), INVALID_FIELD when it
// is something else than a date or an RFC 3339 instant (the query
// parameters' shape, as httpapi refuses the others').
func periodError(field, v string) error {
	if v == "" {
		return validation(field, errPeriodInvalid)
	}
	e := api.NewError(http.StatusBadRequest, "INVALID_FIELD", errPeriodInvalid)
	e.Field = field
	return e
}

// AuditColumns are the audit export's columns, in order.
var AuditColumns = []string{"at", "brand", "account_id", "ip", "event", "outcome", "detail", "actor"}

// AuditExport is GET /audit.csv?from=&to=&brand=: the audit rows of [from,
// to) as RFC 4180 CSV (CRLF line ends, quotes where needed), within the
// brands served (brand narrows to one). The export itself is audited.
func (h *Handler) AuditExport(w http.ResponseWriter, r *http.Request) error {
	p, err := h.call(r, staff.RoleSupervisor, false)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	from, okFrom := parseInstant(q.Get("from"))
	if !okFrom {
		return periodError("from", q.Get("from"))
	}
	to, okTo := parseInstant(q.Get("to"))
	if !okTo {
		return periodError("to", q.Get("to"))
	}
	if !to.After(from) || to.Sub(from) > maxPeriod {
		return validation("to", errPeriodInvalid)
	}
	brands := p.Brands
	if b := q.Get("brand"); b != "" {
		if !p.Serves(b) {
			h.refuse(r.Context(), r, p, auditBrand, "", "forbidden_brand")
			return errForbiddenBrand
		}
		brands = []string{b}
	}
	detail := from.UTC().Format(time.RFC3339) + "/" + to.UTC().Format(time.RFC3339)
	if len(brands) > 0 {
		detail += " " + strings.Join(brands, ",")
	}
	if err := h.record(r.Context(), h.DB, r, p, audit.Event{Brand: auditBrand, Event: EventAuditExport, Outcome: "ok",
		Detail: detail}); err != nil {
		return err
	}
	where, args := "at >= ? AND at < ?", []any{from.UnixMilli(), to.UnixMilli()}
	if len(brands) > 0 {
		where += " AND brand IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(brands)), ", ") + ")"
		for _, b := range brands {
			args = append(args, b)
		}
	}
	rows, err := h.DB.Query(r.Context(), "SELECT at, brand, account_id, ip, event, outcome, detail, actor FROM audit_events WHERE "+
		where+" ORDER BY at, id", args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="audit-`+from.UTC().Format("20060102")+"-"+to.UTC().Format("20060102")+`.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	// Past the header the status is sent: a failure can only cut the file
	// short, so it is logged.
	cut := func(err error) error {
		slog.ErrorContext(r.Context(), "audit export cut short", "err", err)
		return nil
	}
	if err := cw.Write(AuditColumns); err != nil {
		return cut(err)
	}
	rec := make([]string, len(AuditColumns))
	for rows.Next() {
		var at int64
		if err := rows.Scan(&at, &rec[1], &rec[2], &rec[3], &rec[4], &rec[5], &rec[6], &rec[7]); err != nil {
			return cut(err)
		}
		rec[0] = time.UnixMilli(at).UTC().Format("2006-01-02T15:04:05.000Z")
		if err := cw.Write(rec); err != nil {
			return cut(err)
		}
	}
	if err := rows.Err(); err != nil {
		return cut(err)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return cut(err)
	}
	return nil
}

// PurgeAudit deletes the audit rows older than months months before now
// (the janitor's clean-up; DefaultAuditRetentionMonths unless configured).
func PurgeAudit(ctx context.Context, db audit.Execer, now time.Time, months int) (int64, error) {
	if months < 1 {
		return 0, nil
	}
	res, err := db.Exec(ctx, "DELETE FROM audit_events WHERE at < ?", now.AddDate(0, -months, 0).UnixMilli())
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// DefaultAuditRetentionMonths is how long audit rows are kept (PIPEDA and
// Quebec Law 25's breach register: 24 months).
const DefaultAuditRetentionMonths = 24
