package account_test

import (
	"errors"
	"strings"
	"testing"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
)

func TestDefaultParamsAreTheDesigns(t *testing.T) {
	// design.md: argon2id, 19 MiB, t=2, p=1.
	want := account.Params{Memory: 19456, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}
	if account.DefaultParams != want {
		t.Fatalf("DefaultParams = %+v, want %+v", account.DefaultParams, want)
	}
	h := account.NewHasher(account.DefaultParams)
	hash, err := h.Hash(t.Context(), "Guichet-Demo-2026!")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q does not carry the design's parameters", hash)
	}
	ok, rehash, err := h.Verify(t.Context(), "Guichet-Demo-2026!", hash)
	if !ok || rehash || err != nil {
		t.Fatalf("Verify = %v %v %v", ok, rehash, err)
	}
}

func TestHashAndVerify(t *testing.T) {
	ctx := t.Context()
	h := account.NewHasher(accounttest.Params)
	hash, err := h.Hash(ctx, "pässwörd-1")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := h.Hash(ctx, "pässwörd-1")
	if hash == other {
		t.Fatal("two hashes of one password share a salt")
	}
	stronger := account.NewHasher(account.Params{Memory: 128, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	parts := strings.Split(hash, "$")
	cases := []struct {
		name       string
		hasher     *account.Hasher
		password   string
		stored     string
		wantMatch  bool
		wantRehash bool
		wantErr    error
	}{
		{"right", h, "pässwörd-1", hash, true, false, nil},
		{"wrong", h, "pässwörd-2", hash, false, false, nil},
		{"empty stored hash burns a dummy", h, "pässwörd-1", "", false, false, nil},
		{"other parameters ask for a rehash", stronger, "pässwörd-1", hash, true, true, nil},
		{"wrong password never asks for a rehash", stronger, "x", hash, false, false, nil},
		{"argon2i", h, "x", strings.Replace(hash, "argon2id", "argon2i", 1), false, false, account.ErrMalformedHash},
		{"other version", h, "x", strings.Replace(hash, "v=19", "v=16", 1), false, false, account.ErrMalformedHash},
		{"huge memory", h, "x", strings.Replace(hash, "m=64", "m=4194304", 1), false, false, account.ErrMalformedHash},
		{"zero time", h, "x", strings.Replace(hash, "t=1", "t=0", 1), false, false, account.ErrMalformedHash},
		{"params out of order", h, "x", strings.Replace(hash, "m=64,t=1", "t=1,m=64", 1), false, false, account.ErrMalformedHash},
		{"bad salt", h, "x", strings.Join([]string{"", parts[1], parts[2], parts[3], "!!", parts[5]}, "$"), false, false, account.ErrMalformedHash},
		{"short key", h, "x", strings.Join([]string{"", parts[1], parts[2], parts[3], parts[4], "AAAA"}, "$"), false, false, account.ErrMalformedHash},
		{"garbage", h, "x", "$$$", false, false, account.ErrMalformedHash},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			match, rehash, err := c.hasher.Verify(ctx, c.password, c.stored)
			if match != c.wantMatch || rehash != c.wantRehash || !errors.Is(err, c.wantErr) {
				t.Fatalf("Verify = %v %v %v, want %v %v %v", match, rehash, err, c.wantMatch, c.wantRehash, c.wantErr)
			}
		})
	}
}
