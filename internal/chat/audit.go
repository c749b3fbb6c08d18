package chat

import (
	"context"
	"log/slog"

	"guichet/internal/audit"
	"guichet/internal/staff"
)

// AuditStaff records a staff member's chat action from ip. The action
// stands whether its row is written or not; a failed write is logged.
func (s *Service) AuditStaff(ctx context.Context, ip string, p staff.Principal, event audit.Name, outcome, detail string) {
	if err := audit.Record(ctx, s.DB, audit.Event{At: s.now(), Brand: staff.AuditBrand, AccountID: p.ID, IP: ip,
		Event: event, Outcome: outcome, Detail: detail, Actor: p.Actor()}); err != nil {
		slog.WarnContext(ctx, "chat audit", "event", event, "err", err)
	}
}
