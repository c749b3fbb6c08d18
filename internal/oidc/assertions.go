package oidc

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"guichet/internal/store"
)

// AuthMethod is how a client proves itself at the token, revocation and
// introspection endpoints (the names of OpenID Connect Core §9).
type AuthMethod string

// The methods a client is registered with.
const (
	// AuthNone: a public client, PKCE alone.
	AuthNone AuthMethod = "none"
	// AuthSecretBasic: a confidential client's secret in the Authorization
	// header.
	AuthSecretBasic AuthMethod = "client_secret_basic"
	// AuthPrivateKeyJWT: a confidential client signs a short-lived JWT
	// (RFC 7523) with a private key whose public half it registered; the
	// provider holds no secret of it.
	AuthPrivateKeyJWT AuthMethod = "private_key_jwt"
)

// Limits on a private_key_jwt client's key set and assertions.
const (
	MaxClientKeys = 10
	maxJWKS       = 64 << 10
	// MaxAssertionLifetime: an assertion may expire at most this long after
	// it is presented, so that its jti is kept (and a replay refused) no
	// longer than that.
	MaxAssertionLifetime = 5 * time.Minute
	maxJTI               = 200
	minRSABits           = 2048
)

// ErrAssertionReplayed: a client assertion's jti was used already.
var ErrAssertionReplayed = errors.New("oidc: client assertion used already")

// ParseJWKS reads a private_key_jwt client's JSON Web Key Set: one to
// MaxClientKeys signing keys, public halves only, each an ES256 (P-256) or
// RS256 (RSA of 2048 bits or more) key; "alg" when given must be the key's,
// and is filled in when not. A key needs a "kid" when there are several,
// and no two keys share one.
func ParseJWKS(raw []byte) ([]jose.JSONWebKey, error) {
	if len(raw) > maxJWKS {
		return nil, invalid("jwks-file", "the key set is larger than %d KiB", maxJWKS>>10)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(raw, &set); err != nil {
		return nil, invalid("jwks-file", "not a JSON Web Key Set: %v", err)
	}
	switch {
	case len(set.Keys) == 0:
		return nil, invalid("jwks-file", "the key set has no key")
	case len(set.Keys) > MaxClientKeys:
		return nil, invalid("jwks-file", "at most %d keys", MaxClientKeys)
	}
	seen := map[string]bool{}
	for i := range set.Keys {
		k := &set.Keys[i]
		name := fmt.Sprintf("key %d", i+1)
		if k.KeyID != "" {
			name = fmt.Sprintf("key %q", k.KeyID)
		}
		if _, symmetric := k.Key.([]byte); symmetric {
			return nil, invalid("jwks-file", "%s: a symmetric (oct) key is not supported: ES256 (EC P-256) or RS256 (RSA)", name)
		}
		if !k.IsPublic() {
			return nil, invalid("jwks-file", "%s is a private key: register only the public half", name)
		}
		if k.Use != "" && k.Use != "sig" {
			return nil, invalid("jwks-file", "%s is for %q, not signing (sig)", name, k.Use)
		}
		alg, err := keyAlg(k.Key)
		if err != nil {
			return nil, invalid("jwks-file", "%s: %v", name, err)
		}
		if k.Algorithm != "" && k.Algorithm != string(alg) {
			return nil, invalid("jwks-file", "%s: alg %q is not supported for this key (ES256 for a P-256 key, RS256 for an RSA key)", name, k.Algorithm)
		}
		k.Algorithm, k.Use = string(alg), "sig"
		if len(set.Keys) > 1 && k.KeyID == "" {
			return nil, invalid("jwks-file", "%s has no kid: each key of a set needs one", name)
		}
		if seen[k.KeyID] {
			return nil, invalid("jwks-file", "kid %q is given twice", k.KeyID)
		}
		seen[k.KeyID] = true
	}
	return set.Keys, nil
}

// keyAlg is the algorithm a public key signs with here.
func keyAlg(key any) (jose.SignatureAlgorithm, error) {
	switch k := key.(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return "", errors.New("an EC key must be on P-256 (ES256)")
		}
		return jose.ES256, nil
	case *rsa.PublicKey:
		if k.N.BitLen() < minRSABits {
			return "", fmt.Errorf("an RSA key needs %d bits or more", minRSABits)
		}
		return jose.RS256, nil
	}
	return "", fmt.Errorf("a %T key is not supported: ES256 (EC P-256) or RS256 (RSA)", key)
}

// Key returns the client's registered public key of that kid ("" matches
// a key set of one key without a kid).
func (c Client) Key(kid string) (jose.JSONWebKey, bool) {
	for _, k := range c.keys {
		if k.KeyID == kid {
			return k, true
		}
	}
	return jose.JSONWebKey{}, false
}

// Keys are a private_key_jwt client's registered public keys.
func (c Client) Keys() []jose.JSONWebKey { return c.keys }

// UseAssertion records a client assertion's jti until it expires; a jti the
// client used already (and whose assertion has not expired) is
// ErrAssertionReplayed. The caller has checked the assertion's signature and
// that it expires within MaxAssertionLifetime.
func (s *Service) UseAssertion(ctx context.Context, clientID, jti string, expiresAt time.Time) error {
	if jti == "" || len(jti) > maxJTI || strings.IndexFunc(jti, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return invalid("jti", "an assertion needs a jti of 1 to %d printable characters", maxJTI)
	}
	now := s.Now().UnixMilli()
	var used bool
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		// An expired row of the same jti (the janitor has not run yet) no
		// longer guards anything: the assertion it stood for is refused
		// as expired.
		if _, err := tx.Exec(ctx, "DELETE FROM oidc_client_assertions WHERE client_id = ? AND jti = ? AND expires_at <= ?", clientID, jti, now); err != nil {
			return fmt.Errorf("use assertion: %w", err)
		}
		res, err := tx.Exec(ctx, `INSERT INTO oidc_client_assertions (client_id, jti, expires_at) VALUES (?, ?, ?)
			ON CONFLICT (client_id, jti) DO NOTHING`, clientID, jti, expiresAt.UnixMilli())
		if err != nil {
			return fmt.Errorf("use assertion: %w", err)
		}
		n, err := res.RowsAffected()
		used = n == 0
		return err
	})
	if err == nil && used {
		return ErrAssertionReplayed
	}
	return err
}
