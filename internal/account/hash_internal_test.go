package account

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// occupyHashers gives every hasher a job that waits until release is called,
// as that many hashes in progress would.
func occupyHashers(t *testing.T) (release func()) {
	t.Helper()
	startHashers()
	hold := make(chan struct{})
	for range hashSlots {
		hashJobs <- func() { <-hold } // a hasher takes it
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
	hashJobs <- func() {
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
	if _, err := compute(context.Background(), []byte("x"), []byte("somesalt"), Params{Memory: 64, Time: 0, Threads: 1, KeyLen: 32}); err == nil {
		t.Fatal("argon2id with 0 passes gave no error")
	}
	for range 2 * hashSlots { // every hasher still answers
		if _, err := compute(context.Background(), []byte("x"), []byte("somesalt"), Params{Memory: 64, Time: 1, Threads: 1, KeyLen: 32}); err != nil {
			t.Fatal(err)
		}
	}
}

// hashTime sets the queue's estimate of one hash for the test; restore
// (called at the test's end at the latest) waits for the test's jobs to end
// and puts the estimate back.
func hashTime(t *testing.T, d time.Duration) (restore func()) {
	t.Helper()
	// A hash an earlier test gave up on may still be running.
	waitPending(t, 0)
	queue.mu.Lock()
	prev := queue.mean
	queue.mean = d
	queue.mu.Unlock()
	var once sync.Once
	restore = func() {
		once.Do(func() {
			waitPending(t, 0)
			queue.mu.Lock()
			queue.mean = prev
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
			if err := submit(context.Background(), func() { <-hold }); err != nil {
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
	go func() { done <- submit(ctx, func() { t.Error("a given-up job ran") }) }()
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
	for _, c := range []struct{ took, mean time.Duration }{
		{20 * time.Millisecond, 90 * time.Millisecond},
		{90 * time.Millisecond, 90 * time.Millisecond},
		{250 * time.Millisecond, 110 * time.Millisecond},
	} {
		q.admit(0)
		q.done(c.took)
		if q.mean != c.mean || q.pending != 0 {
			t.Fatalf("after a hash of %v: mean %v, pending %d; want %v, 0", c.took, q.mean, q.pending, c.mean)
		}
	}
}
