package console

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// TestGrowth is `make bench`'s growth section (issue 34): at each size of
// GUICHET_BENCH_GROWTH (accounts; default 1000,100000,1000000) it generates
// that many accounts over the five brands, two policies each (one linked),
// three audit rows each over 24 months, then prints the cost of a find (the
// look-up every sign-in starts with), a console search, an audit export of
// a day and a retention purge. A cost that grows with the size shows as a
// slope between the lines. GUICHET_BENCH_POSTGRES=1 runs it on PostgreSQL.
//
//	GUICHET_BENCH=1 go test -run TestGrowth -v -timeout 60m ./internal/console/
func TestGrowth(t *testing.T) {
	testenv.Bench(t)
	sizes := []int{1000, 100000, 1000000}
	if v := os.Getenv("GUICHET_BENCH_GROWTH"); v != "" {
		sizes = sizes[:0]
		for f := range strings.SplitSeq(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 100 {
				t.Fatalf("GUICHET_BENCH_GROWTH: %q is not a size of 100 or more", f)
			}
			sizes = append(sizes, n)
		}
	}
	postgres := os.Getenv("GUICHET_BENCH_POSTGRES") != ""
	for _, n := range sizes {
		db := storetest.Open(t)
		if postgres {
			db = storetest.OpenPostgres(t)
		}
		now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
		start := time.Now()
		generate(t, db, n, now)
		built := time.Since(start)
		s := &Service{DB: db}
		rng := rand.New(rand.NewPCG(uint64(n), 34))

		find := measure(1000, func(int) {
			i := rng.IntN(n)
			if _, err := account.ByEmail(t.Context(), db, growthBrands[i%5], "user"+strconv.Itoa(i)+"@example.com"); err != nil {
				t.Fatal(err)
			}
		})
		queries := []string{"ma", "user1", "tremblay", "lea g", "4165550123", "P00000042"}
		every := Caller{Staff: staff.Principal{Role: staff.RoleSupervisor}}
		one := Caller{Staff: staff.Principal{Role: staff.RoleAgent, Brands: []string{"intact"}}}
		found := 0
		byQuery := map[string]durations{}
		search := measure(300, func(i int) {
			defer func(start time.Time) {
				byQuery[queries[i%len(queries)]] = append(byQuery[queries[i%len(queries)]], time.Since(start))
			}(time.Now())
			c := every
			if i%2 == 1 {
				c = one
			}
			list, err := s.Search(t.Context(), c, queries[i%len(queries)], "")
			if err != nil {
				t.Fatal(err)
			}
			found += len(list)
		})
		var rows int
		var heap uint64
		export := measure(3, func(i int) {
			from := now.AddDate(0, 0, -30*(i+1))
			cur, err := audit.Between(t.Context(), db, from, from.Add(24*time.Hour), nil)
			if err != nil {
				t.Fatal(err)
			}
			for cur.Next() {
				if _, err := cur.Event(); err != nil {
					t.Fatal(err)
				}
				if rows++; rows%1000 == 0 {
					var m runtime.MemStats
					runtime.ReadMemStats(&m)
					heap = max(heap, m.HeapInuse)
				}
			}
			if err := cur.Close(); err != nil {
				t.Fatal(err)
			}
		})
		// The purge of one month's rows: what the hourly job finds after a
		// month without running (a month of a 24-month window).
		var purged int64
		purge := measure(1, func(int) {
			var err error
			if purged, err = audit.PurgeBefore(t.Context(), db, now.AddDate(0, -23, 0)); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%s %8d accounts (built in %s): find p50 %s p99 %s; console search p50 %s p99 %s (%.1f found a search); "+
			"audit export of a day %s (%d rows a day, heap ≤ %d MB); purge of a month %s (%d rows)",
			db.Dialect, n, built.Round(time.Second), find.p(50), find.p(99), search.p(50), search.p(99), float64(found)/300,
			export.p(50), rows/3, heap>>20, purge.p(50), purged)
		for _, q := range queries {
			t.Logf("  search %q p50 %s p99 %s", q, byQuery[q].p(50), byQuery[q].p(99))
		}
	}
}

var growthBrands = []string{"belair", "bna", "intact", "scotia", "servus"}

// durations are measured calls' times.
type durations []time.Duration

func (d durations) p(q int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*q/100)].Round(10 * time.Microsecond)
}

