package fanout_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"guichet/internal/fanout"
	"guichet/internal/fanout/fanouttest"
	"guichet/internal/store"
	"guichet/internal/testenv"
)

// TestNotifyBench (GUICHET_BENCH=1, not CI) measures, on the PostgreSQL of
// GUICHET_TEST_DATABASE_URL: topics a second through one Notifier (its
// batches) to N listening instances; bare pg_notify statements a second
// from 1 and 4 concurrent senders (one transaction each: does the
// notification queue's lock, taken at each commit, cap them?); and the
// latency of one cross-instance wake-up, p50/p99. docs/benchmarks.md has
// the figures.
func TestNotifyBench(t *testing.T) {
	testenv.Bench(t)
	db, url := fanouttest.OpenPostgres(t)
	sender := fanouttest.Start(t, db, url, fanout.Options{})
	const listeners = 4
	var got [listeners]atomic.Int64
	lat := make(chan string, 1)
	for i := range listeners {
		n := fanouttest.Start(t, fanouttest.Pool(t, url), url, fanout.Options{})
		n.Listen(func(topic string) {
			got[i].Add(1)
			if i == 0 && topic[0] == 'l' {
				lat <- topic
			}
		})
	}
	all := func(want int64) bool {
		for i := range listeners {
			if got[i].Load() < want {
				return false
			}
		}
		return true
	}
	reset := func() {
		for i := range listeners {
			got[i].Store(0)
		}
	}

	// Throughput through the Notifier (batched, deduplicated).
	const topics = 20000
	start := time.Now()
	for i := range topics {
		sender.Notify(context.Background(), fmt.Sprintf("t%d", i))
	}
	for !all(topics) {
		time.Sleep(time.Millisecond)
	}
	el := time.Since(start)
	t.Logf("Notifier: %d topics to %d listeners in %v: %.0f topics/s (%d delivered)", topics, listeners, el.Round(time.Millisecond),
		float64(topics)/el.Seconds(), topics*listeners)

	// Bare pg_notify, one transaction each, from 1 and 4 senders; then the
	// same statements without a notification: what the round trips alone
	// allow, beside which the notifying commits are measured.
	const each = 2000
	for _, senders := range []int{1, 4} {
		reset()
		begin := time.Now()
		statements(t, db, senders, each, "SELECT pg_notify(?, ?)", sender.Channel())
		for !all(int64(senders * each)) {
			time.Sleep(time.Millisecond)
		}
		el := time.Since(begin)
		t.Logf("bare pg_notify, %d sender(s), one commit each: %d in %v: %.0f notifies/s", senders, senders*each,
			el.Round(time.Millisecond), float64(senders*each)/el.Seconds())
	}
	for _, senders := range []int{1, 4} {
		el := statements(t, db, senders, each, "SELECT length(?), ?", sender.Channel())
		t.Logf("control (same statement shape, no pg_notify), %d sender(s): %.0f statements/s", senders, float64(senders*each)/el.Seconds())
	}

	// Latency of one wake-up, sender's Notify to another instance's listener.
	const samples = 1000
	var ds []time.Duration
	for i := range samples {
		topic := fmt.Sprintf("l%d", i)
		start := time.Now()
		sender.Notify(context.Background(), topic)
		for got := <-lat; got != topic; got = <-lat {
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	t.Logf("cross-instance wake-up latency over %d: p50 %v, p99 %v, max %v", samples, ds[samples/2], ds[samples*99/100], ds[samples-1])
}

// statements runs query (channel, a payload) each times from senders
// goroutines at once and returns how long they took.
func statements(t *testing.T, db *store.DB, senders, each int, query, channel string) time.Duration {
	start := time.Now()
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range each {
				if _, err := db.Exec(context.Background(), query, channel, fmt.Sprintf("b%d-%d", s, i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}
