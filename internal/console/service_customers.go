package console

import (
	"context"
	"strings"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/policy"
	"guichet/internal/registration"
)

// searchLimit bounds a search's answer.
const searchLimit = 50

// Search finds the customers whose email starts with q, whose first, last
// or full name starts with q, who hold the policy numbered q or whose phone
// is q, within the brands the staff member serves (and brand, when given:
// none when it is a brand not served). A q shorter than 2 characters is
// invalid. Two queries whatever the number of customers found.
func (s *Service) Search(ctx context.Context, c Caller, q, brand string) ([]account.Account, error) {
	q = strings.TrimSpace(q)
	if len([]rune(q)) < 2 || len(q) > 254 {
		return nil, invalid("q", "console.search.tooShort")
	}
	brands := c.Staff.Brands
	if brand != "" {
		if !c.Staff.Serves(brand) {
			return nil, nil
		}
		brands = []string{brand}
	}
	var holders []string
	if number := policy.NormalizeNumber(q); number != "" {
		var err error
		if holders, err = policy.AccountsHolding(ctx, s.DB, number); err != nil {
			return nil, err
		}
	}
	return account.SearchForStaff(ctx, s.DB, account.StaffSearch{Prefix: q, Phone: phoneDigits(q), IDs: holders,
		Brands: brands, Limit: searchLimit})
}

// phoneDigits is q as a 10-digit phone number, or "" when it is not one.
func phoneDigits(q string) string {
	var d []byte
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c >= '0' && c <= '9':
			d = append(d, c)
		case c == ' ' || c == '-' || c == '(' || c == ')' || c == '.' || c == '+':
		default:
			return ""
		}
	}
	if len(d) == 11 && d[0] == '1' {
		d = d[1:]
	}
	if len(d) != 10 {
		return ""
	}
	return string(d)
}

// Events of a successful sign-in.
var signInEvents = []audit.Name{audit.LoginAuthentication, audit.SSOLogin}

// Detail is the console's view of a customer.
type Detail struct {
	Account account.Account
	// At is when the view was read.
	At time.Time
	// LockedUntil is the end of a timed lock running at At (zero: none).
	LockedUntil time.Time
	// TemporaryExpiresAt is the end of a temporary password still usable
	// at At (zero: none).
	TemporaryExpiresAt time.Time
	FailedAttempts     int
	Policies           []policy.Linked
	// LastSignIns are the 10 most recent, newest first.
	LastSignIns       []time.Time
	OpenRegistrations []registration.OpenRegistration
	// Events are the 50 most recent audit events, newest first.
	Events []audit.Event
	// Passkeys is how many passkeys the account has (issue 31).
	Passkeys int
	// DeletionAt is when the customer's pending deletion of their account
	// happens (zero: none pending); staff only see it.
	DeletionAt time.Time
}

// View reads a customer's Detail (a customer Customer returned: of a brand
// served) and audits the view.
func (s *Service) View(ctx context.Context, c Caller, a account.Account) (Detail, error) {
	d, err := s.detail(ctx, a)
	if err != nil {
		return d, err
	}
	err = s.record(ctx, s.DB, c, audit.Event{Brand: a.Brand, AccountID: a.ID, Event: audit.ConsoleCustomerView, Outcome: "ok"})
	return d, err
}

func (s *Service) detail(ctx context.Context, a account.Account) (Detail, error) {
	now := s.Now()
	d := Detail{Account: a, At: now}
	if now.Before(a.LockedUntil) {
		d.LockedUntil = a.LockedUntil
	}
	facts, err := account.StaffFactsOf(ctx, s.DB, a.ID)
	if err != nil {
		return d, err
	}
	if a.Status == account.Temporary && facts.TemporaryExpiresAt.UnixMilli() > now.UnixMilli() {
		d.TemporaryExpiresAt = facts.TemporaryExpiresAt
	}
	d.FailedAttempts = facts.FailedAttempts
	if d.Policies, err = policy.ForAccount(ctx, s.DB, a.ID); err != nil {
		return d, err
	}
	if d.LastSignIns, err = audit.Times(ctx, s.DB, a.Brand, a.ID, "ok", 10, signInEvents...); err != nil {
		return d, err
	}
	people, err := policy.PeopleOfAccount(ctx, s.DB, a.ID)
	if err != nil {
		return d, err
	}
	d.OpenRegistrations, err = registration.OpenFor(ctx, s.DB, a.Brand, account.NormalizeEmail(a.Email), people, now)
	if err != nil {
		return d, err
	}
	if s.Passkeys != nil {
		if d.Passkeys, err = s.Passkeys.Count(ctx, a.ID); err != nil {
			return d, err
		}
	}
	if s.Deletions != nil {
		if d.DeletionAt, err = s.Deletions.DeletionDate(ctx, a.Brand, a.ID); err != nil {
			return d, err
		}
	}
	events, err := audit.ForAccount(ctx, s.DB, a.Brand, a.ID, 50)
	if err != nil {
		return d, err
	}
	for i := len(events) - 1; i >= 0; i-- {
		d.Events = append(d.Events, events[i])
	}
	return d, nil
}
