package codes_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"testing"

	"guichet/internal/codes"
)

func TestSealer(t *testing.T) {
	root := bytes.Repeat([]byte{7}, 32)
	s, err := codes.NewSealer(root, "test purpose")
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := s.Seal("row-1", []byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Open("row-1", sealed); err != nil || string(got) != "secret" {
		t.Fatalf("open: %q %v", got, err)
	}
	again, _ := s.Seal("row-1", []byte("secret"))
	if again == sealed {
		t.Fatal("two seals of one secret are alike (the nonce is not fresh)")
	}
	other, _ := codes.NewSealer(root, "another purpose")
	otherRoot, _ := codes.NewSealer(bytes.Repeat([]byte{8}, 32), "test purpose")
	tampered := []byte(sealed)
	tampered[len(tampered)-1] ^= 1
	for name, open := range map[string]func() ([]byte, error){
		"another row":     func() ([]byte, error) { return s.Open("row-2", sealed) },
		"another purpose": func() ([]byte, error) { return other.Open("row-1", sealed) },
		"another root":    func() ([]byte, error) { return otherRoot.Open("row-1", sealed) },
		"tampered":        func() ([]byte, error) { return s.Open("row-1", string(tampered)) },
		"not base64":      func() ([]byte, error) { return s.Open("row-1", "%%%") },
		"too short":       func() ([]byte, error) { return s.Open("row-1", "AAAA") },
	} {
		if _, err := open(); !errors.Is(err, codes.ErrSealed) {
			t.Errorf("%s: %v, want ErrSealed", name, err)
		}
	}
}

func TestParseKey(t *testing.T) {
	key := bytes.Repeat([]byte{0xfb}, 32)
	for _, in := range []string{hex.EncodeToString(key), base64.StdEncoding.EncodeToString(key), base64.RawURLEncoding.EncodeToString(key),
		" " + base64.URLEncoding.EncodeToString(key) + "\n"} {
		if got, err := codes.ParseKey(in); err != nil || !bytes.Equal(got, key) {
			t.Errorf("%q: %x %v", in, got, err)
		}
	}
	for _, in := range []string{"", "abc", hex.EncodeToString(key[:31]), base64.StdEncoding.EncodeToString(append(key, 1))} {
		if _, err := codes.ParseKey(in); err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
}
