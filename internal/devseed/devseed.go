// Package devseed is the demo data of `guichet serve --dev` (README,
// docs/registration-demo.md): the demo accounts of every brand with their
// policies (Accounts), the legacy registration's demo people
// (RegistrationPeople) and the email tokens' (TokenPeople). Only the --dev
// wiring of internal/app imports it. It writes through the owners of the
// tables (account, policy), never with SQL of its own.
package devseed

import (
	"context"
	"fmt"
	"strings"
	"time"

	"guichet/internal/brand"
	"guichet/internal/policy"
	"guichet/internal/rules"
	"guichet/internal/store"
)

// DateOfBirth is the date of birth of the registration and token demo
// people but those of a demo account (the already registered registration
// person, TOK-0004 and TOK-0009: the account's).
const DateOfBirth = "1985-03-14"

// postalCodes gives a plausible postal code for a brand's default
// province.
var postalCodes = map[string]string{
	"ab": "T2P 1J9", "bc": "V6B 1A1", "mb": "R3C 0A5", "nb": "E1C 4M3", "nl": "A1C 5M2",
	"ns": "B3J 1S9", "nt": "X1A 2L9", "nu": "X0A 0H0", "on": "M5V 2T6", "pe": "C1A 4P3",
	"qc": "H2X 1Y4", "sk": "S4P 3Y2", "yt": "Y1A 2C6",
}

// PostalCode is the demo postal code of a province (the demo accounts'
// and registration's demo people's).
func PostalCode(province string) string { return postalCodes[province] }

// PolicyNumber is a demo policy number: prefix (REG, TOK) and n in digits,
// in the brand's policy format of its default province (digits only when
// the format wants no letters there).
func PolicyNumber(b *brand.Brand, prefix string, n int) string {
	f := b.PolicyNumberFormat(b.DefaultProvince)
	format := rules.PolicyFormat{Length: f.Length, Mask: f.Mask}
	for _, prefix := range []string{prefix, ""} {
		if f.Length <= len(prefix) {
			continue
		}
		number := prefix + fmt.Sprintf("%0*d", f.Length-len(prefix), n)
		if _, err := rules.PolicyNumber(number, format); err == nil {
			return number
		}
	}
	return fmt.Sprintf("%0*d", f.Length, n)
}

// importPeople imports demo people from a policy CSV (policy.Columns, the
// header included) under lock, for the brands given.
func importPeople(ctx context.Context, db *store.DB, brands []*brand.Brand, csv, lock string, now time.Time) error {
	byID := map[string]*brand.Brand{}
	for _, b := range brands {
		byID[b.ID] = b
	}
	im := &policy.Importer{DB: db, Now: now, Lock: lock,
		Brands: func(id string) (*brand.Brand, bool) { b, ok := byID[id]; return b, ok }}
	_, err := im.Import(ctx, strings.NewReader(csv))
	return err
}