func measure(n int, call func(i int)) durations {
	out := make(durations, n)
	for i := range n {
		start := time.Now()
		call(i)
		out[i] = time.Since(start)
	}
	return out
}

// generate writes n accounts (brand i mod 5; a few first and last names, so
// that a name prefix matches many), 2n policies numbered P%08d (the even
// ones linked to account i/2) and 3n audit rows evenly over the 24 months
// before now, in time order as sign-ins write them, in the database's own
// loops (nothing generated is committed).
func generate(t *testing.T, db *store.DB, n int, now time.Time) {
	t.Helper()
	// rows is INSERT … SELECT cols over i from 0 to m-1, in the database's
	// own loop.
	rows := func(insert, cols string, m int, where string) string {
		if db.Dialect == store.Postgres {
			return fmt.Sprintf("%s SELECT %s FROM generate_series(0, %d) AS s(i) %s", insert, cols, m-1, where)
		}
		return fmt.Sprintf("WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < %d) %s SELECT %s FROM s %s",
			m, insert, cols, where)
	}
	padded := "printf('%08d', i)"
	if db.Dialect == store.Postgres {
		padded = "lpad(i::text, 8, '0')"
	}
	pick := func(expr string, values ...string) string {
		var b strings.Builder
		b.WriteString("CASE " + expr)
		for i, v := range values {
			fmt.Fprintf(&b, " WHEN %d THEN '%s'", i, v)
		}
		return b.String() + " END"
	}
	brandOf := pick("i % 5", growthBrands...)
	first := pick("(i / 5) % 8", "Alex", "Marie", "Léa", "Sam", "Mathieu", "Chloé", "Jordan", "Nadia")
	last := pick("(i / 40) % 10", "Tremblay", "Gagnon", "Roy", "Côté", "Bouchard", "Martin", "Lee", "Smith", "Gauthier", "Morin")
	oldest := now.AddDate(-2, 0, 0)
	span := now.Sub(oldest).Milliseconds()
	for _, q := range []string{
		rows("INSERT INTO accounts (id, brand, email, email_normalized, first_name, last_name, phone, created_at, updated_at)",
			"'g' || i, "+brandOf+", 'user' || i || '@example.com', 'user' || i || '@example.com', "+first+", "+last+
				", '4' || "+padded+" || '0', 0, 0", n, ""),
		rows("INSERT INTO policies (id, brand, number, kind, province, created_at)",
			"'p' || i, "+brandOf+", 'P' || "+padded+", 'home', 'QC', 0", 2*n, ""),
		rows("INSERT INTO account_policies (account_id, policy_id, role)", "'g' || (i / 2), 'p' || i, 'holder'", 2*n, "WHERE i % 2 = 0"),
		rows("INSERT INTO audit_events (at, brand, account_id, ip, event, outcome)",
			fmt.Sprintf("%d + CAST(i AS BIGINT) * %d, ", oldest.UnixMilli(), span/int64(3*n))+brandOf+
				", 'g' || (i / 3), '203.0.113.9', 'login.authentication', 'ok'", 3*n, ""),
	} {
		if _, err := db.Exec(t.Context(), q); err != nil {
			t.Fatalf("generating %d accounts: %v\n%s", n, err, q)
		}
	}
	// PostgreSQL plans from statistics its autovacuum gathers within a
	// minute of such a load; gather them now, as production has them.
	// SQLite keeps none unless told (Guichet never does): its plans are
	// measured as production gets them.
	if db.Dialect == store.Postgres {
		if _, err := db.Exec(t.Context(), "ANALYZE"); err != nil {
			t.Fatal(err)
		}
	}
}
