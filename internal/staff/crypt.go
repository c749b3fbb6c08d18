package staff

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"guichet/internal/codes"
)

// secretName is the recovery_secrets row the staff keys derive from when
// GUICHET_STAFF_KEY is not set.
const secretName = "staff"

// keys are what the staff package derives from its root secret.
type keys struct {
	sealer   codes.Sealer // seals the TOTP secrets
	recovery []byte       // HMAC key of the recovery codes
}

func loadKeys(ctx context.Context, db codes.Store, root []byte, now time.Time) (keys, error) {
	if root == nil {
		var err error
		if root, err = codes.LoadSecret(ctx, db, secretName, now, rand.Reader); err != nil {
			return keys{}, err
		}
	}
	sealer, err := codes.NewSealer(root, "staff totp secret aes-gcm")
	if err != nil {
		return keys{}, err
	}
	return keys{sealer: sealer, recovery: codes.Derive(root, "staff recovery codes")}, nil
}

// seal encrypts a TOTP secret bound to the member's id.
func (k keys) seal(staffID string, secret []byte) (string, error) {
	return k.sealer.Seal(staffID, secret)
}

// open decrypts a sealed TOTP secret.
func (k keys) open(staffID, sealed string) ([]byte, error) {
	secret, err := k.sealer.Open(staffID, sealed)
	if err != nil {
		return nil, fmt.Errorf("staff: open secret (wrong GUICHET_STAFF_KEY?): %w", err)
	}
	return secret, nil
}
