package account

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"guichet/internal/testclock"
)

// occupyHashers gives every hasher a job that waits until release is called,
// as that many hashes in progress would.
func occupyHashers(t *testing.T) (release func()) {
	t.Helper()
	startHashers()
	hold := make(chan struct{})
	for range hashSlots {
		hashJobs[laneOther] <- func() { <-hold } // a hasher takes it
	}
	return func() { close(hold) }
}

func TestHashingQueuesForAHasher(t *testing.T) {
	startHashers() // GOMAXPROCS is now what the process started with + hashSlots
	if want := min(runtime.NumCPU(), max(1, runtime.GOMAXPROCS(0)-hashSlots)); HashSlots() != want {
		t.Fatalf("%d hashers, want min(GOMAXPROCS at start, cores) = %d", HashSlots(), want)
	}
	h := NewHasher(Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	waitPending(t, 0) // a hash an earlier test gave up on may still be running
	release := occupyHashers(t)
	done := make(chan error, 1)
	go func() {
		_, err := h.Hash(context.Background(), "queued")
		done <- err
	}()
	// The hash is counted in the queue; with every hasher holding a job
	// that waits for release, it cannot have run.
	waitPending(t, 1)
	select {
	case err := <-done:
		t.Fatalf("a hash ran with every hasher busy (err %v)", err)
	default:
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Hash(ctx, "gives up"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait for a hasher returned %v", err)
	}
	release()
	if err := <-done; err != nil { // runs once a hasher is free
		t.Fatal(err)
	}
}

// The hashers keep Ps of their own: with every hasher busy, the rest of the
// process still has at least as many Ps as it started with.
func TestHashersBringTheirOwnPs(t *testing.T) {
	startHashers()
	if got := runtime.GOMAXPROCS(0); got < 2*hashSlots {
		t.Fatalf("GOMAXPROCS %d with %d hashers, want the hashers' Ps added", got, hashSlots)
	}
	release := occupyHashers(t)
	defer release()
	// Work that needs a P of its own runs while every hasher holds one.
	ran := make(chan struct{})
	go func() {
		for i := 0; i < 1e6; i++ {
		}
		close(ran)
	}()
	<-ran
}

func TestHashersRunAtLowerPriority(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("nice is per thread on Linux only")
	}
	startHashers()
	got := make(chan int, 1)
	hashJobs[laneOther] <- func() {
		// The raw system call answers 20 - nice.
		prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
		if err != nil {
			t.Error(err)
		}
		got <- 20 - prio
	}
	if nice := <-got; nice != hasherNice {
		t.Fatalf("a hasher's thread runs at nice %d, want %d", nice, hasherNice)
	}
	// The priority belongs to the hashers' threads only.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if prio, _ := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid()); 20-prio == hasherNice {
		t.Fatal("a request's thread runs at the hashers' nice value")
	}
}

// A computation that panics (parameters argon2id refuses) is an error for
// its caller; the hasher goes on.
func TestAPanicInAHashIsAnError(t *testing.T) {
	h := &Hasher{}
	if _, err := h.compute(context.Background(), []byte("x"), []byte("somesalt"), Params{Memory: 64, Time: 0, Threads: 1, KeyLen: 32}); err == nil {
		t.Fatal("argon2id with 0 passes gave no error")
	}
	for range 2 * hashSlots { // every hasher still answers
		if _, err := h.compute(context.Background(), []byte("x"), []byte("somesalt"), Params{Memory: 64, Time: 1, Threads: 1, KeyLen: 32}); err != nil {
			t.Fatal(err)
		}
	}
}

// hashTime sets the queue's estimate of one hash for the test, as a fresh
// process has it (no hash ended yet, so nothing decays before the next
// one); restore (called at the test's end at the latest) waits for the
// test's jobs to end and puts the estimate back.
func hashTime(t *testing.T, d time.Duration) (restore func()) {
	t.Helper()
	// A hash an earlier test gave up on may still be running.
	waitPending(t, 0)
	queue.mu.Lock()
	prevMean, prevIdle := queue.mean, queue.idle
	queue.mean, queue.idle = d, time.Time{}
	queue.mu.Unlock()
	var once sync.Once
	restore = func() {
		once.Do(func() {
			waitPending(t, 0)
			queue.mu.Lock()
			queue.mean, queue.idle = prevMean, prevIdle
			queue.mu.Unlock()
		})
	}
	t.Cleanup(restore)
	return restore
}

