package staff

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"guichet/internal/codes"
)

// secretName is the recovery_secrets row the staff keys derive from when
// GUICHET_STAFF_KEY is not set.
const secretName = "staff"

// ParseKey reads GUICHET_STAFF_KEY: 32 bytes as 64 hex digits or base64
// (standard or URL alphabet, padded or not).
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

// keys are what the staff package derives from its root secret.
type keys struct {
	aead     cipher.AEAD // seals the TOTP secrets
	recovery []byte      // HMAC key of the recovery codes
}

func loadKeys(ctx context.Context, db codes.Store, root []byte, now time.Time) (keys, error) {
	if root == nil {
		var err error
		if root, err = codes.LoadSecret(ctx, db, secretName, now, rand.Reader); err != nil {
			return keys{}, err
		}
	}
	block, err := aes.NewCipher(codes.Derive(root, "staff totp secret aes-gcm"))
	if err != nil {
		return keys{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return keys{}, err
	}
	return keys{aead: aead, recovery: codes.Derive(root, "staff recovery codes")}, nil
}

// seal encrypts a TOTP secret bound to the member's id.
func (k keys) seal(staffID string, secret []byte) (string, error) {
	nonce := make([]byte, k.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(k.aead.Seal(nonce, nonce, secret, []byte(staffID))), nil
}

// open decrypts a sealed TOTP secret.
func (k keys) open(staffID, sealed string) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil || len(b) < k.aead.NonceSize() {
		return nil, errors.New("staff: malformed sealed secret")
	}
	n := k.aead.NonceSize()
	secret, err := k.aead.Open(nil, b[:n], b[n:], []byte(staffID))
	if err != nil {
		return nil, fmt.Errorf("staff: open secret (wrong GUICHET_STAFF_KEY?): %w", err)
	}
	return secret, nil
}
