package throttle_test

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
	"guichet/internal/throttle"
)

func TestAllow(t *testing.T) {
	rule := throttle.Rule{Scope: "test", Limit: 3, Window: time.Minute}
	// Start at a window boundary so the steps below are exact.
	start := time.Unix(1_800_000_000-1_800_000_000%60, 0)
	type step struct {
		at      time.Duration // since start
		subject string
		want    bool
	}
	cases := []struct {
		name  string
		rule  throttle.Rule
		steps []step
	}{
		{"limit within a window", rule, []step{{0, "a", true}, {time.Second, "a", true}, {2 * time.Second, "a", true}, {3 * time.Second, "a", false}}},
		{"subjects are separate", rule, []step{{0, "a", true}, {0, "a", true}, {0, "a", true}, {0, "b", true}, {0, "a", false}}},
		{"the previous window still weighs at its start", rule, []step{
			{50 * time.Second, "a", true}, {51 * time.Second, "a", true}, {52 * time.Second, "a", true},
			{61 * time.Second, "a", false}, // 3 * 59/60 + 1 > 3
		}},
		{"and fades out", rule, []step{
			{50 * time.Second, "a", true}, {51 * time.Second, "a", true}, {52 * time.Second, "a", true},
			{100 * time.Second, "a", true}, // 3 * 20/60 + 1 = 2
			{101 * time.Second, "a", true},
			{102 * time.Second, "a", false},
		}},
		{"two windows later all is forgotten", rule, []step{
			{0, "a", true}, {0, "a", true}, {0, "a", true}, {0, "a", false}, {120 * time.Second, "a", true},
		}},
		{"denied attempts count", throttle.Rule{Scope: "t2", Limit: 1, Window: time.Minute}, []step{
			{0, "a", true}, {30 * time.Second, "a", false}, {30 * time.Second, "a", false},
			{60 * time.Second, "a", false}, // 2 * 60/60 + 1 > 1
		}},
		{"a zero rule allows everything", throttle.Rule{}, []step{{0, "a", true}, {0, "a", true}, {0, "a", true}, {0, "a", true}}},
		{"a long subject is hashed, not cut", throttle.Rule{Scope: "t3", Limit: 1, Window: time.Minute}, []step{
			{0, strings.Repeat("x", 200) + "1", true}, {0, strings.Repeat("x", 200) + "2", true}, {0, strings.Repeat("x", 200) + "1", false},
		}},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				now := start.Add(time.Duration(i) * time.Hour) // fresh counters per case
				clockAt := now
				l := throttle.New(db, func() time.Time { return clockAt })
				for n, s := range c.steps {
					clockAt = now.Add(s.at)
					got, err := l.Allow(t.Context(), c.rule, s.subject)
					if err != nil {
						t.Fatal(err)
					}
					if got != s.want {
						t.Fatalf("step %d (%v, %s): allowed %v, want %v", n+1, s.at, s.subject[:1], got, s.want)
					}
				}
			})
		}
	})
}

func TestAllowIsSharedAndExactUnderConcurrency(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		now := time.Unix(1_800_000_000-1_800_000_000%60, 0)
		// Two limiters on one database stand for two instances.
		a := throttle.New(db, func() time.Time { return now })
		b := throttle.New(db, func() time.Time { return now })
		rule := throttle.Rule{Scope: "shared", Limit: 10, Window: time.Minute}
		var allowed atomic.Int32
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l := a
				if i%2 == 1 {
					l = b
				}
				ok, err := l.Allow(t.Context(), rule, "198.51.100.1")
				if err != nil {
					t.Error(err)
				}
				if ok {
					allowed.Add(1)
				}
			}()
		}
		wg.Wait()
		if allowed.Load() != 10 {
			t.Fatalf("%d of 30 concurrent hits allowed, want exactly 10", allowed.Load())
		}
	})
}

