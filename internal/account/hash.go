package account

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"guichet/internal/argon2id"
	"guichet/internal/telemetry"
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
// computations in turn from hashJobs. Callers queue; a request that would
// queue for longer than its hasher's WaitBudget is refused before it starts
// (Admit).
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
	hashSlots = max(1, min(runtime.GOMAXPROCS(0), runtime.NumCPU()))
	// hashJobs are the hashes waiting for a hasher, a channel a lane
	// (nextJob says which goes first).
	hashJobs    = [lanes]chan func(){make(chan func()), make(chan func())}
	hashersOnce sync.Once
	// queue counts the hashers' work for admission control.
	queue = hashQueue{mean: hashTimePrior}
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
				owed := 0
				for {
					var job func()
					job, owed = nextJob(hashJobs, owed)
					job()
				}
			}()
		}
	})
}

// lane is where a hash waits for a hasher: the returning browsers' lane
// (returning.go) and the others'.
type lane int

const (
	laneOther lane = iota
	laneReturning
	lanes
)

// returningShare bounds the returning lane while both lanes wait: a hasher
// takes at most one of its hashes in every returningShare (nextJob).
const returningShare = 4

// nextJob waits for a hasher's next hash. owed is how many of the other
// lane's hashes the hasher owes before the returning lane goes first again
// (0 at its start); it returns the hash and the new owed. The returning
// lane's hash goes first unless hashes are owed; one taken owes
// returningShare - 1 of the other lane's, each counted off when the other
// lane has one waiting (an empty other lane owes nothing). So the
// returning lane goes ahead of the others but takes at most one hash in
// returningShare while both wait: a stream of returning sign-ins (an
// account holder's own, signed in to again and again) cannot starve the
// requests admitted before it, whose expected wait counts that share
// (hashQueue.wait).
func nextJob(jobs [lanes]chan func(), owed int) (func(), int) {
	if owed > 0 {
		select {
		case job := <-jobs[laneOther]:
			return job, owed - 1
		default:
		}
	}
	select {
	case job := <-jobs[laneReturning]:
		return job, returningShare - 1
	default:
	}
	select {
	case job := <-jobs[laneReturning]:
		return job, returningShare - 1
	case job := <-jobs[laneOther]:
		return job, max(0, owed-1)
	}
}

// DefaultWaitBudget is how long a sign-in may expect to wait for its hash
// before it is refused (issue 11: 1,000 concurrent sign-ins made one wait
// 14.3 s). It is 1.5 s so that an admitted request's whole answer lands
// within 2 s (issue 34's p99 under a sustained flood): under a flood the
// queue stays full, so every admitted request expects to wait about the
// whole budget, and its own work and the estimate's error come on top
// (2.2 to 2.4 s at the p99 with a 2 s budget; docs/benchmarks.md).
const DefaultWaitBudget = 1500 * time.Millisecond

// hashTimePrior is what a hash is taken to cost until one has been timed:
// about four of design.md's on the machines of docs/benchmarks.md, so the
// first instants of a process err on refusing.
const hashTimePrior = 100 * time.Millisecond

// hashEWMAWeight is the weight of the latest hash in the moving average of
// hash times: the last eight or so count, a fraction of a second under load.
const hashEWMAWeight = 0.125

// hashTimeHalfLife is how fast a high estimate is forgotten while the
// hashers have nothing to time: every hashTimeHalfLife with no hash on them
// halves what the estimate has above hashTimePrior.
const hashTimeHalfLife = time.Second

// hashQueue is what admission control knows: the hashes not finished yet
// (queued for a hasher, running, or reserved by an admitted request that has
// not reached its hash) and an estimate of how long one takes on its
// hasher: an exponentially weighted moving average of the recent ones,
// which grows when the requests' own work takes the cores from the hashers.
//
// Only a hash that runs moves the average, so a refusal, which runs none,
// would leave a high one in place for ever: while no hash is on the
// hashers (handed to submit and not finished), the part of the estimate
// above hashTimePrior decays with the time since the last one ended
// (hashTimeHalfLife), and the first hash after the pause starts from the
// decayed value. A refused request changes nothing, so it is never the
// reason the next one is refused. Times come from the callers' clock.
type hashQueue struct {
	mu      sync.Mutex
	pending int
	// returning counts the places of pending in the returning browsers'
	// lane, whose hashes go first; accounts, the lane's places by account
	// (admission.go).
	returning int
	accounts  map[string]int
	// hashing counts the hashes handed to submit and not finished; idle is
	// when it last fell to 0 (the decay's start).
	hashing int
	idle    time.Time
	mean    time.Duration
	// clients counts the places each client address holds (admission.go).
	clients map[string]int
}

