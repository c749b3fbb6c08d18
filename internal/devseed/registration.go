package devseed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"guichet/internal/account"
	"guichet/internal/brand"
	"guichet/internal/policy"
	"guichet/internal/store"
)

// PIN is the registration PIN of the --dev PIN demo person (README).
const PIN = "AB12CD34"

// RegistrationPerson is one --dev registration demo person, for the README and
// docs/registration-demo.md.
type RegistrationPerson struct {
	Brand, PolicyNumber, FirstName, LastName, DateOfBirth, PostalCode string
	Case                                                              string
}

// registrationPeople: one per branch of spec §4.2; n numbers the policy
// (REG0001...), 0 is the demo account's auto policy.
var registrationPeople = []struct {
	n           int
	role, kind  string
	first, last string
	local       string // email on file: local@brand.example ("demo": the demo account's)
	phone, pin  string
	ubi, cancel bool
	what        string
	// byLink is what for a brand that proves an email by link (brand
	// emailProof: link, scotia); "": the same.
	byLink string
}{
	{1, "holder", "auto", "Emma", "Courriel", "reg-email", "", "", false, false, "EMAIL code to reg-email@<brand>.example, then the password page", ""},
	{2, "holder", "auto", "Simon", "Texto", "reg-sms", "5145550101", "", false, false, "SMS code (dev mailbox, to +15145550101), then the password page (username reg-sms@<brand>.example)", ""},
	{3, "holder", "home", "Paula", "Nip", "reg-pin", "", PIN, false, false, "PIN " + PIN + ", then the password page", ""},
	{4, "holder", "home", "Alice", "Sansfil", "", "", "", false, false, "nothing on file: ask-email (account-creation/email), a code to the email typed",
		"nothing on file: ask-email (account-creation/email), 202 email-sent, a link to the email typed (open it: the password page)"},
	{5, "holder", "auto", "Ugo", "Pris", "demo", "", "", false, false, "email on file is the demo account's: code to demo@<brand>.example, then ask-username (new-email)",
		"email on file is the demo account's: code to demo@<brand>.example, then ask-username (new-email), 202 email-sent, a link to the new email"},
	{6, "driver", "auto", "Nora", "Aucun", "", "", "", false, false, "driver with nothing on file: no options (no-options roadblock)", ""},
	{7, "driver", "auto", "Ubald", "Conduit", "demo", "5145550107", "", true, false, "UBI driver whose email is the demo policyholder's: code, then ask-password (password-validation, Guichet-Demo-2026!)", ""},
	{8, "holder", "home", "Carl", "Annule", "reg-cancelled", "", "", false, true, "cancelled policy: not found (404)", ""},
	{9, "holder", "home", "Pia", "Lettre", "", "", PIN, false, false, "PIN only (no email, no cell phone on file): validation/pin at once, PIN " + PIN + ", then ask-email (account-creation/email), a code to the email typed, the password page",
		"PIN only (no email, no cell phone on file): validation/pin at once, PIN " + PIN + ", then ask-email (account-creation/email), 202 email-sent, a link to the email typed (open it: the password page)"},
	{11, "driver", "auto", "Tom", "Temporaire", "temp", "", "", true, false, "UBI driver whose email is temp@<brand>.example's, an account holding a temporary password: code, then password-validation with Temp-Pass-2026: 403 3007 (the forgot-password roadblock)", ""},
	{0, "holder", "auto", "Alex", "Martin", "", "", "", false, false, "already registered (200): the demo account demo@<brand>.example gets a security notice", ""},
}

// registrationLock serialises the seeders of instances sharing a database.
const registrationLock = "guichet registration demo data"

// RegistrationPeople imports, for every brand, the registration demo people (after
// Accounts: the already registered one is the demo account), with
// a fresh PIN issue date, and returns them for the README.
func RegistrationPeople(ctx context.Context, db *store.DB, brands []*brand.Brand, now time.Time) ([]RegistrationPerson, error) {
	var csv strings.Builder
	csv.WriteString(strings.Join(policy.Columns, ",") + "\n")
	var out []RegistrationPerson
	type registered struct{ brand, email, number string }
	var owners []registered
	for _, b := range brands {
		province := b.DefaultProvince
		postal := PostalCode(province)
		for _, d := range registrationPeople {
			number, dob := PolicyNumber(b, "REG", d.n), DateOfBirth
			if d.n == 0 {
				a, err := account.ByEmail(ctx, db, b.ID, "demo@"+b.ID+".example")
				if err != nil {
					return nil, fmt.Errorf("registration demo: the demo account of %s: %w", b.ID, err)
				}
				if number, err = autoPolicy(ctx, db, a.ID); err != nil {
					return nil, fmt.Errorf("registration demo: %s: %w", b.ID, err)
				}
				dob, postal = a.DateOfBirth, a.PostalCode
				owners = append(owners, registered{b.ID, a.Email, number})
			}
			email := ""
			if d.local != "" {
				email = d.local + "@" + b.ID + ".example"
			}
			status := "active"
			if d.cancel {
				status = "cancelled"
			}
			fmt.Fprintf(&csv, "%s,%s,%s,%s,%s,%s,%s,%s,%s,,,%s,%s,%s,%t,%s\n", b.ID, number, d.kind, province,
				d.role, d.first, d.last, dob, postal, email, d.phone, d.pin, d.ubi, status)
			what := d.what
			if b.EmailByLink() && d.byLink != "" {
				what = d.byLink
			}
			out = append(out, RegistrationPerson{Brand: b.ID, PolicyNumber: number, FirstName: d.first, LastName: d.last,
				DateOfBirth: dob, PostalCode: postal, Case: strings.ReplaceAll(what, "<brand>", b.ID)})
		}
	}
	if err := importPeople(ctx, db, brands, csv.String(), registrationLock, now); err != nil {
		return nil, fmt.Errorf("registration demo: %w", err)
	}
	err := db.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.Lock(ctx, registrationLock); err != nil {
			return err
		}
		for _, name := range [][2]string{{"Paula", "Nip"}, {"Pia", "Lettre"}} {
			if err := policy.RenewPINs(ctx, tx, name[0], name[1], now); err != nil {
				return err
			}
		}
		for _, o := range owners {
			if err := setAccountByName(ctx, tx, o.brand, o.email, o.number, "Alex", "Martin"); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// autoPolicy is the number of an account's auto policy.
func autoPolicy(ctx context.Context, db *store.DB, accountID string) (string, error) {
	linked, err := policy.ForAccount(ctx, db, accountID)
	if err != nil {
		return "", err
	}
	for _, l := range linked {
		if l.Kind == policy.Auto && l.Role == policy.Holder {
			return l.Number, nil
		}
	}
	return "", errors.New("no auto policy")
}

// setAccountByName records the account of the email as the account of the
// people named first (and last) on the policy (policy.SetAccountByName;
// no account: none).
func setAccountByName(ctx context.Context, tx *store.Tx, brandID, email, number, first, last string) error {
	accountID := ""
	a, err := account.ByEmail(ctx, tx, brandID, email)
	switch {
	case err == nil:
		accountID = a.ID
	case !errors.Is(err, account.ErrNotFound):
		return err
	}
	return policy.SetAccountByName(ctx, tx, brandID, number, first, last, accountID)
}
