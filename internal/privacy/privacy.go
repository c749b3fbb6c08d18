// Package privacy is the customer's data rights on My account (issue 31,
// Quebec's Law 25 and PIPEDA): the export of what Guichet keeps on them,
// prepared in the background and downloaded as JSON or a readable page,
// and the deletion of their account after a 30-day grace they may cancel.
//
// It owns no one else's table: each package that keeps rows on a customer
// (account, policy, sso, oidc, chat, contact, passkey, audit) reads them for
// the export and erases them at the deletion through the small Holder
// interface below, wired in internal/app. A package that starts keeping
// rows on customers joins by becoming a Holder there.
package privacy

import (
	"context"
	"errors"
	"time"

	"guichet/internal/brand"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// A Holder is a package that keeps rows on a customer's account.
type Holder interface {
	// HeldData returns the account's rows as export sections: section name
	// → JSON-encodable value (never a secret: no hash, token or code).
	HeldData(ctx context.Context, brand, accountID string) (map[string]any, error)
	// EraseHeld deletes (or, for the insurer's own records, unlinks) the
	// account's rows in the erasure's transaction.
	EraseHeld(ctx context.Context, tx *store.Tx, brand, accountID string) error
}

// HolderFuncs makes a Holder of two functions (the packages whose rows are
// read by plain functions: policy, audit). A nil Erase erases nothing.
type HolderFuncs struct {
	Held  func(ctx context.Context, brand, accountID string) (map[string]any, error)
	Erase func(ctx context.Context, tx *store.Tx, brand, accountID string) error
}

// HeldData calls Held.
func (h HolderFuncs) HeldData(ctx context.Context, brand, accountID string) (map[string]any, error) {
	return h.Held(ctx, brand, accountID)
}

// EraseHeld calls Erase, if any.
func (h HolderFuncs) EraseHeld(ctx context.Context, tx *store.Tx, brand, accountID string) error {
	if h.Erase == nil {
		return nil
	}
	return h.Erase(ctx, tx, brand, accountID)
}

// Lifetimes.
const (
	// ExportLife is how long a prepared export can be downloaded.
	ExportLife = 7 * 24 * time.Hour
	// DeletionGrace is how long a deletion asked for stays pending (and
	// can be cancelled) before the account is erased.
	DeletionGrace = 30 * 24 * time.Hour
)

// exportRule bounds the exports an account asks for: ExportsPerDay a day.
var exportRule = throttle.Rule{Scope: "privacy.export", Limit: ExportsPerDay, Window: 24 * time.Hour}

// ExportsPerDay is how many exports an account may ask for in a day.
const ExportsPerDay = 5

// Service is the exports and deletions.
type Service struct {
	DB     *store.DB
	Now    func() time.Time
	Brands func(id string) (*brand.Brand, bool)
	// Holders read and erase the account's rows; the export's sections
	// come in their order, and the erasure runs them in it (the account
	// row's holder last: the other rows may name it).
	Holders []Holder
	// Limiter bounds the exports an account asks for (ExportsPerDay; nil:
	// no bound, in tests of the service alone).
	Limiter *throttle.Limiter
	// Poke wakes the outbox worker after an email was queued (nil: none).
	Poke func()
	// Lease is how long a worker holds an export it prepares (0: 2
	// minutes); one that dies leaves it to the next after that.
	Lease time.Duration
	// PollInterval is how often the export worker looks for work (0: 2 s);
	// PokeExports wakes it at once.
	PollInterval time.Duration

	wake chan struct{}
}

// Errors of the service.
var (
	ErrNoExport    = errors.New("privacy: no export ready")
	ErrNotPending  = errors.New("privacy: no deletion pending")
	ErrUndoInvalid = errors.New("privacy: unknown or used undo link")
	ErrUndoTooLate = errors.New("privacy: the deletion's grace is over")
	// ErrTooManyExports: the account asked for ExportsPerDay exports in
	// the last day (each one is an email and a read of everything).
	ErrTooManyExports = errors.New("privacy: too many exports asked for")
)
