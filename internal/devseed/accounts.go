package devseed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"guichet/internal/account"
	"guichet/internal/brand"
	"guichet/internal/policy"
	"guichet/internal/store"
)

// Passwords of the demo accounts (README).
const (
	Password          = "Guichet-Demo-2026!"
	TemporaryPassword = "Temp-Pass-2026"
	// temporaryTTL keeps the demo temporary password usable for a month
	// after each start that (re)issues it.
	temporaryTTL = 30 * 24 * time.Hour
)

// knownHashes are Password's and TemporaryPassword's hashes at
// account.DefaultParams, made once (public demo passwords, like the README
// that prints them). A first --dev start stores them instead of running
// argon2id: it was most of that start's time and left the memory of the
// hashes resident (issue 34). A server on other parameters (tests choose
// cheap ones) hashes as before; a sign-in checks these like any hash.
var knownHashes = map[string]string{
	Password:          "$argon2id$v=19$m=19456,t=2,p=1$OGDOX/yCEV1PnqYvspW+rA$oAIdaiLhI+HEI2OAb+gi9E2jS5yAFSBXvPDlisWOF8M",
	TemporaryPassword: "$argon2id$v=19$m=19456,t=2,p=1$nK9rIuoh5vZZiXBagCIgrw$uf3mXI1PH00lU1MrSlfLUy1kdnv+u12VwdffoXk9Ffk",
}

// Account describes one seeded account for the README.
type Account struct {
	Brand    string
	Email    string
	Password string
	Case     string // what signing in with it shows
}

// demoCase is one kind of demo account, repeated for every brand.
type demoCase struct {
	local     string
	status    account.Status
	ubi       bool
	language  string
	first     string
	last      string
	policies  []policy.Kind // held; a UBI driver is covered by the demo holder's auto policy
	password  string
	temporary bool
	disabled  bool
	noPhone   bool // no cell phone on file (the others have 514-555-0123)
	what      string
}

var demoCases = []demoCase{
	{local: "demo", status: account.Active, language: "en", first: "Alex", last: "Martin",
		policies: []policy.Kind{policy.Home, policy.Auto}, password: Password,
		what: "active policyholder with a home and an auto policy: signs in to /my-account"},
	{local: "temp", status: account.Temporary, language: "en", first: "Sam", last: "Roy",
		policies: []policy.Kind{policy.Home}, password: TemporaryPassword, temporary: true,
		what: "holds a temporary password: the login goes to /reset; three wrong tries show the temporary roadblock"},
	{local: "locked", status: account.Locked, language: "en", first: "Jordan", last: "Leblanc",
		policies: []policy.Kind{policy.Auto}, password: Password,
		what: "locked by staff: every password answers like a wrong one"},
	{local: "ubi", status: account.Active, ubi: true, language: "en", first: "Taylor", last: "Côté",
		password: Password,
		what:     "UBI driver covered by the demo policyholder's auto policy"},
	{local: "francais", status: account.Active, language: "fr", first: "Léa", last: "Gagnon",
		policies: []policy.Kind{policy.Home}, password: Password,
		what: "French-speaking policyholder (emails in French)"},
	{local: "disabled", status: account.Active, disabled: true, language: "en", first: "Morgan", last: "Tremblay",
		policies: []policy.Kind{policy.Home}, password: Password,
		what: "disabled by staff: the right password shows the block roadblock, a wrong one the login error"},
	{local: "ubi-nophone", status: account.Active, ubi: true, noPhone: true, language: "en", first: "Robin", last: "Sanscell",
		password: Password,
		what:     "UBI driver with no cell phone on file: a forgotten password's reset cannot prove the phone, the two-factor roadblock (403 3006)"},
}

