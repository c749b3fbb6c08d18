package staff

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// TOTP parameters (RFC 6238 as authenticator apps read them): SHA-1, a
// 30-second step, 6 digits, a code accepted one step early or late.
const (
	Period     = 30 * time.Second
	Digits     = 6
	Window     = 1
	SecretSize = 20 // bytes: RFC 4226's recommended 160 bits
)

// Issuer names the console in authenticator apps.
const Issuer = "Guichet"

// b32 is the secret's text form: RFC 4648 base32 without padding.
var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// EncodeSecret returns the secret as authenticator apps take it typed.
func EncodeSecret(secret []byte) string { return b32.EncodeToString(secret) }

// DecodeSecret reads a base32 secret (spaces and case ignored).
func DecodeSecret(s string) ([]byte, error) {
	s = strings.ToUpper(strings.ReplaceAll(strings.TrimRight(s, "="), " ", ""))
	return b32.DecodeString(s)
}

// OTPAuthURI is the QR code's content for an authenticator app.
func OTPAuthURI(email string, secret []byte) string {
	q := url.Values{}
	q.Set("secret", EncodeSecret(secret))
	q.Set("issuer", Issuer)
	q.Set("algorithm", "SHA1")
	q.Set("digits", fmt.Sprint(Digits))
	q.Set("period", fmt.Sprint(int(Period/time.Second)))
	return "otpauth://totp/" + url.PathEscape(Issuer+":"+email) + "?" + q.Encode()
}

// stepOf is the RFC 6238 time step of t (T0 = 0).
func stepOf(t time.Time) int64 { return t.Unix() / int64(Period/time.Second) }

// hotp is RFC 4226's HOTP with SHA-1 and digits digits.
func hotp(secret []byte, counter uint64, digits int) string {
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], counter)
	m := hmac.New(sha1.New, secret)
	m.Write(msg[:])
	sum := m.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	bin := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	mod := uint32(1)
	for range digits {
		mod *= 10
	}
	return fmt.Sprintf("%0*d", digits, bin%mod)
}

// TOTP is the 6-digit code of secret at t (what the authenticator shows).
func TOTP(secret []byte, t time.Time) string {
	return hotp(secret, uint64(stepOf(t)), Digits)
}

// matchStep returns the time step within ±Window of now whose code is code
// and which is later than last (a step is accepted once: replay refused).
// Every candidate is computed and compared in constant time.
func matchStep(secret []byte, code string, now time.Time, last int64) (int64, bool) {
	if len(code) != Digits {
		return 0, false
	}
	cur := stepOf(now)
	var found int64
	ok := 0
	for d := int64(-Window); d <= Window; d++ {
		st := cur + d
		if st < 0 {
			continue
		}
		eq := subtle.ConstantTimeCompare([]byte(hotp(secret, uint64(st), Digits)), []byte(code))
		if eq == 1 && st > last && ok == 0 {
			found, ok = st, 1
		}
	}
	return found, ok == 1
}
