package account

import (
	"context"
	"errors"
	"runtime"
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
		select {
		case hashJobs <- func() { <-hold }:
		case <-time.After(5 * time.Second):
			t.Fatal("a hasher did not take a job")
		}
	}
	return func() { close(hold) }
}

func TestHashingQueuesForAHasher(t *testing.T) {
	startHashers() // GOMAXPROCS is now what the process started with + hashSlots
	if want := min(runtime.NumCPU(), max(1, runtime.GOMAXPROCS(0)-hashSlots)); HashSlots() != want {
		t.Fatalf("%d hashers, want min(GOMAXPROCS at start, cores) = %d", HashSlots(), want)
	}
	h := NewHasher(Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	release := occupyHashers(t)
	done := make(chan error, 1)
	go func() {
		_, err := h.Hash(context.Background(), "queued")
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a hash ran with every hasher busy (err %v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Hash(ctx, "gives up"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait for a hasher returned %v", err)
	}
	release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the queued hash did not run once a hasher was free")
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
	// Work that needs a P of its own runs at once.
	ran := make(chan struct{})
	go func() {
		deadline := time.Now().Add(time.Millisecond)
		for time.Now().Before(deadline) {
		}
		close(ran)
	}()
	select {
	case <-ran:
	case <-time.After(2 * time.Second):
		t.Fatal("a goroutine did not run while the hashers were busy")
	}
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
