// Package accounttest holds the account fixtures of every package's tests:
// the test hasher parameters, stored accounts and the policies they hold
// (policy files imported, accounts linked). Only _test.go files
// import it (testenv's TestOnlyTestsImportTestenv checks).
package accounttest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/brand"
	"guichet/internal/policy"
	"guichet/internal/store"
)

// Params keep argon2 fast in tests; account's TestDefaultParamsAreTheDesigns
// checks the production ones.
var Params = account.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

// Hasher is a hasher of Params.
func Hasher() *account.Hasher { return account.NewHasher(Params) }

// Service is an account service on db with the clock now, the test
// hasher, no rate limits and no per-address share of the hashers (their
// concurrent requests all come from one address): the flows' tests, which
// test their own limits; account and httpapi test the share.
func Service(db *store.DB, now func() time.Time) *account.Service {
	s := account.NewService(db, Hasher(), now)
	s.Limits = account.Limits{}
	s.Hasher.ClientShare = 0
	return s
}

// Hash is the hash of a password under Params.
func Hash(t testing.TB, password string) string {
	t.Helper()
	h, err := Hasher().Hash(context.Background(), password)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TemporaryFor is how long a temporary password given by Create or
// GiveTemporary lasts, as staff give them.
const TemporaryFor = 7 * 24 * time.Hour

// Create stores the account a (Status Locked stores it locked with no
// end) with the password, and a temporary password when temp is set, at
// now; it returns the stored account with its id and status.
func Create(t testing.TB, db *store.DB, now time.Time, a account.Account, password, temp string) account.Account {
	t.Helper()
	ctx := context.Background()
	pwHash := Hash(t, password)
	locked := a.Status == account.Locked
	a.Status = account.Active
	err := db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if a, err = account.Insert(ctx, tx, a, pwHash, now); err != nil {
			return err
		}
		if locked {
			if err := account.Lock(ctx, tx, a.ID, time.Time{}, now); err != nil {
				return err
			}
			a.Status = account.Locked
		}
		return nil
	})
	if err != nil {
		t.Fatalf("create account %s: %v", a.Email, err)
	}
	if temp != "" {
		GiveTemporary(t, db, now, a.ID, temp)
		a.Status = account.Temporary
	}
	return a
}

// Insert stores the account a with no password at now (as a registration
// not finished, or staff, leave one) and returns it with its id.
func Insert(t testing.TB, db *store.DB, now time.Time, a account.Account) account.Account {
	t.Helper()
	ctx := context.Background()
	err := db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		a, err = account.Insert(ctx, tx, a, "", now)
		return err
	})
	if err != nil {
		t.Fatalf("insert account %s: %v", a.Email, err)
	}
	return a
}

// GiveTemporary issues a temporary password to the account at now, as
// staff do, lasting TemporaryFor.
func GiveTemporary(t testing.TB, db *store.DB, now time.Time, accountID, temp string) {
	t.Helper()
	ctx := context.Background()
	th := Hash(t, temp)
	err := db.InTx(ctx, func(tx *store.Tx) error {
		return account.SetTemporaryPassword(ctx, tx, accountID, th, now.Add(TemporaryFor), now)
	})
	if err != nil {
		t.Fatalf("temporary password: %v", err)
	}
}

// Linked returns "number:role" of the policies linked to the brand's
// account of that email.
func Linked(t testing.TB, db *store.DB, brandID, email string) []string {
	t.Helper()
	ctx := context.Background()
	a, err := account.ByEmail(ctx, db, brandID, email)
	if err != nil {
		t.Fatalf("account %s: %v", email, err)
	}
	ps, err := policy.ForAccount(ctx, db, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.Number+":"+string(p.Role))
	}
	return out
}

// ExpectLinked fails the test unless the policies linked to the brand's
// account of that email are want ("number:role", in Linked's order).
func ExpectLinked(t testing.TB, db *store.DB, brandID, email string, want ...string) {
	t.Helper()
	if got := Linked(t, db, brandID, email); !slices.Equal(got, want) {
		t.Fatalf("linked %v, want %v", got, want)
	}
}

// PolicyHeader is the header row of the tests' policy files, the columns
// in the order their rows give them.
const PolicyHeader = "brand,policy_number,kind,province,role,first_name,last_name,date_of_birth,postal_code,driver_licence,licence_province,email,cell_phone,pin,ubi,status\n"

// The owner is the person the registration flows' tests (registration,
// emailtoken) find registered already: Olivia Owner, holder of belair's
// OWN0001 (province on), whose email other people's policy rows give.
const (
	OwnerEmail    = "owner@example.com"
	OwnerPassword = "Correct-Horse-9!"
	// OwnerPolicy is the owner's row of a policy file (PolicyHeader).
	OwnerPolicy = "belair,OWN0001,auto,on,holder,Olivia,Owner,1980-04-12,M5V 2T6,,,owner@example.com,,,false,active\n"
)

// Owner stores the owner's account in language ("" leaves the account's
// default), the holder of OWN0001: a policy file holding OwnerPolicy is
// imported first.
func Owner(t testing.TB, db *store.DB, now time.Time, language string) account.Account {
	t.Helper()
	return Holder(t, db, now, account.Account{Brand: "belair", Email: OwnerEmail, Language: language,
		FirstName: "Olivia", LastName: "Owner", DateOfBirth: "1980-04-12", PostalCode: "M5V 2T6"}, OwnerPassword, "OWN0001")
}

// ImportPolicies imports a policy file (the CSV `guichet import-policies`
// reads) of the brands found by id at now.
func ImportPolicies(t testing.TB, db *store.DB, brands func(id string) (*brand.Brand, bool), now time.Time, file string) {
	t.Helper()
	im := &policy.Importer{DB: db, Brands: brands, Now: now}
	if _, err := im.Import(context.Background(), strings.NewReader(file)); err != nil {
		t.Fatalf("import policies: %v", err)
	}
}

// Holder stores the account with the password (Create) as the holder of
// the brand's policy of that number, the policy's insured people made its
// own: as a finished registration leaves them.
func Holder(t testing.TB, db *store.DB, now time.Time, a account.Account, password, number string) account.Account {
	t.Helper()
	a = Create(t, db, now, a, password, "")
	ctx := context.Background()
	err := db.InTx(ctx, func(tx *store.Tx) error {
		p, err := policy.ByNumber(ctx, tx, a.Brand, number)
		if err != nil {
			return err
		}
		if err := policy.Link(ctx, tx, a.ID, p.ID, policy.Holder); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "UPDATE insured_people SET account_id = ? WHERE policy_id = ?", a.ID, p.ID)
		return err
	})
	if err != nil {
		t.Fatalf("holder of %s: %v", number, err)
	}
	return a
}
