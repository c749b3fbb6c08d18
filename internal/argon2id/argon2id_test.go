package argon2id

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"golang.org/x/crypto/argon2"
)

// x/crypto's Argon2id vectors (password "password", salt "somesalt"), made
// with the reference implementation.
var vectors = []struct {
	time, memory uint32
	threads      uint8
	hash         string
}{
	{1, 64, 1, "655ad15eac652dc59f7170a7332bf49b8469be1fdb9c28bb"},
	{2, 64, 1, "068d62b26455936aa6ebe60060b0a65870dbfa3ddf8d41f7"},
	{2, 64, 2, "350ac37222f436ccb5c0972f1ebd3bf6b958bf2071841362"},
	{3, 256, 2, "4668d30ac4187e6878eedeacf0fd83c5a0a30db2cc16ef0b"},
	{4, 4096, 4, "145db9733a9f4ee43edf33c509be96b934d505a4efb33c5a"},
	{4, 1024, 8, "8dafa8e004f8ea96bf7c0f93eecf67a6047476143d15577f"},
	{2, 64, 3, "4a15b31aec7c2590b87d1f520be7d96f56658172deaa3079"},
	{3, 1024, 6, "1640b932f4b60e272f5d2207b9a9c626ffa1bd88d2349016"},
}

func TestVectors(t *testing.T) {
	// Twice, largest memory first the second time, so every vector also
	// runs in reused memory left dirty by another computation.
	for round := range 2 {
		for i := range vectors {
			v := vectors[i]
			if round == 1 {
				v = vectors[len(vectors)-1-i]
			}
			want, _ := hex.DecodeString(v.hash)
			got := IDKey([]byte("password"), []byte("somesalt"), v.time, v.memory, v.threads, uint32(len(want)))
			if !bytes.Equal(got, want) {
				t.Errorf("round %d, t=%d m=%d p=%d: %x, want %s", round, v.time, v.memory, v.threads, got, v.hash)
			}
		}
	}
}

// TestSameAsXCrypto compares with golang.org/x/crypto/argon2.IDKey on random
// inputs and parameters, from several goroutines at once so that memory
// passes between computations of different sizes.
func TestSameAsXCrypto(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 2026))
			for range 40 {
				password := make([]byte, rng.IntN(80))
				salt := make([]byte, 8+rng.IntN(24))
				for i := range password {
					password[i] = byte(rng.Uint32())
				}
				for i := range salt {
					salt[i] = byte(rng.Uint32())
				}
				time := 1 + rng.Uint32N(3)
				threads := uint8(1 + rng.IntN(4))
				memory := 8*uint32(threads) + rng.Uint32N(600)
				keyLen := 4 + rng.Uint32N(100)
				want := argon2.IDKey(password, salt, time, memory, threads, keyLen)
				if got := IDKey(password, salt, time, memory, threads, keyLen); !bytes.Equal(got, want) {
					t.Errorf("t=%d m=%d p=%d len=%d: differs from x/crypto", time, memory, threads, keyLen)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestDesignParametersAsXCrypto(t *testing.T) {
	password, salt := []byte("Guichet-Demo-2026!"), []byte("0123456789abcdef")
	want := argon2.IDKey(password, salt, 2, 19*1024, 1, 32)
	for range 2 {
		if got := IDKey(password, salt, 2, 19*1024, 1, 32); !bytes.Equal(got, want) {
			t.Fatalf("%x, want %x", got, want)
		}
	}
}

func TestReusesMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	IDKey([]byte("warm"), []byte("somesalt"), 1, 19*1024, 1, 32)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 5 {
		IDKey([]byte("password"), []byte("somesalt"), 1, 19*1024, 1, 32)
	}
	runtime.ReadMemStats(&after)
	// blake2b states and the key, never the 19 MiB of blocks (a collection
	// between two calls may empty the pool once).
	if perCall := (after.TotalAlloc - before.TotalAlloc) / 5; perCall > 19*1024*1024/4 {
		t.Fatalf("%d bytes allocated per call, want the blocks reused", perCall)
	}
}

func BenchmarkDesignParameters(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		IDKey([]byte("password"), []byte("somesalt"), 2, 19*1024, 1, 32)
	}
}

func BenchmarkXCrypto(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		argon2.IDKey([]byte("password"), []byte("somesalt"), 2, 19*1024, 1, 32)
	}
}
