package console

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"guichet/internal/audit"
	"guichet/internal/maintenance"
	"guichet/internal/policy"
)

// The supervisors' calls: after Authorize with RoleSupervisor.

// Imported is what a policy import did (or would do, on a dry run).
type Imported struct {
	DryRun bool
	policy.ImportResult
	// Problems are the file's rows refused (nothing was written).
	Problems policy.ImportErrors
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

// Import runs the policy CSV body through internal/policy's importer;
// dryRun reports and writes nothing. A staff member serving some brands
// only may import rows of those brands only (ErrForbiddenBrand for the
// whole file otherwise). The import is audited.
func (s *Service) Import(ctx context.Context, c Caller, body []byte, dryRun bool) (Imported, error) {
	if len(c.Staff.Brands) > 0 {
		brands, ok := fileBrands(body)
		if !ok {
			// Unreadable as CSV: the importer reports why and writes nothing.
			dryRun = true
		}
		for _, b := range brands {
			if !c.Staff.Serves(b) {
				s.refuse(ctx, c, auditBrand, "", "forbidden_brand")
				return Imported{}, ErrForbiddenBrand
			}
		}
	}
	im := policy.Importer{DB: s.DB, Brands: s.Brands, Now: s.Now(), DryRun: dryRun}
	res, err := im.Import(ctx, bytes.NewReader(body))
	out := Imported{DryRun: dryRun, ImportResult: res}
	outcome := "ok"
	switch {
	case errors.As(err, &out.Problems):
		outcome = "invalid"
	case err != nil:
		return out, err
	}
	detail := res.String()
	if dryRun {
		detail = "dry run: " + detail
	}
	err = s.record(ctx, s.DB, c, audit.Event{Brand: auditBrand, Event: audit.ConsolePolicyImport, Outcome: outcome, Detail: detail})
	return out, err
}

// MaintenanceState is a brand's maintenance mode after a change.
type MaintenanceState struct {
	Brand string
	On    bool
	Until time.Time // zero: until turned off
}

// Maintenance turns a brand's maintenance mode on (until optional) or off
// (internal/maintenance, which audits it with the staff member as actor).
// maintenance.AllBrands (every brand) is for staff serving every brand.
func (s *Service) Maintenance(ctx context.Context, c Caller, brand string, on *bool, until *time.Time) (MaintenanceState, error) {
	if on == nil {
		return MaintenanceState{}, invalid("on", "console.maintenance.on")
	}
	if _, known := s.Brands(brand); !known && brand != maintenance.AllBrands {
		return MaintenanceState{}, invalid("brand", "console.maintenance.brand")
	}
	p := c.Staff
	if (brand == maintenance.AllBrands && len(p.Brands) > 0) || !p.Serves(brand) && brand != maintenance.AllBrands {
		s.refuse(ctx, c, auditBrand, "", "forbidden_brand")
		return MaintenanceState{}, ErrForbiddenBrand
	}
	now := s.Now()
	ch := maintenance.Change{Brand: brand, At: now, Actor: p.Actor()}
	out := MaintenanceState{Brand: brand, On: *on}
	if !*on {
		_, err := maintenance.Off(ctx, s.DB, ch)
		return out, err
	}
	if until != nil {
		if !until.After(now) {
			return MaintenanceState{}, invalid("until", "console.maintenance.until")
		}
		ch.Until = until.UTC()
		out.Until = ch.Until
	}
	return out, maintenance.On(ctx, s.DB, ch)
}

// maxPeriod bounds an audit export.
const maxPeriod = 366 * 24 * time.Hour

// errPeriodInvalid is the message key of an export's period refused.
const errPeriodInvalid = "console.audit.period"

// AuditExport opens the audit rows of [from, to) within the brands served
// (brand narrows to one), oldest first; the period is at most maxPeriod.
// The export itself is audited. The caller closes the cursor.
func (s *Service) AuditExport(ctx context.Context, c Caller, from, to time.Time, brand string) (*audit.Cursor, error) {
	if !to.After(from) || to.Sub(from) > maxPeriod {
		return nil, invalid("to", errPeriodInvalid)
	}
	brands := c.Staff.Brands
	if brand != "" {
		if !c.Staff.Serves(brand) {
			s.refuse(ctx, c, auditBrand, "", "forbidden_brand")
			return nil, ErrForbiddenBrand
		}
		brands = []string{brand}
	}
	detail := from.UTC().Format(time.RFC3339) + "/" + to.UTC().Format(time.RFC3339)
	if len(brands) > 0 {
		detail += " " + strings.Join(brands, ",")
	}
	if err := s.record(ctx, s.DB, c, audit.Event{Brand: auditBrand, Event: audit.ConsoleAuditExport, Outcome: "ok",
		Detail: detail}); err != nil {
		return nil, err
	}
	return audit.Between(ctx, s.DB, from, to, brands)
}

// PurgeAudit deletes the audit rows older than months months before now
// (the janitor's clean-up; DefaultAuditRetentionMonths unless configured).
func PurgeAudit(ctx context.Context, db audit.Execer, now time.Time, months int) (int64, error) {
	if months < 1 {
		return 0, nil
	}
	return audit.PurgeBefore(ctx, db, now.AddDate(0, -months, 0))
}

// DefaultAuditRetentionMonths is how long audit rows are kept (PIPEDA and
// Quebec Law 25's breach register: 24 months).
const DefaultAuditRetentionMonths = 24
