package codes_test

import (
	"testing"

	"guichet/internal/codes"
)

// TestTokenHash pins the stored form of tokens: hex SHA-256 (FIPS 180-2's
// "abc" vector), so every stored hash keeps matching.
func TestTokenHash(t *testing.T) {
	if got, want := codes.TokenHash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Fatalf("TokenHash(abc) = %s, want %s", got, want)
	}
}
