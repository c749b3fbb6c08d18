package account

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

func TestHashingQueuesForASlot(t *testing.T) {
	if want := min(runtime.GOMAXPROCS(0), runtime.NumCPU()); cap(hashSlots) != want || HashSlots() != want {
		t.Fatalf("%d hash slots, want min(GOMAXPROCS, cores) = %d", cap(hashSlots), want)
	}
	h := NewHasher(Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	// Take every slot, as that many hashes in progress would.
	for range cap(hashSlots) {
		hashSlots <- struct{}{}
	}
	release := func() { <-hashSlots }
	done := make(chan error, 1)
	go func() {
		_, err := h.Hash(context.Background(), "queued")
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a hash ran with no free slot (err %v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Hash(ctx, "gives up"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait for a slot returned %v", err)
	}
	release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the queued hash did not run once a slot was free")
	}
	for range cap(hashSlots) - 1 {
		release()
	}
}
