package account

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"guichet/internal/argon2id"
)

// Params are argon2id's cost parameters, kept in every hash string so a
// change of them re-hashes passwords at their next successful login.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
	SaltLen int
	KeyLen  int
}

// DefaultParams are design.md's: 19 MiB, 2 passes, 1 lane (OWASP's argon2id
// recommendation), a 16-byte salt and a 32-byte key.
var DefaultParams = Params{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// Bounds on parameters read from a stored hash, so a corrupt row cannot make
// one verification take gigabytes or minutes.
const (
	maxMemoryKiB = 256 * 1024
	maxTime      = 16
	maxThreads   = 16
	maxKeyLen    = 128
)

// Every argon2id computation of the process runs on one of HashSlots()
// hashers: goroutines started on first use, each locked to an OS thread of
// its own whose CPU priority is lowered (nice 10 on Linux), taking the
// computations in turn from hashJobs. Callers queue; they do not fail.
//
// Hashing is most of a sign-in's CPU time, but each computation is a single
// 20 to 30 ms stretch, while the rest of a request (HTTP, JSON, the
// database) is many short ones. So that the short work never waits behind a
// hash, GOMAXPROCS is raised by the number of hashers when they start: the
// hashers can hold at most HashSlots() Ps, the requests keep the others, and
// the kernel lets a request's thread run first whenever it has work, at the
// expense of the hashers only. More hashers than cores would add 19 MiB each
// and no throughput.
var (
	hashSlots   = max(1, min(runtime.GOMAXPROCS(0), runtime.NumCPU()))
	hashJobs    = make(chan func())
	hashersOnce sync.Once
)

// HashSlots is how many argon2id computations run at once: GOMAXPROCS as the
// process started, at most the number of cores.
func HashSlots() int { return hashSlots }

// hasherNice is the hashers' nice value (0 is a request's, 19 the lowest).
const hasherNice = 10

func startHashers() {
	hashersOnce.Do(func() {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + hashSlots)
		for range hashSlots {
			go func() {
				runtime.LockOSThread() // never unlocked: the thread is the hasher's
				lowerThreadPriority(hasherNice)
				for job := range hashJobs {
					job()
				}
			}()
		}
	})
}

// ErrMalformedHash is returned for a stored hash that is not an argon2id PHC
// string this package can read.
var ErrMalformedHash = errors.New("account: malformed password hash")

// Hasher hashes and verifies passwords with one set of parameters.
type Hasher struct {
	params    Params
	dummyOnce sync.Once
	dummy     string
	dummyErr  error
}

// NewHasher returns a hasher using p.
func NewHasher(p Params) *Hasher { return &Hasher{params: p} }

// Params returns the hasher's parameters.
func (h *Hasher) Params() Params { return h.params }

// Hash returns the PHC string of password with a fresh random salt:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash> (unpadded standard base64).
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	salt := make([]byte, h.params.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key, err := compute(ctx, []byte(password), salt, h.params)
	if err != nil {
		return "", err
	}
	return encode(h.params, salt, key), nil
}

// Verify compares password with a stored hash in constant time. rehash is
// true when the password matched but the hash was made with other
// parameters than the hasher's (the caller stores a new hash). An empty
// stored hash (an unknown account, no password set) is checked against a
// dummy hash, so it costs the same time and never matches.
func (h *Hasher) Verify(ctx context.Context, password, stored string) (match, rehash bool, err error) {
	if stored == "" {
		if err := h.burn(ctx, password); err != nil {
			return false, false, err
		}
		return false, false, nil
	}
	p, salt, want, err := decode(stored)
	if err != nil {
		// Spend the time anyway, then report the broken row.
		if berr := h.burn(ctx, password); berr != nil {
			return false, false, berr
		}
		return false, false, err
	}
	got, err := compute(ctx, []byte(password), salt, p)
	if err != nil {
		return false, false, err
	}
	if subtle.ConstantTimeCompare(got, want) != 1 {
		return false, false, nil
	}
	return true, p != h.params, nil
}

// burn runs one verification against the dummy hash.
func (h *Hasher) burn(ctx context.Context, password string) error {
	h.dummyOnce.Do(func() {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			h.dummyErr = err
			return
		}
		h.dummy, h.dummyErr = h.Hash(context.WithoutCancel(ctx), base64.RawStdEncoding.EncodeToString(b[:]))
	})
	if h.dummyErr != nil {
		return h.dummyErr
	}
	p, salt, _, err := decode(h.dummy)
	if err != nil {
		return err
	}
	_, err = compute(ctx, []byte(password), salt, p)
	return err
}

// compute runs argon2id on the next free hasher. A caller whose context ends
// stops waiting; a computation already started runs to its end. A panic in
// the computation (parameters argon2id refuses) comes back as an error, as
// it would have reached the request's recovery had it run there.
func compute(ctx context.Context, password, salt []byte, p Params) ([]byte, error) {
	startHashers()
	type result struct {
		key []byte
		err error
	}
	out := make(chan result, 1)
	job := func() {
		defer func() {
			if r := recover(); r != nil {
				out <- result{err: fmt.Errorf("argon2id: %v", r)}
			}
		}()
		out <- result{key: argon2id.IDKey(password, salt, p.Time, p.Memory, p.Threads, uint32(p.KeyLen))}
	}
	select {
	case hashJobs <- job:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-out:
		return r.key, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func encode(p Params, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2id.Version, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

// decode reads a PHC string made by encode; SaltLen and KeyLen come from the
// decoded lengths.
func decode(s string) (p Params, salt, key []byte, err error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2id.Version) {
		return Params{}, nil, nil, ErrMalformedHash
	}
	fields := strings.Split(parts[3], ",")
	if len(fields) != 3 {
		return Params{}, nil, nil, ErrMalformedHash
	}
	var values [3]uint64 // m, t, p in this order
	for i, f := range fields {
		name, value, ok := strings.Cut(f, "=")
		n, perr := strconv.ParseUint(value, 10, 32)
		if !ok || perr != nil || name != [3]string{"m", "t", "p"}[i] {
			return Params{}, nil, nil, ErrMalformedHash
		}
		values[i] = n
	}
	m, t, th := values[0], values[1], values[2]
	if m < 8 || m > maxMemoryKiB || t < 1 || t > maxTime || th < 1 || th > maxThreads || m < 8*th {
		return Params{}, nil, nil, ErrMalformedHash
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(key) < 16 || len(key) > maxKeyLen {
		return Params{}, nil, nil, ErrMalformedHash
	}
	p = Params{Memory: uint32(m), Time: uint32(t), Threads: uint8(th), SaltLen: len(salt), KeyLen: len(key)}
	return p, salt, key, nil
}