// estimate is the expected time of one hash at now: the average, decayed
// while no hash is on the hashers.
func (q *hashQueue) estimate(now time.Time) time.Duration {
	if q.hashing > 0 || q.mean <= hashTimePrior || q.idle.IsZero() {
		return q.mean
	}
	idle := now.Sub(q.idle)
	if idle <= 0 {
		return q.mean
	}
	excess := float64(q.mean-hashTimePrior) * math.Exp2(-float64(idle)/float64(hashTimeHalfLife))
	return hashTimePrior + time.Duration(excess)
}

// wait is the expected time until a hash of lane l joining the queue at
// now is done: the hashers work through the pending ones it waits behind
// and it, HashSlots() at a time. In the other lane that is every pending
// one; while the returning lane holds places, returning hashes that come
// later may go before it, at most one in returningShare (nextJob), so the
// work is then counted returningShare ÷ (returningShare - 1) times. (A
// request admitted while the lane was empty may still meet a stream of
// returning sign-ins: its wait is then at most that many times the budget,
// 2 s for the 1.5 s budget.) In the returning lane it is that lane's
// hashes and up to returningShare - 1 of the other lane's before each: the
// most it can wait, since the other lane's may arrive after it and still
// go first (a request the lane cannot take within the budget is admitted
// in the other lane instead, laneFor).
func (q *hashQueue) wait(now time.Time, l lane) time.Duration {
	e := q.estimate(now)
	switch {
	case l == laneReturning:
		return time.Duration(returningShare*(q.returning+1)) * e / time.Duration(hashSlots)
	case q.returning > 0:
		return time.Duration((q.pending+1)*returningShare) * e / time.Duration(hashSlots*(returningShare-1))
	default:
		return time.Duration(q.pending+1) * e / time.Duration(hashSlots)
	}
}

// count (q.mu held) adds n places in lane l.
func (q *hashQueue) count(l lane, n int) {
	q.pending += n
	if l == laneReturning {
		q.returning += n
	}
}

// begin counts in a hash of lane l handed to submit at now (counted: its
// place is already in pending, a reservation). The first one after a pause
// takes the decayed estimate as the average the coming hash times move.
func (q *hashQueue) begin(now time.Time, counted bool, l lane) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !counted {
		q.count(l, 1)
	}
	if q.hashing == 0 {
		q.mean = q.estimate(now)
	}
	q.hashing++
}

// end counts out at now a hash of lane l begun: one that ran for took
// (ran), or one whose caller gave up before a hasher took it.
func (q *hashQueue) end(now time.Time, took time.Duration, ran bool, l lane) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.count(l, -1)
	q.hashing--
	if ran {
		q.mean += time.Duration(hashEWMAWeight * float64(took-q.mean))
	}
	if q.hashing == 0 {
		q.idle = now
	}
}

// ErrBusy: the hashers' queue is longer than the wait budget; the request
// was refused before it did anything (*BusyError carries the wait).
var ErrBusy = errors.New("account: too busy to hash")

// BusyError is ErrBusy with the expected wait that made the refusal.
type BusyError struct{ Wait time.Duration }

func (e *BusyError) Error() string { return fmt.Sprintf("%v (expected wait %v)", ErrBusy, e.Wait) }

// Is makes errors.Is(err, ErrBusy) true.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// RetryAfter is the wait in whole seconds, at least one.
func (e *BusyError) RetryAfter() int {
	return max(1, int((e.Wait+time.Second-1)/time.Second))
}

// reservation is an admitted request's place in the queue, carried in its
// context until its first hash takes it.
// lane is its request's (AdmitClient), where its first hash waits.
type reservation struct {
	taken atomic.Bool
	lane  lane
}

type reservationKey struct{}

// Admit is admission control for a request that is about to hash a
// password: call it first, before anything the request counts (rate
// limits, failed attempts), so that a refusal leaves no trace and tells
// nothing about the account. It reserves a place in the hashers' queue and
// returns ctx carrying it (the request's first hash takes it) and release,
// which gives back a place that was not used (defer it). When the expected
// wait for the hash (every unfinished hash and this one, times the recent
// hash time, over HashSlots(); counted 4 ÷ 3 times while the returning
// browsers' lane holds places, and that lane's own for a returning
// browser: hashQueue.wait) passes WaitBudget it reserves nothing and
// returns a *BusyError. The recent hash time decays while no hash runs
// (hashQueue), so a refusal never outlasts the load that caused it. A ctx
// that already carries a reservation is admitted as it is: one request
// queues once. Admit counts no client address: see AdmitClient.
func (h *Hasher) Admit(ctx context.Context) (context.Context, func(), error) {
	return h.AdmitClient(ctx, "")
}

// ErrMalformedHash is returned for a stored hash that is not an argon2id PHC
// string this package can read.
var ErrMalformedHash = errors.New("account: malformed password hash")