// pending is the number of hashes the queue counts.
func pending() int {
	queue.mu.Lock()
	defer queue.mu.Unlock()
	return queue.pending
}

// waitPending waits until the queue counts n hashes (goroutines that submit
// count themselves in on their own schedule; one that never does hangs the
// test until go test's timeout).
func waitPending(t *testing.T, n int) {
	t.Helper()
	for pending() != n {
		runtime.Gosched()
	}
}

// holdJobs submits n jobs that wait until release is called: the hashers
// take HashSlots() of them, the others queue. It returns once all n are
// counted.
func holdJobs(t *testing.T, n int) (release func()) {
	t.Helper()
	hold := make(chan struct{})
	before := pending()
	for range n {
		go func() {
			if err := (&Hasher{}).submit(context.Background(), func() { <-hold }); err != nil {
				t.Error(err)
			}
		}()
	}
	waitPending(t, before+n)
	var once sync.Once
	release = func() { once.Do(func() { close(hold) }) }
	t.Cleanup(release)
	return release
}

// With a hash taken to last 100 ms, 1 s of budget admits what the hashers
// finish in 1 s: 10 hashes per hasher, counting the ones already queued.
func TestAdmissionShedsPastTheBudget(t *testing.T) {
	hashTime(t, 100*time.Millisecond)
	h := NewHasher(Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	h.WaitBudget = time.Second
	capacity := 10 * hashSlots
	queued := 3 * hashSlots // running and waiting for a hasher
	release := holdJobs(t, queued)

	var admitted, shed int
	var releases []func()
	var refusal *BusyError
	for range capacity + 7 {
		_, rel, err := h.Admit(context.Background())
		switch {
		case err == nil:
			admitted++
			releases = append(releases, rel)
		case errors.As(err, &refusal) && errors.Is(err, ErrBusy):
			shed++
		default:
			t.Fatal(err)
		}
	}
	if admitted != capacity-queued || shed != queued+7 {
		t.Fatalf("admitted %d, shed %d; want %d and %d", admitted, shed, capacity-queued, queued+7)
	}
	// The refusal tells the wait that made it: 10 hashes each plus one.
	if want := time.Duration(capacity+1) * 100 * time.Millisecond / time.Duration(hashSlots); refusal.Wait != want {
		t.Fatalf("expected wait %v, want %v", refusal.Wait, want)
	}
	if refusal.RetryAfter() != 2 {
		t.Fatalf("Retry-After %d s for a wait of %v, want 2", refusal.RetryAfter(), refusal.Wait)
	}
	// Reservations given back and jobs done make room again.
	for _, rel := range releases {
		rel()
		rel() // a second release gives back nothing more
	}
	waitPending(t, queued)
	release()
	waitPending(t, 0)
	if _, rel, err := h.Admit(context.Background()); err != nil {
		t.Fatalf("refused with nothing queued: %v", err)
	} else {
		rel()
	}
}

// An admitted request's hash takes its reservation instead of counting
// again, and is never refused; the place is free once the hash ends.
func TestAReservationIsTakenByTheFirstHash(t *testing.T) {
	hashTime(t, 100*time.Millisecond)
	h := NewHasher(Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	h.WaitBudget = 100 * time.Millisecond / time.Duration(hashSlots) // one hash
	ctx, release, err := h.Admit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, rel, err := h.Admit(context.Background()); !errors.Is(err, ErrBusy) {
		rel()
		t.Fatalf("a second request was admitted past the budget (err %v)", err)
	}
	if pending() != 1 {
		t.Fatalf("%d hashes counted after one admission, want 1", pending())
	}
	// Two hashes of the admitted request (a rehash after a match): neither
	// refused, the first on the reservation.
	for range 2 {
		if _, err := h.Hash(ctx, "admitted"); err != nil {
			t.Fatal(err)
		}
	}
	release()
	waitPending(t, 0)
}

// A caller that gives up while its hash waits for a hasher is counted out.
func TestAGivenUpHashLeavesTheQueue(t *testing.T) {
	hashTime(t, 100*time.Millisecond)
	release := holdJobs(t, hashSlots)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Hasher{}).submit(ctx, func() { t.Error("a given-up job ran") }) }()
	waitPending(t, hashSlots+1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("submit = %v", err)
	}
	if pending() != hashSlots {
		t.Fatalf("%d pending, want the %d held", pending(), hashSlots)
	}
	release()
}

