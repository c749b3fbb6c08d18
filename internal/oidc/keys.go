package oidc

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"database/sql"
	"errors"
	"fmt"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/store"
)

// Algorithms the provider signs with: ES256 by default, RS256 for the
// clients that need it (some older libraries know no other).
var Algorithms = []jose.SignatureAlgorithm{jose.ES256, jose.RS256}

// Key rotation.
const (
	// RotateEvery is the age at which a brand's signing key is replaced.
	RotateEvery = 30 * 24 * time.Hour
	// PublishAfterRetire is how long a replaced key stays in the brand's
	// key set: longer than any token it signed lives (ID and access tokens
	// live an hour) and than an ID token is accepted as a logout hint.
	PublishAfterRetire = 7 * 24 * time.Hour
	rsaBits            = 2048
)

// ErrNoKey: the brand has no signing key of that algorithm yet (EnsureKeys
// makes them at start-up).
var ErrNoKey = errors.New("oidc: no signing key")

// SigningKey is the key a brand signs with now.
type SigningKey struct {
	ID        string // the JWK kid
	Alg       jose.SignatureAlgorithm
	Signer    crypto.Signer
	CreatedAt time.Time
}

// EnsureKeys gives the brand a signing key of each algorithm when it has
// none or its key is RotateEvery old; it is what start-up and the daily
// maintenance run. It returns the algorithms rotated.
func (s *Service) EnsureKeys(ctx context.Context, brand, actor string) ([]jose.SignatureAlgorithm, error) {
	return s.rotate(ctx, brand, false, actor)
}

// RotateKeys replaces the brand's signing keys now (`guichet oidc
// rotate-keys`); the old ones stay published for PublishAfterRetire.
func (s *Service) RotateKeys(ctx context.Context, brand, actor string) error {
	_, err := s.rotate(ctx, brand, true, actor)
	return err
}

func (s *Service) rotate(ctx context.Context, brand string, force bool, actor string) ([]jose.SignatureAlgorithm, error) {
	if s.KnownBrand == nil || !s.KnownBrand(brand) {
		return nil, ErrUnknownBrand
	}
	var rotated []jose.SignatureAlgorithm
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		rotated = rotated[:0]
		// Instances starting together rotate one after the other: the
		// second finds the first one's fresh key and does nothing.
		if err := tx.Lock(ctx, "oidc keys "+brand); err != nil {
			return err
		}
		now := s.Now()
		if _, err := tx.Exec(ctx, "DELETE FROM oidc_signing_keys WHERE brand = ? AND expires_at <> 0 AND expires_at < ?", brand, now.UnixMilli()); err != nil {
			return fmt.Errorf("prune keys: %w", err)
		}
		for _, alg := range Algorithms {
			var newest int64
			err := tx.QueryRow(ctx, "SELECT created_at FROM oidc_signing_keys WHERE brand = ? AND alg = ? AND retired_at = 0 ORDER BY created_at DESC LIMIT 1",
				brand, string(alg)).Scan(&newest)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("signing keys: %w", err)
			}
			if err == nil && !force && now.Sub(time.UnixMilli(newest)) < RotateEvery {
				continue
			}
			if err := s.addKey(ctx, tx, brand, alg, now, actor); err != nil {
				return err
			}
			rotated = append(rotated, alg)
		}
		return nil
	})
	return rotated, err
}

