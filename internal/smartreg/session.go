package smartreg

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"guichet/internal/codes"
)

// The session token (header x-registration-session) is a JWT signed with
// HS256 (RFC 7519, RFC 7515 compact form), a key id (kid) in its header so
// keys rotate without breaking live sessions: the first key of Keys signs,
// every key verifies. The server trusts only its signature and then its own
// session row; the step and page in it are for the SPA.

// HeaderSession is the header that carries the token both ways.
const HeaderSession = "x-registration-session"

// MinKeyBytes is the shortest signing key accepted (HS256's own size).
const MinKeyBytes = 32

// Key is one signing key and its id.
type Key struct {
	ID     string
	Secret []byte
}

// Keys verify session tokens; Keys[0] signs new ones.
type Keys []Key

var kidPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,32}$`)

// ParseKeys reads GUICHET_REGISTRATION_JWT_KEYS: "kid1:base64key,kid2:base64key"
// (standard or URL base64, padded or not), at least MinKeyBytes each, the
// first signing. Empty gives no keys (the database secret is used then).
func ParseKeys(s string) (Keys, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out Keys
	seen := map[string]bool{}
	for i, part := range strings.Split(s, ",") {
		kid, b64, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok || !kidPattern.MatchString(kid) {
			return nil, fmt.Errorf("key %d: want kid:base64key, the kid 1 to 32 letters, digits, '.', '_' or '-'", i+1)
		}
		if seen[kid] {
			return nil, fmt.Errorf("key %d: kid %q listed twice", i+1, kid)
		}
		seen[kid] = true
		secret, err := decodeKey(b64)
		if err != nil {
			return nil, fmt.Errorf("key %q: not base64", kid)
		}
		if len(secret) < MinKeyBytes {
			return nil, fmt.Errorf("key %q: %d bytes, at least %d needed", kid, len(secret), MinKeyBytes)
		}
		out = append(out, Key{ID: kid, Secret: secret})
	}
	return out, nil
}

func decodeKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// dbKeyName is the recovery_secrets row of the key used when no keys are
// configured: every instance on the database shares it.
const dbKeyName = "smart-registration-jwt"

// DatabaseKeys is the signing key kept in the database (created on first
// use), for deployments that configure none.
func DatabaseKeys(ctx context.Context, db codes.Store, now time.Time) (Keys, error) {
	secret, err := codes.LoadSecret(ctx, db, dbKeyName, now, rand.Reader)
	if err != nil {
		return nil, err
	}
	return Keys{{ID: "db1", Secret: codes.Derive(secret, "guichet smart registration session v1")}}, nil
}

// Claims are the token's payload.
type Claims struct {
	SID   string `json:"sid"`
	Brand string `json:"brand"`
	Step  string `json:"step"`
	Page  string `json:"page"`
	IAT   int64  `json:"iat"`
	EXP   int64  `json:"exp"`
}

type header struct {
	Alg string `json:"alg"`
	Typ string `json:"typ,omitempty"`
	Kid string `json:"kid"`
}

var b64 = base64.RawURLEncoding

// Sign returns the compact JWT of c under the first key.
func (k Keys) Sign(c Claims) (string, error) {
	if len(k) == 0 {
		return "", errors.New("smartreg: no signing key")
	}
	h, err := json.Marshal(header{Alg: "HS256", Typ: "JWT", Kid: k[0].ID})
	if err != nil {
		return "", err
	}
	p, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	signing := b64.EncodeToString(h) + "." + b64.EncodeToString(p)
	return signing + "." + b64.EncodeToString(mac(k[0].Secret, signing)), nil
}

func mac(secret []byte, signing string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(signing))
	return m.Sum(nil)
}

// Token refusals (spec §8.1's messages).
var (
	// ErrInvalidToken: missing, garbled, a bad signature, an unknown key id,
	// another algorithm, or another brand's token.
	ErrInvalidToken = errors.New("invalid token")
	// ErrExpired: a genuine token past its exp.
	ErrExpired = errors.New("jwt expired")
	// ErrNoSession: the token is genuine but its session is gone, closed or
	// expired.
	ErrNoSession = errors.New("state not found in cache")
)

// maxToken bounds what is parsed of a header.
const maxToken = 4096

// Verify checks a token's form, algorithm (HS256 only: "none" and others are
// refused), key id, signature and brand, then its expiry at now.
func (k Keys) Verify(token, brand string, now time.Time) (Claims, error) {
	if token == "" || len(token) > maxToken {
		return Claims{}, ErrInvalidToken
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return Claims{}, ErrInvalidToken
	}
	var h header
	if raw, err := b64.DecodeString(parts[0]); err != nil || json.Unmarshal(raw, &h) != nil {
		return Claims{}, ErrInvalidToken
	}
	if h.Alg != "HS256" {
		return Claims{}, ErrInvalidToken
	}
	var key *Key
	for i := range k {
		if k[i].ID == h.Kid {
			key = &k[i]
			break
		}
	}
	if key == nil {
		return Claims{}, ErrInvalidToken
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || !hmac.Equal(sig, mac(key.Secret, parts[0]+"."+parts[1])) {
		return Claims{}, ErrInvalidToken
	}
	var c Claims
	raw, err := b64.DecodeString(parts[1])
	if err != nil || json.Unmarshal(raw, &c) != nil || c.SID == "" {
		return Claims{}, ErrInvalidToken
	}
	if c.Brand != brand {
		return Claims{}, ErrInvalidToken
	}
	if now.Unix() >= c.EXP {
		return Claims{}, ErrExpired
	}
	return c, nil
}