// Accounts creates the --dev demo accounts of every brand (README) and puts
// existing ones back in their demo state: status, lockout cleared, a usable
// temporary password for temp@. Passwords of existing accounts are left as
// they are (delete the data directory to start over). Passwords get
// hasher's parameters (the server's: DefaultParams unless a test chose
// cheaper ones; at DefaultParams the knownHashes, no hash run) and it
// returns the list for the README.
//
// It runs in one transaction under a lock: instances starting together on
// one database seed one after the other, and the later ones find the demo
// accounts the first created.
func Accounts(ctx context.Context, db *store.DB, brands []*brand.Brand, hasher *account.Hasher, now time.Time) ([]Account, error) {
	// One hash per password for all demo accounts: demo data only, and it
	// keeps the start of --dev quick.
	hashes := map[string]string{}
	if hasher.Params() == account.DefaultParams {
		hashes = maps.Clone(knownHashes)
	}
	hashOf := func(password string) (string, error) {
		if h, ok := hashes[password]; ok {
			return h, nil
		}
		h, err := hasher.Hash(ctx, password)
		if err == nil {
			hashes[password] = h
		}
		return h, err
	}
	var out []Account
	seedHook("start")
	err := db.InTx(ctx, func(tx *store.Tx) error {
		out = out[:0]
		if err := tx.Lock(ctx, demoLock); err != nil {
			return err
		}
		for _, b := range brands {
			var holderAuto string // the demo holder's auto policy, for the UBI driver
			for _, c := range demoCases {
				email := c.local + "@" + b.ID + ".example"
				a, err := account.ByEmail(ctx, tx, b.ID, email)
				seedHook("looked up " + email)
				switch {
				case errors.Is(err, account.ErrNotFound):
					a, err = createDemo(ctx, tx, b, c, email, hashOf, now)
				case err == nil:
					err = restoreDemo(ctx, tx, a, c, hashOf, now)
				}
				if err != nil {
					return fmt.Errorf("demo account %s: %w", email, err)
				}
				linked, err := linkDemoPolicies(ctx, tx, b, a, c, holderAuto, now)
				if err != nil {
					return fmt.Errorf("demo policies of %s: %w", email, err)
				}
				if c.local == "demo" {
					holderAuto = linked
				}
				out = append(out, Account{Brand: b.ID, Email: email, Password: c.password, Case: c.what})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// demoLock serialises the seeders of instances sharing a database.
const demoLock = "guichet demo data"

// seedHook runs when Accounts starts and between its look-up of a demo
// account and the account's creation; tests use it to line two seeders up
// on that gap.
var seedHook = func(event string) {}

func createDemo(ctx context.Context, tx *store.Tx, b *brand.Brand, c demoCase, email string,
	hashOf func(string) (string, error), now time.Time) (account.Account, error) {
	h, err := hashOf(c.password)
	if err != nil {
		return account.Account{}, err
	}
	pwHash, tempHash := h, ""
	if c.temporary {
		pwHash, tempHash = "", h
	}
	phone := "5145550123"
	if c.noPhone {
		phone = ""
	}
	a, err := account.Insert(ctx, tx, account.Account{
		Brand: b.ID, Email: email, Status: account.Active, UBIDriver: c.ubi, FirstName: c.first, LastName: c.last,
		Language: c.language, PostalCode: PostalCode(b.DefaultProvince), Phone: phone,
		DateOfBirth: "1980-04-12",
	}, pwHash, now)
	if err != nil {
		return account.Account{}, err
	}
	return a, applyDemoState(ctx, tx, a.ID, c, tempHash, now)
}

// restoreDemo puts an existing demo account back in its demo state.
func restoreDemo(ctx context.Context, tx *store.Tx, a account.Account, c demoCase, hashOf func(string) (string, error), now time.Time) error {
	usable, err := account.UsableTemporaryHash(ctx, tx, a.Brand, a.ID, now)
	if err != nil {
		return err
	}
	tempHash := ""
	if c.temporary {
		tempHash = usable
		if usable == "" {
			if tempHash, err = hashOf(c.password); err != nil {
				return err
			}
		}
	}
	return applyDemoState(ctx, tx, a.ID, c, tempHash, now)
}

func applyDemoState(ctx context.Context, tx *store.Tx, id string, c demoCase, tempHash string, now time.Time) error {
	if err := account.ClearSignInState(ctx, tx, id, now); err != nil {
		return err
	}
	disabledAt := time.Time{}
	if c.disabled {
		disabledAt = now
	}
	if err := account.SetDisabledAt(ctx, tx, id, disabledAt); err != nil {
		return err
	}
	switch c.status {
	case account.Locked:
		return account.Lock(ctx, tx, id, time.Time{}, now)
	case account.Temporary:
		return account.SetTemporaryPassword(ctx, tx, id, tempHash, now.Add(temporaryTTL), now)
	}
	return nil
}

// linkDemoPolicies makes sure the demo account holds its policies (numbers
// derived from the brand and the case, in the brand's format) and returns
// the id of its auto policy, if any.
func linkDemoPolicies(ctx context.Context, tx *store.Tx, b *brand.Brand, a account.Account, c demoCase, holderAuto string,
	now time.Time) (string, error) {
	if c.ubi && holderAuto != "" {
		return "", policy.Link(ctx, tx, a.ID, holderAuto, policy.Driver)
	}
	auto := ""
	for i, kind := range c.policies {
		number := demoPolicyNumber(b, c, i)
		p, err := policy.ByNumber(ctx, tx, b.ID, number)
		if errors.Is(err, store.ErrNotFound) {
			p, err = policy.Create(ctx, tx, policy.Policy{Brand: b.ID, Number: number, Kind: kind, Province: b.DefaultProvince}, now)
		}
		if err != nil {
			return "", err
		}
		if err := policy.Link(ctx, tx, a.ID, p.ID, policy.Holder); err != nil {
			return "", err
		}
		if kind == policy.Auto {
			auto = p.ID
		}
	}
	return auto, nil
}

// demoPolicyNumber is three letters of the brand, then digits up to the
// brand's policy number length in its default province.
func demoPolicyNumber(b *brand.Brand, c demoCase, i int) string {
	length := b.PolicyNumberFormat(b.DefaultProvince).Length
	if length < 7 {
		length = 7
	}
	prefix := strings.ToUpper(b.ID)
	if len(prefix) > 3 {
		prefix = prefix[:3]
	}
	caseIndex := 0
	for j, dc := range demoCases {
		if dc.local == c.local {
			caseIndex = j
		}
	}
	digits := fmt.Sprintf("%0*d", length-len(prefix), 1000+caseIndex*10+i)
	return prefix + digits[len(digits)-(length-len(prefix)):]
}

// AccountsPerBrand is how many demo accounts Accounts keeps for each brand.
func AccountsPerBrand() int { return len(demoCases) }
