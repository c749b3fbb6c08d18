package policy

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"guichet/internal/codes"
	"guichet/internal/store"
)

// Status of a policy: only an active policy's people may register.
type Status string

const (
	Active    Status = "active"
	Cancelled Status = "cancelled"
)

// Person is one person insured on a policy, as the insurer's records say
// (imported by `guichet import-policies`): the identity a registration is
// checked against and what is on file to verify it.
type Person struct {
	ID              string
	PolicyID        string
	Brand           string
	Role            Role
	FirstName       string // as imported
	LastName        string
	DateOfBirth     string // YYYY-MM-DD
	PostalCode      string // A9A 9A9, or "" (unknown)
	DriverLicence   string // letters and digits, upper case, or ""
	LicenceProvince string // lower case, or ""
	Email           string // or ""
	CellPhone       string // 10 digits, or ""
	UBI             bool
	PINHash         string // PINHash of the mailed PIN, or ""
	PINIssuedAt     time.Time
	// AccountID is the online account this person registered (or linked);
	// "" when none.
	AccountID string
}

// PINTTL is how long a mailed PIN may be used after it was issued (imported).
const PINTTL = 180 * 24 * time.Hour

// HasPIN reports whether a usable PIN is on file at now.
func (p Person) HasPIN(now time.Time) bool {
	return p.PINHash != "" && now.Before(p.PINIssuedAt.Add(PINTTL))
}

// NameKey is how names are compared (design.md: without case or accents,
// with hyphens, apostrophes and spaces normalised): "Jean-François" and
// "jean francois" and "JEANFRANCOIS" give the same key, "O'Neil" and "ONeil"
// too.
func NameKey(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsSpace(r) || r == '-' || r == '\'' || r == '’' || r == '‐' || r == '–' || r == '.':
		default:
			b.WriteString(strings.ToLower(string(r)))
		}
	}
	return b.String()
}

// PINKey returns the key PINs are stored under (PINHash), derived from the
// server secret in the database (created on first use).
func PINKey(ctx context.Context, db *store.DB, now time.Time, rnd io.Reader) ([]byte, error) {
	secret, err := codes.LoadSecret(ctx, db, pinSecretName, now, rnd)
	if err != nil {
		return nil, err
	}
	return codes.Derive(secret, pinPurpose), nil
}

const pinSecretName = "policy-pin"

// PINHash is how a mailed PIN is stored: HMAC-SHA256 under key of the PIN
// in upper case. A keyed HMAC (not a salted slow hash) so importing the same
// PIN again is recognised as unchanged; the key never leaves the database.
func PINHash(key []byte, pin string) string {
	return codes.HMAC(key, "pin", strings.ToUpper(pin))
}

// Match is the identification of spec §2.4 once each field passed its rule.
type Match struct {
	Brand         string
	Number        string // any mask, any case
	FirstName     string
	LastName      string
	DateOfBirth   string // YYYY-MM-DD
	PostalCode    string // A9A 9A9
	DriverLicence string // "" when the form did not ask for it
}

const selectPerson = `SELECT ip.id, ip.policy_id, ip.brand, ip.role, ip.first_name, ip.last_name, ip.date_of_birth,
	ip.postal_code, ip.driver_licence, ip.licence_province, ip.email, ip.cell_phone, ip.ubi, ip.pin_hash,
	ip.pin_issued_at, COALESCE(ip.account_id, '') FROM insured_people ip`

func scanPerson(row interface{ Scan(...any) error }) (Person, error) {
	var p Person
	var role string
	var ubi int
	var pinAt int64
	err := row.Scan(&p.ID, &p.PolicyID, &p.Brand, &role, &p.FirstName, &p.LastName, &p.DateOfBirth,
		&p.PostalCode, &p.DriverLicence, &p.LicenceProvince, &p.Email, &p.CellPhone, &ubi, &p.PINHash,
		&pinAt, &p.AccountID)
	p.Role, p.UBI = Role(role), ubi != 0
	if pinAt != 0 {
		p.PINIssuedAt = time.UnixMilli(pinAt).UTC()
	}
	return p, err
}

// Reader is a *store.DB or a *store.Tx.
type Reader interface {
	Query(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

// Find returns the person of an active policy that the identification
// names, a holder before a driver; store.ErrNotFound when none. A licence
// typed on the form must equal the one on file, when one is on file.
func Find(ctx context.Context, q Reader, m Match) (Person, error) {
	rows, err := q.Query(ctx, selectPerson+` JOIN policies p ON p.id = ip.policy_id
		WHERE p.brand = ? AND p.number = ? AND p.status = 'active' AND ip.first_name_key = ? AND ip.last_name_key = ?
		AND ip.date_of_birth = ? AND ip.postal_code = ? ORDER BY ip.role DESC, ip.id`,
		m.Brand, NormalizeNumber(m.Number), NameKey(m.FirstName), NameKey(m.LastName), m.DateOfBirth, m.PostalCode)
	if err != nil {
		return Person{}, fmt.Errorf("find person: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		p, err := scanPerson(rows)
		if err != nil {
			return Person{}, err
		}
		if m.DriverLicence != "" && p.DriverLicence != "" && p.DriverLicence != strings.ToUpper(m.DriverLicence) {
			continue
		}
		return p, nil
	}
	if err := rows.Err(); err != nil {
		return Person{}, err
	}
	return Person{}, store.ErrNotFound
}

// People returns the people of the brand's active policy with that number
// (any mask, any case), holders first; none when there is no such policy.
// Smart registration matches the fields a brand asks for against them.
func People(ctx context.Context, q Reader, brand, number string) ([]Person, error) {
	rows, err := q.Query(ctx, selectPerson+` JOIN policies p ON p.id = ip.policy_id
		WHERE p.brand = ? AND p.number = ? AND p.status = 'active' ORDER BY ip.role DESC, ip.id`,
		brand, NormalizeNumber(number))
	if err != nil {
		return nil, fmt.Errorf("people of policy: %w", err)
	}
	return store.Collect(rows, func(rows *sql.Rows) (Person, error) { return scanPerson(rows) })
}

// PersonByID returns a person of a brand.
func PersonByID(ctx context.Context, q Reader, brand, id string) (Person, error) {
	p, err := scanPerson(q.QueryRow(ctx, selectPerson+" WHERE ip.brand = ? AND ip.id = ?", brand, id))
	return p, store.NotFound(err)
}

// SetAccount records the account a person registered or linked.
func SetAccount(ctx context.Context, tx *store.Tx, personID, accountID string, now time.Time) error {
	if _, err := tx.Exec(ctx, "UPDATE insured_people SET account_id = ?, updated_at = ? WHERE id = ?",
		accountID, now.UnixMilli(), personID); err != nil {
		return fmt.Errorf("person account: %w", err)
	}
	return nil
}

// PolicyByID returns a policy record.
func PolicyByID(ctx context.Context, q Reader, id string) (Policy, error) {
	var p Policy
	var kind, status string
	err := q.QueryRow(ctx, "SELECT id, brand, number, kind, province, status FROM policies WHERE id = ?", id).
		Scan(&p.ID, &p.Brand, &p.Number, &kind, &p.Province, &status)
	p.Kind, p.Status = Kind(kind), Status(status)
	return p, store.NotFound(err)
}
