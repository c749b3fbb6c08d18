// Package oidc is Guichet's OpenID Connect provider (issue 30): one issuer
// per brand, whose relying parties (the insurer's other applications) sign
// their customers in through the portal. This package owns the provider's
// tables: the clients of each brand (clients.go), the brand's signing keys
// (keys.go), and the authorization requests, codes, grants and refresh
// tokens of sign-ins (grants.go). The protocol endpoints come on
// zitadel/oidc's op package (docs/design.md "OpenID Connect provider"); they
// will reach these tables through this Service.
package oidc

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"guichet/internal/codes"
	"guichet/internal/store"
)

// secretName is the recovery_secrets row the key-sealing key derives from
// when GUICHET_OIDC_KEY is not set.
const secretName = "oidc"

// Domain errors; the callers (the CLI, the console, the provider's
// endpoints) map them.
var (
	ErrUnknownBrand  = errors.New("oidc: unknown brand")
	ErrUnknownClient = errors.New("oidc: no such client")
	// ErrRequestNotFound: no authorization request of that id, or it
	// expired.
	ErrRequestNotFound = errors.New("oidc: no such authorization request")
	// ErrInvalidGrant: a code or refresh token unknown, expired, used
	// already, or of a revoked grant (OAuth's invalid_grant).
	ErrInvalidGrant = errors.New("oidc: invalid grant")
)

// Service holds the provider's clients and keys.
type Service struct {
	DB  *store.DB
	Now func() time.Time
	// KnownBrand says whether a brand id is configured.
	KnownBrand func(id string) bool
	sealer     codes.Sealer
	// subjectKey makes each account's "sub" (Subject); it comes from the
	// database's own secret, never from GUICHET_OIDC_KEY, so that a new
	// sealing key does not change every customer's subject.
	subjectKey []byte
}

// New builds the service. root is GUICHET_OIDC_KEY's 32 bytes, or nil to
// derive the sealing key from the database's own secret (then a copy of the
// database alone opens the private keys: production sets the key).
func New(ctx context.Context, db *store.DB, now func() time.Time, knownBrand func(string) bool, root []byte) (*Service, error) {
	dbSecret, err := codes.LoadSecret(ctx, db, secretName, now(), rand.Reader)
	if err != nil {
		return nil, err
	}
	if root == nil {
		root = dbSecret
	}
	sealer, err := codes.NewSealer(root, "oidc signing key aes-gcm")
	if err != nil {
		return nil, fmt.Errorf("oidc keys: %w", err)
	}
	return &Service{DB: db, Now: now, KnownBrand: knownBrand, sealer: sealer,
		subjectKey: codes.Derive(dbSecret, "oidc subject")}, nil
}

// Subject is an account's "sub" at a brand's clients: stable for as long as
// the database lives, different at each brand, and not the database id
// (which appears in the portal's URLs and logs): 144 bits of an HMAC of
// both.
func (s *Service) Subject(brand, accountID string) string {
	sum, _ := hex.DecodeString(codes.HMAC(s.subjectKey, brand, accountID))
	return base64.RawURLEncoding.EncodeToString(sum[:18])
}
