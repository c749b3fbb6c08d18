package devseed

import (
	"context"
	"fmt"
	"strings"
	"time"

	"guichet/internal/account"
	"guichet/internal/brand"
	"guichet/internal/emailtoken"
	"guichet/internal/policy"
	"guichet/internal/store"
)

// TokenCellPhone is the cell phone on file of the UBI driver TOK-0003.
const TokenCellPhone = "5145550303"

// TokenPerson is one --dev token demo person, for the README and
// docs/registration-demo.md.
type TokenPerson struct {
	Brand, PolicyNumber, FirstName, LastName, Email, Action string
}

// tokenPeople: one per action of the token routing table; n numbers the
// policy (TOK0001...). local is the email's local part at <brand>.example;
// owns, the local part of the demo account the person is registered
// under ("": none).
var tokenPeople = []struct {
	n           int
	role, kind  string
	first, last string
	local, owns string
	phone       string
	ubi         bool
	action      string
}{
	{1, "holder", "auto", "Théo", "Jeton", "tok-new", "", "", false, emailtoken.ActionRegister},
	{2, "holder", "home", "Tina", "Prise", "demo", "", "", false, emailtoken.ActionAskUsername},
	{3, "driver", "auto", "Ulric", "Lien", "demo", "", TokenCellPhone, true, emailtoken.ActionAskPassword},
	{4, "holder", "home", "Léa", "Gagnon", "francais", "francais", "", false, emailtoken.ActionReset},
	// Léa again, on a policy whose file gives her the demo account's email:
	// registered as francais@, invited at demo@ (412 INCONSISTENT).
	{9, "holder", "home", "Léa", "Gagnon", "demo", "francais", "", false, emailtoken.ActionInconsistent},
}

// tokenLock serialises the seeders of instances sharing a database.
const tokenLock = "guichet token demo data"

// TokenPeople imports, for every brand, the token demo people (after
// Accounts: TOK-0004 is the francais demo account's person, and
// TOK-0002's and TOK-0003's email is the demo account's; TOK-0009 is the
// francais account's person with the demo account's email), unlocked, and
// returns them for the README.
func TokenPeople(ctx context.Context, db *store.DB, brands []*brand.Brand, now time.Time) ([]TokenPerson, error) {
	var csv strings.Builder
	csv.WriteString(strings.Join(policy.Columns, ",") + "\n")
	var out []TokenPerson
	type owner struct{ brand, email, number, first string }
	var owners []owner
	for _, b := range brands {
		province := b.DefaultProvince
		for _, d := range tokenPeople {
			number, dob, postal := tokenNumber(b, d.n), DateOfBirth, PostalCode(province)
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
			out = append(out, TokenPerson{Brand: b.ID, PolicyNumber: number, FirstName: d.first, LastName: d.last,
				Email: email, Action: d.action})
		}
	}
	if err := importPeople(ctx, db, brands, csv.String(), tokenLock, now); err != nil {
		return nil, fmt.Errorf("token demo: %w", err)
	}
	err := db.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.Lock(ctx, tokenLock); err != nil {
			return err
		}
		for _, b := range brands {
			for _, d := range tokenPeople {
				if err := policy.UnlockPolicyPeople(ctx, tx, b.ID, policy.NormalizeNumber(tokenNumber(b, d.n))); err != nil {
					return err
				}
			}
		}
		for _, o := range owners {
			if err := setAccountByName(ctx, tx, o.brand, o.email, o.number, o.first, ""); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// tokenNumber is TOK and digits in the brand's format (PolicyNumber).
func tokenNumber(b *brand.Brand, n int) string { return PolicyNumber(b, "TOK", n) }
