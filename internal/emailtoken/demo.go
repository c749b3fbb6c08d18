package emailtoken

import (
	"context"
	"fmt"
	"strings"
	"time"

	"guichet/internal/account"
	"guichet/internal/brand"
	"guichet/internal/policy"
	"guichet/internal/store"
)

// DemoDateOfBirth is the date of birth of the --dev token demo people but
// TOK-0004 (whose is the francais demo account's).
const DemoDateOfBirth = "1985-03-14"

// DemoCellPhone is the cell phone on file of the UBI driver TOK-0003.
const DemoCellPhone = "5145550303"

// DemoPerson is one --dev token demo person, for the README and
// docs/registration-demo.md.
type DemoPerson struct {
	Brand, PolicyNumber, FirstName, LastName, Email, Action string
}

// demoPeople: one per action of the token routing table; n numbers the
// policy (TOK0001...). local is the email's local part at <brand>.example;
// owns, the local part of the demo account the person is registered
// under ("": none).
var demoPeople = []struct {
	n           int
	role, kind  string
	first, last string
	local, owns string
	phone       string
	ubi         bool
	action      string
}{
	{1, "holder", "auto", "Théo", "Jeton", "tok-new", "", "", false, ActionRegister},
	{2, "holder", "home", "Tina", "Prise", "demo", "", "", false, ActionAskUsername},
	{3, "driver", "auto", "Ulric", "Lien", "demo", "", DemoCellPhone, true, ActionAskPassword},
	{4, "holder", "home", "Léa", "Gagnon", "francais", "francais", "", false, ActionReset},
	// Léa again, on a policy whose file gives her the demo account's email:
	// registered as francais@, invited at demo@ (412 INCONSISTENT).
	{9, "holder", "home", "Léa", "Gagnon", "demo", "francais", "", false, ActionInconsistent},
}

// demoLock serialises the seeders of instances sharing a database.
const demoLock = "guichet token demo data"

// SeedDemo imports, for every brand, the token demo people (after
// account.SeedDemo: TOK-0004 is the francais demo account's person, and
// TOK-0002's and TOK-0003's email is the demo account's; TOK-0009 is the
// francais account's person with the demo account's email), unlocked, and
// returns them for the README.
func SeedDemo(ctx context.Context, db *store.DB, brands []*brand.Brand, now time.Time) ([]DemoPerson, error) {
	var csv strings.Builder
	csv.WriteString(strings.Join(policy.Columns, ",") + "\n")
	var out []DemoPerson
	type owner struct{ brand, email, number, first string }
	var owners []owner
	for _, b := range brands {
		province := b.DefaultProvince
		for _, d := range demoPeople {
			number, dob, postal := DemoNumber(b, d.n), DemoDateOfBirth, account.DemoPostalCode(province)
			email := d.local + "@" + b.ID + ".example"
			if d.owns != "" {
				a, err := account.ByEmail(ctx, db, b.ID, d.owns+"@"+b.ID+".example")
				if err != nil {
					return nil, fmt.Errorf("token demo: the %s account of %s: %w", d.owns, b.ID, err)
				}
				dob, postal = a.DateOfBirth, a.PostalCode
				owners = append(owners, owner{b.ID, a.Email, number, d.first})
			}
			fmt.Fprintf(&csv, "%s,%s,%s,%s,%s,%s,%s,%s,%s,,,%s,%s,,%t,active\n", b.ID, number, d.kind, province,
				d.role, d.first, d.last, dob, postal, email, d.phone, d.ubi)
			out = append(out, DemoPerson{Brand: b.ID, PolicyNumber: number, FirstName: d.first, LastName: d.last,
				Email: email, Action: d.action})
		}
	}
	byID := map[string]*brand.Brand{}
	for _, b := range brands {
		byID[b.ID] = b
	}
	im := &policy.Importer{DB: db, Now: now, Lock: demoLock,
		Brands: func(id string) (*brand.Brand, bool) { b, ok := byID[id]; return b, ok }}
	if _, err := im.Import(ctx, strings.NewReader(csv.String())); err != nil {
		return nil, fmt.Errorf("token demo: %w", err)
	}
	err := db.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.Lock(ctx, demoLock); err != nil {
			return err
		}
		for _, b := range brands {
			for _, d := range demoPeople {
				if _, err := tx.Exec(ctx, `UPDATE insured_people SET locked_until = 0
					WHERE policy_id = (SELECT id FROM policies WHERE brand = ? AND number = ?)`,
					b.ID, policy.NormalizeNumber(DemoNumber(b, d.n))); err != nil {
					return err
				}
			}
		}
		for _, o := range owners {
			if _, err := tx.Exec(ctx, `UPDATE insured_people SET account_id = (SELECT id FROM accounts WHERE brand = ? AND email_normalized = ?)
				WHERE brand = ? AND first_name = ? AND policy_id = (SELECT id FROM policies WHERE brand = ? AND number = ?)`,
				o.brand, account.NormalizeEmail(o.email), o.brand, o.first, o.brand, o.number); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// DemoNumber is TOK and digits in the brand's format (policy.DemoNumber).
func DemoNumber(b *brand.Brand, n int) string { return policy.DemoNumber(b, "TOK", n) }