// addKey makes a key, retires the algorithm's older keys and audits it.
func (s *Service) addKey(ctx context.Context, tx *store.Tx, brand string, alg jose.SignatureAlgorithm, now time.Time, actor string) error {
	signer, err := generate(alg)
	if err != nil {
		return err
	}
	kid, err := codes.RandomID(rand.Reader)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKCS8PrivateKey(signer)
	if err != nil {
		return fmt.Errorf("signing key: %w", err)
	}
	sealed, err := s.sealer.Seal(kid, der)
	if err != nil {
		return err
	}
	pub, err := jose.JSONWebKey{Key: signer.Public(), KeyID: kid, Algorithm: string(alg), Use: "sig"}.MarshalJSON()
	if err != nil {
		return fmt.Errorf("signing key: %w", err)
	}
	if _, err := tx.Exec(ctx, "UPDATE oidc_signing_keys SET retired_at = ?, expires_at = ? WHERE brand = ? AND alg = ? AND retired_at = 0",
		now.UnixMilli(), now.Add(PublishAfterRetire).UnixMilli(), brand, string(alg)); err != nil {
		return fmt.Errorf("retire keys: %w", err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO oidc_signing_keys (id, brand, alg, private_key, public_jwk, created_at) VALUES (?, ?, ?, ?, ?, ?)",
		kid, brand, string(alg), sealed, string(pub), now.UnixMilli()); err != nil {
		return fmt.Errorf("add key: %w", err)
	}
	return audit.Record(ctx, tx, audit.Event{At: now, Brand: brand, Event: audit.OIDCKeysRotate, Outcome: "ok",
		Detail: string(alg) + " " + kid, Actor: actor})
}

func generate(alg jose.SignatureAlgorithm) (crypto.Signer, error) {
	switch alg {
	case jose.ES256:
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case jose.RS256:
		return rsa.GenerateKey(rand.Reader, rsaBits)
	}
	return nil, fmt.Errorf("oidc: no key of algorithm %s", alg)
}

// SigningKey returns the brand's current key of alg.
func (s *Service) SigningKey(ctx context.Context, brand string, alg jose.SignatureAlgorithm) (SigningKey, error) {
	var k SigningKey
	var sealed string
	var created int64
	err := s.DB.QueryRow(ctx, "SELECT id, private_key, created_at FROM oidc_signing_keys WHERE brand = ? AND alg = ? AND retired_at = 0 ORDER BY created_at DESC LIMIT 1",
		brand, string(alg)).Scan(&k.ID, &sealed, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return SigningKey{}, ErrNoKey
	}
	if err != nil {
		return SigningKey{}, fmt.Errorf("signing key: %w", err)
	}
	der, err := s.sealer.Open(k.ID, sealed)
	if err != nil {
		return SigningKey{}, fmt.Errorf("signing key %s (wrong GUICHET_OIDC_KEY?): %w", k.ID, err)
	}
	priv, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return SigningKey{}, fmt.Errorf("signing key %s: %w", k.ID, err)
	}
	signer, ok := priv.(crypto.Signer)
	if !ok {
		return SigningKey{}, fmt.Errorf("signing key %s: not a signer", k.ID)
	}
	k.Alg, k.Signer, k.CreatedAt = alg, signer, time.UnixMilli(created).UTC()
	return k, nil
}

// KeySet is the brand's published keys (its JWKS): the current ones and
// the retired ones until they expire, newest first.
func (s *Service) KeySet(ctx context.Context, brand string) ([]jose.JSONWebKey, error) {
	rows, err := s.DB.Query(ctx, "SELECT public_jwk FROM oidc_signing_keys WHERE brand = ? AND (retired_at = 0 OR expires_at > ?) ORDER BY created_at DESC, id",
		brand, s.Now().UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("key set: %w", err)
	}
	return store.Collect(rows, func(r *sql.Rows) (jose.JSONWebKey, error) {
		var raw string
		var k jose.JSONWebKey
		if err := r.Scan(&raw); err != nil {
			return k, err
		}
		if err := k.UnmarshalJSON([]byte(raw)); err != nil {
			return k, fmt.Errorf("key set: %w", err)
		}
		return k, nil
	})
}

// RotateDue runs EnsureKeys for every brand that signs already (the hourly
// janitor): keys are made when a brand first signs (Signer), and replaced
// here once RotateEvery old. It returns how many keys it made.
func (s *Service) RotateDue(ctx context.Context) (int64, error) {
	rows, err := s.DB.Query(ctx, "SELECT DISTINCT brand FROM oidc_signing_keys")
	if err != nil {
		return 0, fmt.Errorf("signing brands: %w", err)
	}
	brands, err := store.Strings(rows)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, b := range brands {
		if s.KnownBrand == nil || !s.KnownBrand(b) {
			continue // a brand removed from the configuration
		}
		made, err := s.EnsureKeys(ctx, b, "")
		if err != nil {
			return n, err
		}
		n += int64(len(made))
	}
	return n, nil
}

// Signer is the brand's current key of alg, made first when the brand has
// none (its first token, or its first key set asked for).
func (s *Service) Signer(ctx context.Context, brand string, alg jose.SignatureAlgorithm) (SigningKey, error) {
	k, err := s.SigningKey(ctx, brand, alg)
	if !errors.Is(err, ErrNoKey) {
		return k, err
	}
	if _, err := s.EnsureKeys(ctx, brand, ""); err != nil {
		return SigningKey{}, err
	}
	return s.SigningKey(ctx, brand, alg)
}
