package console

import (
	"encoding/csv"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"guichet/internal/api"
	"guichet/internal/staff"
)

// maxImport bounds a policy file sent from the console.
const maxImport = 10 << 20

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

// Import is POST /policies/import?dryRun=: the policy CSV (the body) through
// internal/policy's importer; dryRun (the default) reports and writes
// nothing. A staff member serving some brands only may import rows of those
// brands only (403 FORBIDDEN_BRAND for the whole file otherwise).
func (h *Handler) Import(w http.ResponseWriter, r *http.Request) error {
	c, err := h.call(r, staff.RoleSupervisor, true)
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
	res, err := h.Service.Import(r.Context(), c, body, dryRun)
	if err != nil {
		return apiError(err)
	}
	out := importJSON{DryRun: res.DryRun, Rows: res.Rows, Added: res.Added, Updated: res.Updated, Unchanged: res.Unchanged,
		Errors: []rowErrorJSON{}}
	status := http.StatusOK
	if res.Problems != nil {
		out.ErrorCode, status = "IMPORT_INVALID", http.StatusBadRequest
		for _, e := range res.Problems {
			out.Errors = append(out.Errors, rowErrorJSON{Line: e.Line, Column: e.Column, Problem: e.Problem})
		}
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
	var f maintenanceForm
	c, err := h.callWith(w, r, staff.RoleSupervisor, &f)
	if err != nil {
		return err
	}
	m, err := h.Service.Maintenance(r.Context(), c, f.Brand, f.On, f.Until)
	return api.Reply(w, http.StatusOK, maintenanceAnswer{Brand: m.Brand, On: m.On, Until: timeOrNil(m.Until)}, apiError(err))
}

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
	c, err := h.call(r, staff.RoleSupervisor, false)
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
	events, err := h.Service.AuditExport(r.Context(), c, from, to, q.Get("brand"))
	if err != nil {
		return apiError(err)
	}
	defer events.Close()
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
	for events.Next() {
		e, err := events.Event()
		if err != nil {
			return cut(err)
		}
		rec := []string{e.At.Format("2006-01-02T15:04:05.000Z"), e.Brand, e.AccountID, e.IP, string(e.Event), e.Outcome, e.Detail, e.Actor}
		if err := cw.Write(rec); err != nil {
			return cut(err)
		}
	}
	if err := events.Err(); err != nil {
		return cut(err)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return cut(err)
	}
	return nil
}