// The estimate follows the measured hash times, the latest weighing 1/8.
func TestHashTimeIsAMovingAverage(t *testing.T) {
	q := hashQueue{mean: 100 * time.Millisecond}
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ took, mean time.Duration }{
		{20 * time.Millisecond, 90 * time.Millisecond},
		{90 * time.Millisecond, 90 * time.Millisecond},
		{250 * time.Millisecond, 110 * time.Millisecond},
	} {
		q.begin(now, false, laneOther) // back to back: no time without a hash
		q.end(now, c.took, true, laneOther)
		if q.mean != c.mean || q.pending != 0 || q.hashing != 0 {
			t.Fatalf("after a hash of %v: mean %v, pending %d, hashing %d; want %v, 0, 0", c.took, q.mean, q.pending, q.hashing, c.mean)
		}
	}
}

// fakeQueue is a hasher with a queue of its own on a test clock, its hash
// time estimate at hashTimePrior as in a fresh process; hashes it times
// last as long as the test moves the clock while they run.
type fakeQueue struct {
	t     *testing.T
	h     *Hasher
	q     *hashQueue
	clock *testclock.Clock
}

func newFakeQueue(t *testing.T, budget time.Duration) *fakeQueue {
	q := &hashQueue{mean: hashTimePrior}
	c := testclock.New()
	h := NewHasher(Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	h.Now, h.queue, h.WaitBudget = c.Now, q, budget
	return &fakeQueue{t: t, h: h, q: q, clock: c}
}

// admitEach admits n requests, the i-th with the context and client
// address of request(i), failing the test on a refusal, and returns their
// releases.
func (f *fakeQueue) admitEach(n int, what string, request func(i int) (context.Context, string)) []func() {
	f.t.Helper()
	var held []func()
	for i := range n {
		ctx, client := request(i)
		_, release, err := f.h.AdmitClient(ctx, client)
		if err != nil {
			f.t.Fatalf("%s %d of %d: %v", what, i+1, n, err)
		}
		held = append(held, release)
	}
	return held
}

// hash runs one job on a hasher that lasts d on the test clock, and returns
// once the queue has counted it out.
func (f *fakeQueue) hash(d time.Duration) {
	f.t.Helper()
	started, finish := make(chan struct{}), make(chan struct{})
	if err := f.h.submit(context.Background(), func() {
		close(started)
		<-finish
	}); err != nil {
		f.t.Fatal(err)
	}
	<-started
	f.clock.Advance(d)
	close(finish)
	for {
		f.q.mu.Lock()
		idle := f.q.hashing == 0
		f.q.mu.Unlock()
		if idle {
			return
		}
		runtime.Gosched()
	}
}

// admit asks for a place; a place given is given back at once.
func (f *fakeQueue) admit() (*BusyError, bool) {
	_, release, err := f.h.Admit(context.Background())
	release()
	var busy *BusyError
	if errors.As(err, &busy) {
		return busy, false
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return nil, true
}

func (f *fakeQueue) estimate() time.Duration {
	f.q.mu.Lock()
	defer f.q.mu.Unlock()
	return f.q.estimate(f.clock.Now())
}

// Issue 27: a few slow hashes made every later sign-in BUSY until a
// restart, since only a hash that ran moved the estimate and none ran. Now
// time without a hash brings the estimate down, refusals or not.
func TestBusyEndsWhenTimePassesWithoutAHash(t *testing.T) {
	const budget = 2 * time.Second
	slow := time.Duration(hashSlots) * 10 * time.Second // 5× the budget per hasher
	f := newFakeQueue(t, budget)
	if _, ok := f.admit(); !ok {
		t.Fatal("a fresh queue refused")
	}
	for range 20 {
		f.hash(slow)
	}
	mean := f.estimate()
	if mean < 9*slow/10 {
		t.Fatalf("estimate %v after 20 hashes of %v", mean, slow)
	}
	busy, ok := f.admit()
	if ok {
		t.Fatalf("admitted with a hash taking %v, budget %v", mean, budget)
	}
	if want := mean / time.Duration(hashSlots); busy.Wait != want {
		t.Fatalf("expected wait %v, want %v", busy.Wait, want)
	}
	// A twin queue in the same state that nobody asks: the refused
	// requests of f must not make its refusal last longer.
	twin := &fakeQueue{t: t, q: &hashQueue{mean: f.q.mean, idle: f.q.idle}, clock: f.clock}
	// The decay: the excess over the prior halves every hashTimeHalfLife,
	// so the wait is under the budget once (mean - prior) × 2^(-idle/half)
	// ≤ budget × hashSlots - prior.
	limit := budget*time.Duration(hashSlots) - hashTimePrior
	predicted := time.Duration(float64(hashTimeHalfLife) * math.Log2(float64(mean-hashTimePrior)/float64(limit)))
	const step = 50 * time.Millisecond
	var waited time.Duration
	refusals := 0
	for {
		_, ok := f.admit()
		twinWait := twin.q.wait(f.clock.Now(), laneOther)
		if twinOK := twinWait <= budget; ok != twinOK {
			t.Fatalf("after %v without a hash and %d refusals: admitted %v, a queue never asked %v", waited, refusals, ok, twinOK)
		}
		if ok {
			break
		}
		refusals++
		if waited > predicted+step {
			t.Fatalf("still refused %v without a hash (estimate %v); predicted %v", waited, f.estimate(), predicted)
		}
		f.clock.Advance(step)
		waited += step
	}
	if waited < predicted-step {
		t.Fatalf("admitted after %v without a hash, before the predicted %v", waited, predicted)
	}
	if refusals < 10 {
		t.Fatalf("only %d refusals before the estimate came down", refusals)
	}
	// Long without a hash, the estimate is the prior's, as at start.
	f.clock.Advance(time.Minute)
	if got := f.estimate(); got != hashTimePrior {
		t.Fatalf("after a minute without a hash the estimate is %v, want the prior %v", got, hashTimePrior)
	}
	// A hash that is still slow counts in full again: the decayed average
	// moves towards it.
	f.hash(slow)
	if got, want := f.estimate(), hashTimePrior+time.Duration(hashEWMAWeight*float64(slow-hashTimePrior)); got != want {
		t.Fatalf("after a slow hash: estimate %v, want %v", got, want)
	}
}

// While a hash runs, the estimate does not decay: a slow hashers' queue
// keeps refusing for as long as it is slow.
func TestNoDecayWhileAHashRuns(t *testing.T) {
	f := newFakeQueue(t, 2*time.Second)
	slow := time.Duration(hashSlots) * 10 * time.Second
	for range 20 {
		f.hash(slow)
	}
	before := f.estimate()
	started, finish := make(chan struct{}), make(chan struct{})
	if err := f.h.submit(context.Background(), func() { close(started); <-finish }); err != nil {
		t.Fatal(err)
	}
	<-started
	f.clock.Advance(time.Minute)
	if got := f.estimate(); got != before {
		t.Fatalf("estimate %v after a minute of a running hash, want %v", got, before)
	}
	if _, ok := f.admit(); ok {
		t.Fatal("admitted behind a hash running for a minute")
	}
	close(finish)
}

// Fast hashes after slow ones bring the estimate down, each by 1/8 of its
// distance to the hash's time, with no idle time to help.
func TestFastHashesBringTheEstimateDown(t *testing.T) {
	const budget = 2 * time.Second
	f := newFakeQueue(t, budget)
	slow := time.Duration(hashSlots) * 10 * time.Second
	for range 20 {
		f.hash(slow)
	}
	if _, ok := f.admit(); ok {
		t.Fatal("admitted after slow hashes")
	}
	// The hashes follow each other: the clock moves only while one runs,
	// so nothing decays; each hash moves the estimate 1/8 of the way.
	const fast = 20 * time.Millisecond
	est := f.estimate()
	// Admitted once (est - fast) × (7/8)^n ≤ budget × hashSlots - fast.
	limit := budget*time.Duration(hashSlots) - fast
	most := int(math.Ceil(math.Log(float64(limit)/float64(est-fast)) / math.Log(1-hashEWMAWeight)))
	n := 0
	for ; ; n++ {
		if _, ok := f.admit(); ok {
			break
		}
		if n > most {
			t.Fatalf("still refused after %d fast hashes (estimate %v); want at most %d", n, est, most)
		}
		f.hash(fast)
		want := est + time.Duration(hashEWMAWeight*float64(fast-est))
		if est = f.estimate(); est != want {
			t.Fatalf("after %d fast hashes: estimate %v, want %v", n+1, est, want)
		}
	}
	if n < most-1 {
		t.Fatalf("admitted after %d fast hashes, want about %d", n, most)
	}
}

// Issue 34: one address flooding holds at most its share of the places
// the budget holds, so a visitor from another address is still admitted;
// a place comes back to the address when its request is done.
func TestOneAddressHoldsAtMostItsShare(t *testing.T) {
	const budget = 2 * time.Second
	f := newFakeQueue(t, budget)
	places := int(budget * time.Duration(hashSlots) / hashTimePrior)
	share := max(1, places/DefaultClientShare)
	const flooder, visitor = "203.0.113.7", "198.51.100.9"
	var held []func()
	refused := 0
	for range 10 * places {
		_, release, err := f.h.AdmitClient(context.Background(), flooder)
		var busy *BusyError
		switch {
		case err == nil:
			held = append(held, release)
		case errors.As(err, &busy) && busy.Wait > 0:
			refused++
		default:
			t.Fatal(err)
		}
	}
	if len(held) != share || refused != 10*places-share {
		t.Fatalf("one address was admitted %d times and refused %d; want its share %d of %d places", len(held), refused, share, places)
	}
	// Check, the HTTP layer's question before it reads a request, answers
	// the same and reserves nothing.
	var busy *BusyError
	if err := f.h.Check(flooder, ""); !errors.As(err, &busy) || busy.Wait <= 0 {
		t.Fatalf("Check for the address holding its share: %v, want a *BusyError", err)
	}
	for range 3 {
		if err := f.h.Check(visitor, ""); err != nil {
			t.Fatalf("Check for another address: %v", err)
		}
	}
	f.q.mu.Lock()
	pending := f.q.pending
	f.q.mu.Unlock()
	if pending != share {
		t.Fatalf("%d places counted after the checks, want the flooder's %d", pending, share)
	}
	ctx, release, err := f.h.AdmitClient(context.Background(), visitor)
	if err != nil {
		t.Fatalf("a visitor from another address was refused while one floods: %v", err)
	}
	// A nested admission with the reservation in ctx: admitted without a
	// second place.
	if _, again, err := f.h.AdmitClient(ctx, visitor); err != nil {
		t.Fatal(err)
	} else {
		again()
	}
	var visitors int
	f.q.mu.Lock()
	pending, visitors = f.q.pending, f.q.clients[visitor]
	f.q.mu.Unlock()
	if pending != share+1 || visitors != 1 {
		t.Fatalf("%d places counted, the visitor holding %d; want %d and 1", pending, visitors, share+1)
	}
	release()
	// A place given back is the flooder's again, once.
	held[0]()
	held[0]()
	if _, rel, err := f.h.AdmitClient(context.Background(), flooder); err != nil {
		t.Fatalf("the address was refused after giving a place back: %v", err)
	} else {
		held[0] = rel
	}
	if _, rel, err := f.h.AdmitClient(context.Background(), flooder); err == nil {
		rel()
		t.Fatal("the address was admitted past its share")
	}
	for _, rel := range held {
		rel()
	}
	f.q.mu.Lock()
	defer f.q.mu.Unlock()
	if f.q.pending != 0 || len(f.q.clients) != 0 {
		t.Fatalf("after every release: %d places, clients %v", f.q.pending, f.q.clients)
	}
}

// Without a share (ClientShare 0) or a client, only the budget bounds an
// address: it can take every place.
func TestWithoutAShareOneAddressFillsTheQueue(t *testing.T) {
	const budget = 2 * time.Second
	places := int(budget * time.Duration(hashSlots) / hashTimePrior)
	for _, c := range []struct {
		name   string
		share  int
		client string
	}{{"no share", 0, "203.0.113.7"}, {"no client", DefaultClientShare, ""}} {
		f := newFakeQueue(t, budget)
		f.h.ClientShare = c.share
		admitted := 0
		for range 2 * places {
			if _, _, err := f.h.AdmitClient(context.Background(), c.client); err == nil {
				admitted++
			}
		}
		if admitted != places {
			t.Fatalf("%s: admitted %d, want every place (%d)", c.name, admitted, places)
		}
	}
}

// Issue 34: a returning browser's sign-in (a ctx marked Returning) is
// admitted while the queue is at its budget, in a lane of its own, bounded
// by its own places (each counted returningShare times: that many of the
// other lane's may run before each); an account holds one place of it at
// a time; while the lane holds places the other lane's wait counts them
// and the lane's share; every count goes back when its request is done.
func TestTheReturningLaneIsAdmittedPastAFullQueue(t *testing.T) {
	const budget = 2 * time.Second
	f := newFakeQueue(t, budget)
	f.h.ClientShare = 0
	places := int(budget * time.Duration(hashSlots) / hashTimePrior)
	held := f.admitEach(places, "place", func(i int) (context.Context, string) {
		return context.Background(), fmt.Sprintf("203.0.113.%d", i)
	})
	if err := f.h.Check("198.51.100.9", ""); !errors.Is(err, ErrBusy) {
		t.Fatalf("Check with the queue full: %v, want busy", err)
	}
	if err := f.h.Check("198.51.100.9", "account-0"); err != nil {
		t.Fatalf("Check in the returning lane with the queue full: %v", err)
	}
	lanePlaces := int(budget * time.Duration(hashSlots) / (returningShare * hashTimePrior))
	var mine []func()
	for i := range lanePlaces {
		ctx, release, err := f.h.AdmitClient(Returning(context.Background(), fmt.Sprintf("account-%d", i)), "198.51.100.9")
		if err != nil {
			t.Fatalf("returning place %d of %d: %v", i+1, lanePlaces, err)
		}
		if r, _ := ctx.Value(reservationKey{}).(*reservation); r == nil || r.lane != laneReturning {
			t.Fatalf("returning place %d reserved %+v, want the returning lane", i+1, r)
		}
		mine = append(mine, release)
	}
	if _, _, err := f.h.AdmitClient(Returning(context.Background(), "account-next"), "198.51.100.9"); !errors.Is(err, ErrBusy) {
		t.Fatalf("the returning lane past its own budget: %v, want busy", err)
	}
	f.q.mu.Lock()
	pending, lane := f.q.pending, f.q.returning
	other := f.q.wait(f.clock.Now(), laneOther)
	f.q.mu.Unlock()
	if pending != places+lanePlaces || lane != lanePlaces {
		t.Fatalf("%d places counted, %d returning; want %d and %d", pending, lane, places+lanePlaces, lanePlaces)
	}
	if want := time.Duration((pending+1)*returningShare) * hashTimePrior / time.Duration(hashSlots*(returningShare-1)); other != want {
		t.Fatalf("the other lane's wait with the returning lane in use: %v, want %v", other, want)
	}
	// An account holding its place in the lane: its next sign-in waits
	// with the others, here refused with the queue full; once its place
	// is given back it has the lane again.
	mine[0]()
	mine = mine[1:]
	_, again, err := f.h.AdmitClient(Returning(context.Background(), "account-1"), "198.51.100.9")
	if !errors.Is(err, ErrBusy) {
		again()
		t.Fatalf("a second returning sign-in of an account in the lane: %v, want busy (the other lane, full)", err)
	}
	if err := f.h.Check("198.51.100.9", "account-0"); err != nil {
		t.Fatalf("an account whose lane place was given back: %v", err)
	}
	for _, release := range append(held, mine...) {
		release()
	}
	f.q.mu.Lock()
	defer f.q.mu.Unlock()
	if f.q.pending != 0 || f.q.returning != 0 || len(f.q.accounts) != 0 {
		t.Fatalf("after every release: %d places, %d returning, accounts %v", f.q.pending, f.q.returning, f.q.accounts)
	}
}

// A returning browser whose hash the lane cannot take within the budget
// (its wait counted at its most, returningShare hashes for each of its
// own) waits with the others instead of being refused: a busy machine's
// bench refused returning sign-ins, 8 at once with the other lane empty,
// that the other lane would have admitted. So returning browsers are
// admitted as long as a new browser would be, the lane's places first.
func TestAReturningBrowserTheLaneCannotTakeWaitsWithTheOthers(t *testing.T) {
	const budget = 2 * time.Second
	f := newFakeQueue(t, budget)
	f.h.ClientShare = 0
	lanePlaces := int(budget * time.Duration(hashSlots) / (returningShare * hashTimePrior))
	// In the other lane, while the returning lane holds places, a place
	// counts returningShare ÷ (returningShare - 1) hashes.
	allPlaces := int(budget * time.Duration(hashSlots*(returningShare-1)) / (returningShare * hashTimePrior))
	var held []func()
	defer func() {
		for _, release := range held {
			release()
		}
	}()
	for i := 0; ; i++ {
		ctx, release, err := f.h.AdmitClient(Returning(context.Background(), fmt.Sprintf("account-%d", i)), "")
		if errors.Is(err, ErrBusy) {
			if i != allPlaces {
				t.Fatalf("returning browsers refused after %d admitted, want %d (%d in their lane)", i, allPlaces, lanePlaces)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, release)
		want := laneReturning
		if i >= lanePlaces {
			want = laneOther
		}
		if r, _ := ctx.Value(reservationKey{}).(*reservation); r == nil || r.lane != want {
			t.Fatalf("returning browser %d reserved %+v, want the %s lane", i+1, r, laneNames[want])
		}
	}
	if err := f.h.Check("198.51.100.9", ""); !errors.Is(err, ErrBusy) {
		t.Fatalf("a new browser where returning ones are refused: %v, want busy", err)
	}
	f.q.mu.Lock()
	defer f.q.mu.Unlock()
	if f.q.returning != lanePlaces || len(f.q.accounts) != lanePlaces || f.q.pending != allPlaces {
		t.Fatalf("%d places, %d returning, %d accounts; want %d, %d, %d", f.q.pending, f.q.returning,
			len(f.q.accounts), allPlaces, lanePlaces, lanePlaces)
	}
}

// A returning address still holds at most its share of the places.
func TestTheReturningLaneKeepsTheAddressShare(t *testing.T) {
	const budget = 2 * time.Second
	f := newFakeQueue(t, budget)
	places := int(budget * time.Duration(hashSlots) / hashTimePrior)
	share := max(1, places/DefaultClientShare)
	admitted := 0
	for i := range 2 * places {
		if _, _, err := f.h.AdmitClient(Returning(context.Background(), fmt.Sprintf("account-%d", i)), "203.0.113.7"); err == nil {
			admitted++
		}
	}
	if admitted != share {
		t.Fatalf("one returning address admitted %d times, want its share %d", admitted, share)
	}
}

// The hashers take the returning lane's hashes first, but while both
// lanes wait, at most one in returningShare; with the other lane empty,
// the returning lane's one after another.
func TestHashersTakeTheReturningLaneFirst(t *testing.T) {
	var jobs [lanes]chan func()
	for l := range jobs {
		jobs[l] = make(chan func(), 8)
	}
	var order []string
	add := func(l lane, n int) {
		for range n {
			jobs[l] <- func() { order = append(order, laneNames[l]) }
		}
	}
	add(laneOther, returningShare)
	add(laneReturning, 4)
	owed := 0
	for range returningShare + 4 {
		var job func()
		job, owed = nextJob(jobs, owed)
		job()
	}
	want := []string{"returning"}
	for range returningShare - 1 {
		want = append(want, "other")
	}
	want = append(want, "returning", "other", "returning", "returning")
	if !slices.Equal(order, want) {
		t.Fatalf("hashers ran %v, want %v", order, want)
	}
}

// A hash of a returning reservation waits in the returning lane, and a
// second hash of the same request in the other: with every hasher busy,
// the test takes each from there, as the next free hasher would.
func TestAReturningHashWaitsInItsLane(t *testing.T) {
	restore := hashTime(t, hashTimePrior)
	defer restore()
	h := NewHasher(Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	h.ClientShare = 0
	release := occupyHashers(t)
	defer release()
	ctx, done, err := h.AdmitClient(Returning(context.Background(), "account"), "198.51.100.9")
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	hashed := make(chan error, 1)
	go func() {
		_, err := h.Hash(ctx, "returning")
		hashed <- err
	}()
	// runFrom runs, as a hasher would, the hash waiting in lane want.
	runFrom := func(what string, want lane) {
		t.Helper()
		select {
		case job := <-hashJobs[want]:
			job()
		case <-hashJobs[1-want]:
			t.Fatalf("%s waited in the %s lane, want the %s", what, laneNames[1-want], laneNames[want])
		case <-time.After(time.Minute): // a hang bound
			t.Fatalf("%s was never sent", what)
		}
		if err := <-hashed; err != nil {
			t.Fatal(err)
		}
	}
	runFrom("a returning browser's hash", laneReturning)
	// A second hash of the same request (a re-hash) waits with the others.
	go func() {
		_, err := h.Hash(ctx, "rehash")
		hashed <- err
	}()
	runFrom("a re-hash", laneOther)
	// Counted out of the lane it was counted in.
	done()
	waitPending(t, 0)
	queue.mu.Lock()
	defer queue.mu.Unlock()
	if queue.returning != 0 || len(queue.accounts) != 0 {
		t.Fatalf("after the hash: %d returning, accounts %v", queue.returning, queue.accounts)
	}
}
