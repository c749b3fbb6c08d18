package codes

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
)

// ParseKey reads an operator's 32-byte root key (GUICHET_STAFF_KEY,
// GUICHET_OIDC_KEY): 64 hex digits or base64 (standard or URL alphabet,
// padded or not).
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if k, err := hex.DecodeString(s); err == nil && len(k) == 32 {
		return k, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil && len(k) == 32 {
			return k, nil
		}
	}
	return nil, errors.New("want 32 bytes, as 64 hex digits or base64")
}

// Sealer encrypts small secrets kept in the database (TOTP secrets, the
// OpenID provider's private keys) with AES-256-GCM under a key derived from a
// root secret; each sealed value is bound to its row's id (the associated
// data), so a value copied to another row does not open.
type Sealer struct{ aead cipher.AEAD }

// NewSealer derives the sealing key for purpose from root.
func NewSealer(root []byte, purpose string) (Sealer, error) {
	block, err := aes.NewCipher(Derive(root, purpose))
	if err != nil {
		return Sealer{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return Sealer{}, err
	}
	return Sealer{aead: aead}, nil
}

// ErrSealed is a sealed value that does not open: malformed, of another
// row, or sealed under another root key.
var ErrSealed = errors.New("sealed value does not open")

// Seal encrypts secret bound to id: base64url of nonce|ciphertext.
func (s Sealer) Seal(id string, secret []byte) (string, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, secret, []byte(id))), nil
}

// Open decrypts a value Seal made for id.
func (s Sealer) Open(id, sealed string) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(sealed)
	n := s.aead.NonceSize()
	if err != nil || len(b) < n {
		return nil, ErrSealed
	}
	secret, err := s.aead.Open(nil, b[:n], b[n:], []byte(id))
	if err != nil {
		return nil, ErrSealed
	}
	return secret, nil
}
