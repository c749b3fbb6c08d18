package recovery

import (
	"bytes"
	"crypto/rand"
	"testing"
)

// TestNewCodeFromInjectedRandomness checks the digits drawn from given
// bytes, including the redraw that keeps every code equally likely.
func TestNewCodeFromInjectedRandomness(t *testing.T) {
	cases := []struct {
		name  string
		bytes []byte
		want  string
	}{
		{"zero", []byte{0, 0, 0, 0}, "000000"},
		{"123456", []byte{0x00, 0x01, 0xe2, 0x40}, "123456"},
		{"leading zeros kept", []byte{0x00, 0x00, 0x00, 0x07}, "000007"},
		{"modulo a million", []byte{0x3b, 0x9a, 0xca, 0x2a}, "000042"},                // 1_000_000_042
		{"last value kept", []byte{0xff, 0xf1, 0x3d, 0x7f}, "999999"},                 // 4_293_999_999
		{"first value redrawn", []byte{0xff, 0xf1, 0x3d, 0x80, 0, 0, 0, 9}, "000009"}, // 4_294_000_000
		{"all ones redrawn", []byte{0xff, 0xff, 0xff, 0xff, 0x00, 0x01, 0xe2, 0x40}, "123456"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &Service{Rand: bytes.NewReader(c.bytes)}
			got, err := s.newCode()
			if err != nil || got != c.want {
				t.Fatalf("newCode() = %q, %v; want %q", got, err, c.want)
			}
		})
	}
	t.Run("exhausted source", func(t *testing.T) {
		s := &Service{Rand: bytes.NewReader([]byte{1, 2})}
		if _, err := s.newCode(); err == nil {
			t.Fatal("no error from a source that ran dry")
		}
		if _, err := s.randomID(); err == nil {
			t.Fatal("no error from a source that ran dry")
		}
	})
}

// TestCodeHMACBindsTheValidation: the stored value depends on the key, the
// validation id and the code, and never holds the code itself.
func TestCodeHMACBindsTheValidation(t *testing.T) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	s := &Service{codeKey: derive(key, "a")}
	other := &Service{codeKey: derive(key, "b")}
	base := s.codeHMAC("v1", "123456")
	for name, v := range map[string]string{
		"other validation": s.codeHMAC("v2", "123456"),
		"other code":       s.codeHMAC("v1", "123457"),
		"other key":        other.codeHMAC("v1", "123456"),
		"shifted boundary": s.codeHMAC("v11", "23456"),
	} {
		if v == base {
			t.Errorf("%s gives the same HMAC", name)
		}
	}
	if base != s.codeHMAC("v1", "123456") || bytes.Contains([]byte(base), []byte("123456")) {
		t.Fatalf("HMAC %s", base)
	}
}
