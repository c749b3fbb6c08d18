package account

import (
	"context"
	"crypto/rand"
	"strconv"
	"strings"
	"time"

	"guichet/internal/codes"
)

// The returning browsers' lane (issue 34). Under a sustained flood of
// sign-ins from addresses never seen twice, a customer's request is like
// any of the flood's: the hashers' queue stays at its budget and a place
// goes to whoever asks when one frees, so a customer could wait the
// flood's length. What the flood cannot copy is a browser the customer
// signed in with before (OWASP's "device cookie" against online guessing):
// after a sign-in the browser gets a pass (PassCookie) naming the account,
// signed with a key of the database, and a sign-in for that account that
// carries it is admitted in a lane of its own (Hasher.Check and AdmitClient
// with Returning): its hashes go ahead of the others' but take at most one
// hash in returningShare while both lanes wait (nextJob), an account holds
// at most one place in it at a time, and it is refused when that lane's
// own expected wait passes the budget (or its address holds its share).
//
// The pass grants no access: the password is checked as always, with the
// account's lockout and every rate limit. Someone who took a customer's
// pass gets a place ahead of the flood for that one account's guesses, one
// at a time, and nothing else. It is checked without a database read, from
// the cookie and the key alone, so the HTTP layer can ask before it reads
// a request (httpapi's shed.go); so nothing revokes it before it expires
// (a password reset, a lockout or a disabled account leave it valid: it
// still opens nothing). The limit: a flood from someone who holds accounts
// of their own carries their passes, one lane place an account, and with
// enough accounts fills the lane (at most one hash in returningShare).

// Pass cookie names: __Host- and Secure except over plain http in --dev.
const (
	PassCookie    = "__Host-guichet_pass"
	DevPassCookie = "guichet_pass"
)

// PassAge is how long a pass lasts: as long as a browser stays known to
// an account without signing in (sso.DeviceMemory). Each sign-in renews it.
const PassAge = 90 * 24 * time.Hour

// passSecret is the database secret (recovery_secrets) the passes' key
// derives from: the same on every instance.
const passSecret = "returning browsers"

// Passes issues and checks the returning browsers' passes.
type Passes struct {
	key []byte
	now func() time.Time
}

// NewPasses returns the passes of db's deployment, on the clock now.
func NewPasses(ctx context.Context, db codes.Store, now func() time.Time) (*Passes, error) {
	secret, err := codes.LoadSecret(ctx, db, passSecret, now(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &Passes{key: codes.Derive(secret, "returning browser pass"), now: now}, nil
}

// Issue is the pass of a browser that has just signed in to accountID:
// "id.expiry.tag", the expiry in Unix seconds, the tag 128 bits of the
// HMAC of both (in hex).
func (p *Passes) Issue(accountID string) string {
	expiry := strconv.FormatInt(p.now().Add(PassAge).Unix(), 10)
	return accountID + "." + expiry + "." + p.tag(accountID, expiry)
}

// Valid reports whether pass is one Issue gave for accountID and has not
// expired (an account id has no dot).
func (p *Passes) Valid(pass, accountID string) bool {
	parts := strings.Split(pass, ".")
	if p == nil || accountID == "" || len(parts) != 3 || parts[0] != accountID {
		return false
	}
	until, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || !p.now().Before(time.Unix(until, 0)) {
		return false
	}
	return codes.Equal(parts[2], p.tag(accountID, parts[1]))
}

// tag is the pass's HMAC, its first 128 bits.
func (p *Passes) tag(accountID, expiry string) string {
	return codes.HMAC(p.key, accountID, expiry)[:32]
}

type returningKey struct{}

// Returning marks ctx as a sign-in to accountID from a browser holding its
// pass: its admission (AdmitClient) takes the returning lane. Only a
// request with a valid pass for that account may be marked (httpapi's
// shedFirst).
func Returning(ctx context.Context, accountID string) context.Context {
	return context.WithValue(ctx, returningKey{}, accountID)
}

// returningAccount is the account Returning marked ctx with, "" if none.
func returningAccount(ctx context.Context) string {
	v, _ := ctx.Value(returningKey{}).(string)
	return v
}