func TestPrune(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		now := time.Unix(1_800_000_000, 0)
		l := throttle.New(db, func() time.Time { return now })
		for _, s := range []string{"a", "b"} {
			if _, err := l.Allow(t.Context(), throttle.Rule{Scope: "p", Limit: 1, Window: time.Minute}, s); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := l.Prune(t.Context()); err != nil || n != 0 {
			t.Fatalf("Prune of live counters = %d, %v", n, err)
		}
		now = now.Add(2 * time.Minute)
		if n, err := l.Prune(t.Context()); err != nil || n != 2 {
			t.Fatalf("Prune of dead counters = %d, %v", n, err)
		}
	})
}

func TestClientKey(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.9":          "203.0.113.9",
		"::ffff:203.0.113.9":   "203.0.113.9",
		"2001:db8:1:2:3:4:5:6": "2001:db8:1:2::/64",
		"2001:db8:1:2::1":      "2001:db8:1:2::/64",
		"2001:db8:1:3::1":      "2001:db8:1:3::/64",
		"fe80::1%eth0":         "fe80::/64",
		"not an address":       "not an address",
		"":                     "",
	} {
		if got := throttle.ClientKey(in); got != want {
			t.Errorf("ClientKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// A refusal tells how long to wait (the 429's Retry-After): a hit after
// exactly that wait is allowed, one a millisecond earlier is not.
func TestCheckTellsTheWait(t *testing.T) {
	rule := throttle.Rule{Scope: "wait", Limit: 3, Window: time.Minute}
	start := time.Unix(1_800_000_000-1_800_000_000%60, 0)
	cases := []struct {
		name    string
		allowed []time.Duration // hits within the limit, since start
		denied  time.Duration   // the refused hit
		want    time.Duration
	}{
		// 4 hits in this window: the next one fits when 4 * (60-t)/60 + 1 <= 3, t = 30 s of the next window.
		{"over in this window", []time.Duration{0, time.Second, 2 * time.Second}, 3 * time.Second, 87 * time.Second},
		// The previous window's 3 hits weigh: 2 + 3 * (60-t)/60 <= 3 at t = 40 s of this one.
		{"the previous window fades", []time.Duration{50 * time.Second, 51 * time.Second, 52 * time.Second}, 61 * time.Second, 39 * time.Second},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				base := start.Add(time.Duration(i) * time.Hour)
				var at time.Time
				l := throttle.New(db, func() time.Time { return at })
				hit := func(since time.Duration, subject string) time.Duration {
					t.Helper()
					at = base.Add(since)
					wait, err := l.Check(t.Context(), rule, subject)
					if err != nil {
						t.Fatal(err)
					}
					return wait
				}
				for _, subject := range []string{"early", "on time"} {
					for _, d := range c.allowed {
						if wait := hit(d, subject); wait != 0 {
							t.Fatalf("hit at %v refused (%v)", d, wait)
						}
					}
					if wait := hit(c.denied, subject); wait != c.want {
						t.Fatalf("wait %v, want %v", wait, c.want)
					}
				}
				if wait := hit(c.denied+c.want-time.Millisecond, "early"); wait == 0 {
					t.Fatal("allowed before the wait was over")
				}
				if wait := hit(c.denied+c.want, "on time"); wait != 0 {
					t.Fatalf("refused after the wait (%v more)", wait)
				}
			})
		}
	})
}

// Every refusal counts once under its rule's scope, on every registry the
// refusals are registered with (issue 33); an allowed hit counts nothing.
func TestRefusalsAreCounted(t *testing.T) {
	reg := prometheus.NewRegistry()
	throttle.Register(reg)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		rule := throttle.Rule{Scope: "test.metrics." + db.Dialect.String(), Limit: 2, Window: time.Minute}
		at := time.Unix(1_800_000_000, 0)
		l := throttle.New(db, func() time.Time { return at })
		for i, want := range []bool{true, true, false, false} {
			if ok, err := l.Allow(t.Context(), rule, "client"); err != nil || ok != want {
				t.Fatalf("hit %d: %v %v, want %v", i+1, ok, err, want)
			}
		}
		if got := testenv.Metric(t, reg, "guichet_throttle_refused_total", "scope", rule.Scope); got != 2 {
			t.Fatalf("refusals counted: %v, want 2", got)
		}
	})
}
