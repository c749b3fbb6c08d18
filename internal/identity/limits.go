package identity

import (
	"context"
	"io"
	"time"

	"guichet/internal/codes"
	"guichet/internal/policy"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Limits of the registration flows (spec §9, design.md "Codes"), the same
// for legacy registration and smart registration.
const (
	// TTL is how long a registration lives after identification (a smart
	// registration session: after its last answer).
	TTL = 30 * time.Minute
	// CodeTTL is how long a code may be used.
	CodeTTL = 10 * time.Minute
	// CodeGuesses is how many times a code (or the PIN) may be tried.
	CodeGuesses = 5
	// MaxResends is spec §9's validation resend limit.
	MaxResends = 3
)

// Limits are the server's own limits, whatever the browser counts; both
// registration flows draw on them with the same scopes, so they share one
// budget per address, policy number and person.
type Limits struct {
	// FindPerIP limits identification attempts per client address.
	FindPerIP throttle.Rule
	// FindPerPolicy limits identification attempts per policy number.
	FindPerPolicy throttle.Rule
	// SendsPerPerson caps the codes sent for one insured person.
	SendsPerPerson throttle.Rule
	// Calls limits the other calls (codes, emails, passwords) per client
	// address.
	Calls throttle.Rule
}

// DefaultLimits let a person retry comfortably.
func DefaultLimits() Limits {
	return Limits{
		FindPerIP:      throttle.Rule{Scope: "registration.find.ip", Limit: 20, Window: 10 * time.Minute},
		FindPerPolicy:  throttle.Rule{Scope: "registration.find.policy", Limit: 10, Window: time.Hour},
		SendsPerPerson: throttle.Rule{Scope: "registration.codes", Limit: 8, Window: time.Hour},
		Calls:          throttle.Rule{Scope: "registration.calls", Limit: 60, Window: 10 * time.Minute},
	}
}

// CodeKeys are a registration flow's keys: its codes' HMAC key (derived
// from the flow's own secret, so a code of one flow proves nothing to the
// other) and the key mailed PINs are stored under (policy.PINKey).
type CodeKeys struct{ Code, PIN []byte }

// LoadCodeKeys reads (or creates, on first start) the secret secretName
// and derives the code key for purpose from it, and reads the PIN key.
func LoadCodeKeys(ctx context.Context, db *store.DB, secretName, purpose string, now time.Time, rnd io.Reader) (CodeKeys, error) {
	secret, err := codes.LoadSecret(ctx, db, secretName, now, rnd)
	if err != nil {
		return CodeKeys{}, err
	}
	pin, err := policy.PINKey(ctx, db, now, rnd)
	if err != nil {
		return CodeKeys{}, err
	}
	return CodeKeys{Code: codes.Derive(secret, purpose), PIN: pin}, nil
}
