// Package staff is the insurer's staff: their accounts (not customers'),
// the second factor (TOTP, recovery codes), the console's sessions on the
// console host, and who may do what (roles, brands). The console's actions
// on customers live in internal/console and read the signed-in staff member
// from the request's context (PrincipalFrom).
package staff

import (
	"context"
	"slices"
	"time"
)

// Role is what a staff member may do: agents serve customers; supervisors
// also import policies, turn maintenance on and off and export the audit
// trail; admins also manage staff.
type Role string

// The roles, least to most.
const (
	RoleAgent      Role = "agent"
	RoleSupervisor Role = "supervisor"
	RoleAdmin      Role = "admin"
)

// Roles lists the roles, least to most.
var Roles = []Role{RoleAgent, RoleSupervisor, RoleAdmin}

// AtLeast tells whether r includes min's rights.
func (r Role) AtLeast(min Role) bool {
	return slices.Index(Roles, r) >= slices.Index(Roles, min) && slices.Contains(Roles, r)
}

// Principal is the staff member a console request acts for.
type Principal struct {
	ID    string
	Email string
	Name  string
	Role  Role
	// Brands are the brands served; nil or empty means every brand.
	Brands []string
	// FactorAt is when the session last proved the second factor (sign-in
	// or re-authentication): state-changing calls want it recent.
	FactorAt time.Time
	// Session is the SHA-256 id hash of the session the principal was read
	// from (never the token; "" when not read from a session): LiveSQL
	// checks that very session in the statement that acts.
	Session string `json:"-"`
}

// Topic is the fan-out topic of a staff member ("staff:<id>"): notified
// after a sign-out or a disable commits, it wakes that member's sockets
// on every instance, which re-check their session in the database and
// close with 4401 when it is gone.
func Topic(staffID string) string { return "staff:" + staffID }

// LiveSQL is an SQL condition (for a WHERE clause) true while p may still
// act: the session p was read from is signed in (not revoked, not
// pending, not expired, not idle) and the account is enabled; without a
// session (p.Session ""), only the account. A frame an open socket sends
// checks it in the statement that stores it, so the first frame after a
// sign-out or a disable is refused, whatever the socket's last check.
func (p Principal) LiveSQL(now time.Time) (string, []any) {
	if p.Session == "" {
		return "EXISTS (SELECT 1 FROM staff_accounts WHERE id = ? AND disabled_at = 0)", []any{p.ID}
	}
	return `EXISTS (SELECT 1 FROM staff_sessions ss JOIN staff_accounts sa ON sa.id = ss.staff_id
		WHERE ss.id_hash = ? AND ss.staff_id = ? AND ss.revoked_at = 0 AND ss.pending = 0 AND ss.expires_at > ?
		AND ss.last_seen_at > ? AND sa.disabled_at = 0)`,
		[]any{p.Session, p.ID, now.UnixMilli(), now.Add(-IdleTimeout).UnixMilli()}
}

// Serves tells whether the staff member may see and act on brand's customers.
func (p Principal) Serves(brand string) bool {
	return len(p.Brands) == 0 || slices.Contains(p.Brands, brand)
}

// Actor is the audit rows' actor for this staff member ("staff:<id>").
func (p Principal) Actor() string { return "staff:" + p.ID }

// FreshFactor is how recent the second factor must be for a
// state-changing call (ASVS 7.5: re-authenticate after 15 minutes).
const FreshFactor = 15 * time.Minute

// FactorFresh tells whether the second factor was proved within
// FreshFactor of now.
func (p Principal) FactorFresh(now time.Time) bool {
	return !p.FactorAt.IsZero() && now.Sub(p.FactorAt) <= FreshFactor
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p (the session middleware sets it;
// tests of the console's handlers may too).
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the staff member of a console request.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