// Hasher hashes and verifies passwords with one set of parameters.
type Hasher struct {
	// WaitBudget is the longest expected wait for a hash that Admit
	// accepts; 0 admits every request.
	WaitBudget time.Duration
	// Metrics, when set, counts refusals and times the wait for a hasher.
	Metrics *Metrics
	// ClientShare bounds what one client address holds of the places the
	// budget holds (AdmitClient); 0: no bound per address.
	ClientShare int
	// Now is admission control's clock (hash times, the decay of the
	// estimate while no hash runs); nil: time.Now. Tests inject a fake one.
	Now    func() time.Time
	params Params
	// queue, when set (tests), replaces the process's hash queue.
	queue *hashQueue
	// onHash, when set (tests), is told the parameters of every hash.
	onHash    func(Params)
	dummyOnce sync.Once
	dummy     string
	dummyErr  error
}

// NewHasher returns a hasher using p, with DefaultWaitBudget and
// DefaultClientShare.
func NewHasher(p Params) *Hasher {
	return &Hasher{params: p, WaitBudget: DefaultWaitBudget, ClientShare: DefaultClientShare}
}

func (h *Hasher) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Alone gives h a queue of its own, as a fresh process has it (nothing
// pending, the prior estimate), in place of the process's, and returns h:
// a test that fills a queue leaves the other tests' alone. The hashes still
// run on the process's hashers. Production hashers share the process's.
func (h *Hasher) Alone() *Hasher {
	h.queue = &hashQueue{mean: hashTimePrior}
	return h
}

// hashQueue is the queue h's admission control counts in.
func (h *Hasher) hashQueue() *hashQueue {
	if h.queue != nil {
		return h.queue
	}
	return &queue
}

// Params returns the hasher's parameters.
func (h *Hasher) Params() Params { return h.params }

// Hash returns the PHC string of password with a fresh random salt:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash> (unpadded standard base64).
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	salt := make([]byte, h.params.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key, err := h.compute(ctx, []byte(password), salt, h.params)
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
	got, err := h.compute(ctx, []byte(password), salt, p)
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
	_, err = h.compute(ctx, []byte(password), salt, p)
	return err
}

// compute runs argon2id on the next free hasher. It takes the place the
// request's Admit reserved, or counts itself in: a hash of an admitted
// request, or of a caller that does not answer a visitor (demo data), is
// never refused. A caller whose context ends stops waiting; a computation
// already started runs to its end. A panic in the computation (parameters
// argon2id refuses) comes back as an error, as it would have reached the
// request's recovery had it run there.
func (h *Hasher) compute(ctx context.Context, password, salt []byte, p Params) ([]byte, error) {
	if h.onHash != nil {
		h.onHash(p)
	}
	type result struct {
		key []byte
		err error
	}
	out := make(chan result, 1)
	// The wait for a free hasher and the hash itself are each a span under
	// a traced request (docs/architecture.md "Tracing").
	_, wait := telemetry.Child(ctx, tracerScope, "hash wait")
	err := h.submit(ctx, func() {
		defer func() {
			if r := recover(); r != nil {
				out <- result{err: fmt.Errorf("argon2id: %v", r)}
			}
		}()
		out <- result{key: argon2id.IDKey(password, salt, p.Time, p.Memory, p.Threads, uint32(p.KeyLen))}
	})
	wait.End()
	if err != nil {
		return nil, err
	}
	_, hash := telemetry.Child(ctx, tracerScope, "argon2id", hashAttributes(p))
	defer hash.End()
	select {
	case r := <-out:
		return r.key, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// submit hands job to the next free hasher, counted in h's queue (see
// compute) and timed on h's clock.
func (h *Hasher) submit(ctx context.Context, job func()) error {
	startHashers()
	q := h.hashQueue()
	r, _ := ctx.Value(reservationKey{}).(*reservation)
	// The request's first hash takes its reservation, in its lane; a later
	// one (a re-hash) queues in the other lane, unadmitted as before.
	counted := r != nil && r.taken.CompareAndSwap(false, true)
	l := laneOther
	if counted {
		l = r.lane
	}
	asked := h.now()
	q.begin(asked, counted, l)
	timed := func() {
		start := h.now()
		h.Metrics.waited(start.Sub(asked))
		defer func() {
			end := h.now()
			q.end(end, end.Sub(start), true, l)
		}()
		job()
	}
	select {
	case hashJobs[l] <- timed:
		return nil
	case <-ctx.Done():
		q.end(h.now(), 0, false, l)
		return ctx.Err()
	}
}

const tracerScope = "guichet/internal/account"

// hashAttributes are an argon2id span's cost parameters.
func hashAttributes(p Params) trace.SpanStartOption {
	return trace.WithAttributes(attribute.Int("argon2id.memory_kib", int(p.Memory)),
		attribute.Int("argon2id.passes", int(p.Time)), attribute.Int("argon2id.lanes", int(p.Threads)))
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
