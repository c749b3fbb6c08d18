// Package codes is what every flow that sends a one-time code shares
// (design.md "Codes"): the server secret kept in the database, the keys
// derived from it, 6-digit codes from a CSPRNG, random ids, and the HMAC a
// code (or a mailed PIN) is stored as, and the hash a random token is stored
// as. Password recovery and registration use it; each keeps its own tables,
// counters and guess limits.
package codes

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"
)

// Length is the number of digits of a code (spec §9).
const Length = 6

// Rules of the single-use codes My account sends (internal/reauth,
// internal/contact; Slot), recovery's (spec §5): TTL to use one,
// MaxFailures tries end it, and one row may be sent MaxSends codes.
const (
	TTL         = 10 * time.Minute
	MaxFailures = 5
	MaxSends    = 5
)

// Store is a *store.DB or a *store.Tx.
type Store interface {
	Exec(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

// LoadSecret returns the 256-bit server secret stored in recovery_secrets
// under name, creating it when absent. Every instance on the same database
// reads the same row, so a code made by one instance is checked by any
// other; the insert is ON CONFLICT DO NOTHING, so two instances starting
// together agree on whichever row was written first.
func LoadSecret(ctx context.Context, db Store, name string, now time.Time, rnd io.Reader) ([]byte, error) {
	var fresh [32]byte
	if _, err := io.ReadFull(rnd, fresh[:]); err != nil {
		return nil, fmt.Errorf("%s secret: %w", name, err)
	}
	if _, err := db.Exec(ctx, `INSERT INTO recovery_secrets (name, secret, created_at) VALUES (?, ?, ?)
		ON CONFLICT (name) DO NOTHING`, name, hex.EncodeToString(fresh[:]), now.UnixMilli()); err != nil {
		return nil, fmt.Errorf("%s secret: %w", name, err)
	}
	var stored string
	if err := db.QueryRow(ctx, "SELECT secret FROM recovery_secrets WHERE name = ?", name).Scan(&stored); err != nil {
		return nil, fmt.Errorf("%s secret: %w", name, err)
	}
	secret, err := hex.DecodeString(stored)
	if err != nil || len(secret) < 32 {
		return nil, fmt.Errorf("%s secret: stored value is not 32 bytes of hex", name)
	}
	return secret, nil
}

// SecretExists reports whether a secret is stored under name (LoadSecret
// would return it rather than create one).
func SecretExists(ctx context.Context, db Store, name string) (bool, error) {
	var stored string
	err := db.QueryRow(ctx, "SELECT secret FROM recovery_secrets WHERE name = ?", name).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// Derive is HMAC-SHA256(secret, purpose): one key per use of the secret.
func Derive(secret []byte, purpose string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// HMAC is how a code is stored: HMAC-SHA256 under key of the parts,
// separated by a NUL byte so "v1","23" and "v12","3" differ. Bind a code to its
// validation id (the same six digits of two codes give unrelated values).
func HMAC(key []byte, parts ...string) string {
	m := hmac.New(sha256.New, key)
	for i, p := range parts {
		if i > 0 {
			m.Write([]byte{0})
		}
		m.Write([]byte(p))
	}
	return hex.EncodeToString(m.Sum(nil))
}

// Equal compares two stored HMACs in constant time.
func Equal(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }

// TokenHash is how a random token or secret is stored and looked up:
// SHA-256, hex. Sessions, login tickets, reset and magic-link tokens, set-up
// links, OAuth codes, refresh tokens and client secrets, chat and co-browse
// visitor secrets all carry 128 random bits or more, so a plain hash (no key,
// no salt) is enough to make a stolen table useless.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// RandomID returns 16 random bytes from rnd, base64url without padding (the
// shape of every id of the API, api.IDLength).
func RandomID(rnd io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(rnd, b[:]); err != nil {
		return "", fmt.Errorf("codes: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// codeSpace is the largest multiple of 10^6 that fits in 32 bits: values at
// or above it are drawn again so every code is equally likely.
const codeSpace = 4_294_000_000

// New returns Length uniformly random digits from rnd.
func New(rnd io.Reader) (string, error) {
	var b [4]byte
	for {
		if _, err := io.ReadFull(rnd, b[:]); err != nil {
			return "", fmt.Errorf("codes: random: %w", err)
		}
		if n := binary.BigEndian.Uint32(b[:]); n < codeSpace {
			return fmt.Sprintf("%06d", n%1_000_000), nil
		}
	}
}

// What checking a single-use code can answer, shared by the flows of My
// account that send one (internal/reauth, internal/contact; api.CodeAnswers
// maps them to the API's answers once).
var (
	// ErrWrong: a wrong code, guesses left.
	ErrWrong = errors.New("codes: wrong code")
	// ErrExceeded: the code's wrong guesses are used up.
	ErrExceeded = errors.New("codes: too many wrong codes")
	// ErrExpired: no code under way, or one expired, used or replaced.
	ErrExpired = errors.New("codes: code expired")
	// ErrSendLimit: no more codes may be sent for now.
	ErrSendLimit = errors.New("codes: too many codes sent")
)
