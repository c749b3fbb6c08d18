// Package policy holds the insurance policy records that accounts are linked
// to (a policyholder owns a policy; a UBI or additional driver is covered by
// one). Registration extends these records with the identity fields it
// matches on; sign in only needs the number, the kind and the province.
package policy

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"guichet/internal/store"
)

// Kind is what a policy insures.
type Kind string

const (
	Home Kind = "home"
	Auto Kind = "auto"
)

// Role is how an account relates to a policy.
type Role string

const (
	// Holder owns the policy.
	Holder Role = "holder"
	// Driver is covered by the policy without owning it (UBI driver,
	// additional driver).
	Driver Role = "driver"
)

// Policy is one policy record of a brand.
type Policy struct {
	ID       string
	Brand    string
	Number   string // upper-case letters and digits, no mask characters
	Kind     Kind
	Province string
	Status   Status // Active unless the insurer cancelled it
}

// Linked is a policy as seen from an account: the policy and the account's
// role on it.
type Linked struct {
	Policy
	Role Role
}

// ErrInvalid is returned for a policy or link that breaks the rules below.
var ErrInvalid = errors.New("policy: invalid record")

// NormalizeNumber removes what a mask adds (dashes, spaces) and upper-cases
// the policy number, so "abc-1234" and "ABC1234" are the same policy.
func NormalizeNumber(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == ' ':
			return -1
		case 'a' <= r && r <= 'z':
			return r - 'a' + 'A'
		}
		return r
	}, strings.TrimSpace(s))
}

// Create stores a new policy record (its ID is generated) and returns it.
// A number already used by the brand is store.IsUniqueViolation.
func Create(ctx context.Context, tx *store.Tx, p Policy, now time.Time) (Policy, error) {
	p.Number = NormalizeNumber(p.Number)
	if p.Brand == "" || p.Number == "" || len(p.Number) > 32 || (p.Kind != Home && p.Kind != Auto) || p.Province == "" {
		return Policy{}, fmt.Errorf("%w: brand, number, kind (home|auto) and province are required", ErrInvalid)
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Policy{}, err
	}
	p.ID = base64.RawURLEncoding.EncodeToString(b[:])
	p.Province = strings.ToLower(p.Province)
	_, err := tx.Exec(ctx, "INSERT INTO policies (id, brand, number, kind, province, created_at) VALUES (?, ?, ?, ?, ?, ?)",
		p.ID, p.Brand, p.Number, string(p.Kind), p.Province, now.UnixMilli())
	if err != nil {
		return Policy{}, fmt.Errorf("create policy: %w", err)
	}
	return p, nil
}

// ByNumber finds a brand's policy by its number (any mask, any case).
func ByNumber(ctx context.Context, tx *store.Tx, brand, number string) (Policy, error) {
	var p Policy
	var kind, status string
	err := tx.QueryRow(ctx, "SELECT id, brand, number, kind, province, status FROM policies WHERE brand = ? AND number = ?",
		brand, NormalizeNumber(number)).Scan(&p.ID, &p.Brand, &p.Number, &kind, &p.Province, &status)
	if err != nil {
		return Policy{}, store.NotFound(err)
	}
	p.Kind, p.Status = Kind(kind), Status(status)
	return p, nil
}

// Link records that an account holds or is covered by a policy; linking
// twice keeps the first role.
func Link(ctx context.Context, tx *store.Tx, accountID, policyID string, role Role) error {
	if role != Holder && role != Driver {
		return fmt.Errorf("%w: role %q", ErrInvalid, role)
	}
	_, err := tx.Exec(ctx, `INSERT INTO account_policies (account_id, policy_id, role) VALUES (?, ?, ?)
		ON CONFLICT (account_id, policy_id) DO NOTHING`, accountID, policyID, string(role))
	if err != nil {
		return fmt.Errorf("link policy: %w", err)
	}
	return nil
}

// Querier is a *store.DB or a *store.Tx.
type Querier interface {
	Query(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// ForAccount lists the policies an account is linked to, by number.
func ForAccount(ctx context.Context, q Querier, accountID string) ([]Linked, error) {
	rows, err := q.Query(ctx, `SELECT p.id, p.brand, p.number, p.kind, p.province, ap.role
		FROM account_policies ap JOIN policies p ON p.id = ap.policy_id
		WHERE ap.account_id = ? ORDER BY p.number`, accountID)
	if err != nil {
		return nil, fmt.Errorf("account policies: %w", err)
	}
	defer rows.Close()
	out := []Linked{}
	for rows.Next() {
		var l Linked
		var kind, role string
		if err := rows.Scan(&l.ID, &l.Brand, &l.Number, &kind, &l.Province, &role); err != nil {
			return nil, err
		}
		l.Kind, l.Role = Kind(kind), Role(role)
		out = append(out, l)
	}
	return out, rows.Err()
}
