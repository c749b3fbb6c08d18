package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/sso"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// The sign-in benchmark of issue 5 (make bench): sign-ins (find +
// authentication + the SSO form post with the login ticket) over HTTP on
// loopback against the server `guichet serve` runs (every middleware, JSON
// access logs written to /dev/null, the background workers, production
// limits and hash parameters), against the bound set by argon2id hashes per
// second measured in the same run. Targets: throughput at least 90 % of the
// bound, and p99 latency at half the bound's load at most 3 times one hash.
//
//	GUICHET_BENCH=1 go test -run TestSignInThroughput -v ./internal/app/
//
// Each sign-in comes from an address of its own (X-Forwarded-For, the
// loopback client being the trusted proxy, as behind the load balancer), so
// the per-address limits count every attempt without refusing one.
//
// GUICHET_BENCH_SECONDS sets each phase's length (default 20: at about 40
// sign-ins per second, p99 is then the 8th slowest of 800, not the 4th of
// 400, which a single pause of the machine could set);
// GUICHET_BENCH_CLIENTS the concurrent clients of the throughput phase
// (default 4 x GOMAXPROCS); GUICHET_BENCH_POSTGRES=1 runs on the database of
// GUICHET_TEST_DATABASE_URL instead of SQLite.
//
// The visitors return with the browser they signed in with before (each
// account keeps the device cookie its last form post set), as most
// sign-ins do: a new browser also costs a known-devices row and a
// new-device alert through the outbox (spec: new-device alerts).
// GUICHET_BENCH_NEW_BROWSERS=1 sends every sign-in as a new browser
// instead (no device cookie kept).

const benchPassword = "Guichet-Bench-2026!"

// benchTarget is a running server to sign in to.
type benchTarget struct {
	base, host, apiKey string
	emails             []string
	ips                atomic.Uint32
	db                 *store.DB
	// devices, unless GUICHET_BENCH_NEW_BROWSERS is set, holds each
	// email's cookies (a Cookie header: the device id and the returning
	// browsers' pass) from its last form post.
	devices *sync.Map
}

// benchConfig is how the benchmarks run the server. Requests come from
// loopback with X-Forwarded-For, as through a load balancer: the one line
// to change when the proxy setting changes.
func benchConfig(t testing.TB) Config {
	return Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), BrandsDir: "../../config/brands", Mail: "log",
		TrustedProxies: "127.0.0.1", AdminAddr: "127.0.0.1:0"}
}

// benchServer starts the application as `guichet serve` does (SQLite in a
// temporary directory, or a fresh PostgreSQL schema) with 32 accounts.
func benchServer(t testing.TB, postgres bool) *benchTarget {
	t.Helper()
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(devNull, &slog.HandlerOptions{Level: slog.LevelInfo})))
	cfg := benchConfig(t)
	if postgres {
		cfg.DatabaseURL = storetest.PostgresURL(t)
	}
	ctx, stop := context.WithCancel(context.Background())
	a, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr, served := goServe(ctx, a)
	t.Cleanup(func() {
		stop()
		<-served
		slog.SetDefault(prev)
		devNull.Close()
	})
	b, ok := a.Brands.ByID("belair")
	if !ok {
		t.Fatal("no belair brand")
	}
	target := &benchTarget{host: b.Hosts[0], apiKey: b.APIKey, db: a.DB}
	if os.Getenv("GUICHET_BENCH_NEW_BROWSERS") == "" {
		target.devices = new(sync.Map)
	}

	// Accounts to sign in as, one hash each (made in parallel).
	n := 32
	target.emails = make([]string, n)
	hasher := account.NewHasher(account.DefaultParams)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		target.emails[i] = fmt.Sprintf("bench%02d@example.com", i)
		wg.Go(func() {
			h, err := hasher.Hash(context.Background(), benchPassword)
			if err == nil {
				err = a.DB.InTx(context.Background(), func(tx *store.Tx) error {
					_, err := account.Insert(context.Background(), tx,
						account.Account{Brand: "belair", Email: target.emails[i]}, h, time.Now())
					return err
				})
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	select {
	case s := <-addr:
		target.base = "http://" + s
	case err := <-served:
		t.Fatal(err)
	}
	return target
}

// post sends one request of a sign-in as a browser on the brand's host would.
func (b *benchTarget) post(client *http.Client, path, contentType, body, ip string) (*http.Response, error) {
	return b.postCookie(client, path, contentType, body, ip, "")
}

// postCookie is post with a Cookie header ("" for none).
func (b *benchTarget) postCookie(client *http.Client, path, contentType, body, ip, cookie string) (*http.Response, error) {
	req, err := http.NewRequest("POST", b.base+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Host = b.host
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Forwarded-For", ip)
	if strings.HasPrefix(path, "/api/") {
		req.Header.Set("api-key", b.apiKey)
		req.Header.Set("province", "on")
		req.Header.Set("language", "en")
	} else {
		req.Header.Set("Origin", "https://"+b.host)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	return client.Do(req)
}

// nextIP is an address no request used yet.
func (b *benchTarget) nextIP() string {
	n := b.ips.Add(1)
	return fmt.Sprintf("10.%d.%d.%d", byte(n>>16), byte(n>>8), byte(n))
}

// find returns the account id of an email, asked from ip.
func (b *benchTarget) find(client *http.Client, email, ip string) (string, error) {
	return b.findCookie(client, email, ip, "")
}

// findCookie is find from a browser with cookies ("" for none).
func (b *benchTarget) findCookie(client *http.Client, email, ip, cookies string) (string, error) {
	res, err := b.postCookie(client, "/api/v1/accounts/find", "application/json", `{"email":"`+email+`"}`, ip, cookies)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var found struct{ ID, ErrorCode string }
	if err := json.NewDecoder(res.Body).Decode(&found); err != nil || res.StatusCode != 200 {
		return "", fmt.Errorf("find %s: %d %s %v", email, res.StatusCode, found.ErrorCode, err)
	}
	return found.ID, nil
}

// authenticate sends one authentication call from an address of its own
// and returns its status and the time it took.
func (b *benchTarget) authenticate(client *http.Client, id, password string) (int, time.Duration, error) {
	return b.authenticateFrom(client, id, password, b.nextIP())
}

// authenticateFrom is authenticate from the address ip.
func (b *benchTarget) authenticateFrom(client *http.Client, id, password, ip string) (int, time.Duration, error) {
	start := time.Now()
	res, err := b.post(client, "/api/v1/accounts/"+id+"/authentication", "application/json", `{"password":"`+password+`"}`, ip)
	if err != nil {
		return 0, 0, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, time.Since(start), nil
}

// signIn runs the three calls of one sign-in, from an address of its own;
// steps, when not nil, gets the time each call took.
func (b *benchTarget) signIn(client *http.Client, email string, steps *[3]time.Duration) error {
	ip := b.nextIP()
	var last time.Time
	lap := func(i int) {
		if steps != nil {
			now := time.Now()
			if i > 0 {
				steps[i-1] = now.Sub(last)
			}
			last = now
		}
	}
	// The browser's cookies go with every call, as a browser sends them.
	var cookies string
	if b.devices != nil {
		if v, ok := b.devices.Load(email); ok {
			cookies = v.(string)
		}
	}
	lap(0)
	id, err := b.findCookie(client, email, ip, cookies)
	if err != nil {
		return err
	}
	lap(1)
	res, err := b.postCookie(client, "/api/v1/accounts/"+id+"/authentication", "application/json",
		`{"password":"`+benchPassword+`"}`, ip, cookies)
	if err != nil {
		return err
	}
	var auth struct{ LoginTicket, ErrorCode string }
	err = json.NewDecoder(res.Body).Decode(&auth)
	res.Body.Close()
	if err != nil || res.StatusCode != 200 {
		retryAfter, _ := strconv.Atoi(res.Header.Get("Retry-After"))
		return &refused{status: res.StatusCode, code: auth.ErrorCode, retryAfter: retryAfter, err: err}
	}
	lap(2)
	form := url.Values{"login-form-type": {"pwd"}, "username": {email}, "password": {benchPassword}, "ticket": {auth.LoginTicket}}
	res, err = b.postCookie(client, "/pkmslogin.form", "application/x-www-form-urlencoded", form.Encode(), ip, cookies)
	if err != nil {
		return err
	}
	// The browser keeps its device id and its pass (the session cookie
	// is left out: each sign-in starts signed out).
	var kept []string
	for _, c := range res.Cookies() {
		switch c.Name {
		case sso.DeviceCookie, sso.DevDeviceCookie, account.PassCookie, account.DevPassCookie:
			kept = append(kept, c.Name+"="+c.Value)
		}
	}
	if b.devices != nil && len(kept) > 0 {
		b.devices.Store(email, strings.Join(kept, "; "))
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != sso.AccountPage {
		return fmt.Errorf("form post: %d to %s", res.StatusCode, res.Header.Get("Location"))
	}
	lap(3)
	return nil
}

// refused is an authentication call of a sign-in answered with an error.
type refused struct {
	status     int
	code       string
	retryAfter int
	err        error
}

func (r *refused) Error() string {
	return fmt.Sprintf("authentication: %d %s %v", r.status, r.code, r.err)
}

func benchClient(conns int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
		Timeout: time.Minute,
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// hashSlice keeps every hasher busy for d and returns how many hashes ended
// and the time they took (the last ones finish after d). Twice as many
// callers as hashers, so that a hasher finds the next hash waiting.
func hashSlice(h *account.Hasher, d time.Duration) (int64, time.Duration) {
	var done atomic.Int64
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for range 2 * account.HashSlots() {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				_, _ = h.Hash(context.Background(), benchPassword)
				done.Add(1)
			}
		})
	}
	wg.Wait()
	return done.Load(), time.Since(start)
}

// signInSlice runs clients signing in back to back for d, the same way.
func signInSlice(t *testing.T, client *http.Client, b *benchTarget, clients int, d time.Duration,
	failed *atomic.Int64) (int64, time.Duration) {
	var done atomic.Int64
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := c; time.Now().Before(deadline); i += clients {
				if err := b.signIn(client, b.emails[i%len(b.emails)], nil); err != nil {
					if failed.Add(1) == 1 {
						t.Error(err)
					}
					continue
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	return done.Load(), time.Since(start)
}

// oneHash is the median time of one hash with nothing else running.
func oneHash(h *account.Hasher, n int) []time.Duration {
	var out []time.Duration
	for range n {
		start := time.Now()
		_, _ = h.Hash(context.Background(), benchPassword)
		out = append(out, time.Since(start))
	}
	return out
}

// timed is one sign-in of a latency run: its latency from the arrival, and
// the time of each of its three calls.
type timed struct {
	latency time.Duration
	steps   [3]time.Duration
}

// latencyRun sends sign-ins at rate per second for d, open loop (a late
// answer does not delay the next arrival, so queueing shows), and returns
// the latencies measured from each arrival, sorted. Arrivals are evenly
// spaced (constant rate, as vegeta and wrk2 send), or Poisson when poisson
// is set.
func latencyRun(t *testing.T, client *http.Client, b *benchTarget, rate float64, d time.Duration,
	poisson bool, failed *atomic.Int64) ([]time.Duration, []timed) {
	rng := rand.New(rand.NewPCG(5, 2026))
	var mu sync.Mutex
	var runs []timed
	var wg sync.WaitGroup
	begin := time.Now()
	next := begin
	for i := 0; next.Sub(begin) < d; i++ {
		time.Sleep(time.Until(next))
		at := next
		wg.Go(func() {
			var r timed
			if err := b.signIn(client, b.emails[i%len(b.emails)], &r.steps); err != nil {
				if failed.Add(1) == 1 {
					t.Error(err)
				}
				return
			}
			r.latency = time.Since(at)
			mu.Lock()
			runs = append(runs, r)
			mu.Unlock()
		})
		gap := 1 / rate
		if poisson {
			gap = rng.ExpFloat64() / rate
		}
		next = next.Add(time.Duration(gap * float64(time.Second)))
	}
	wg.Wait()
	if len(runs) == 0 {
		t.Fatal("no sign-in completed in a latency phase")
	}
	slices.SortFunc(runs, func(a, b timed) int { return int(a.latency - b.latency) })
	latencies := make([]time.Duration, len(runs))
	for i, r := range runs {
		latencies[i] = r.latency
	}
	return latencies, runs
}

// processCPU is the user and system CPU time the process has used.
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func percentile(sorted []time.Duration, p int) time.Duration {
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func TestSignInThroughput(t *testing.T) {
	testenv.Bench(t)
	phase := time.Duration(envInt("GUICHET_BENCH_SECONDS", 20)) * time.Second
	clients := envInt("GUICHET_BENCH_CLIENTS", 4*runtime.GOMAXPROCS(0))
	postgres := os.Getenv("GUICHET_BENCH_POSTGRES") != ""
	dialect := store.SQLite
	if postgres {
		dialect = store.Postgres
	}
	b := benchServer(t, postgres)
	client := benchClient(64)
	hasher := account.NewHasher(account.DefaultParams)
	var failed atomic.Int64
	// Warm up: connections, the dummy hash, the page cache, and each
	// account's browser (its device cookie).
	for _, email := range b.emails {
		if err := b.signIn(client, email, nil); err != nil {
			t.Fatal(err)
		}
	}

	// The bound and the throughput, in alternating 2-second slices so that
	// a change of the machine's other load weighs on both alike.
	// The process's CPU time in each kind of slice tells what a sign-in
	// costs beyond its hash, whatever the machine's speed at the time.
	var hashes, signIns int64
	var hashTime, signInTime, hashCPU, signInCPU time.Duration
	singles := oneHash(hasher, 5)
	for range max(1, int(phase/(2*time.Second))) {
		cpu := processCPU()
		n, d := hashSlice(hasher, 2*time.Second)
		hashes, hashTime, hashCPU = hashes+n, hashTime+d, hashCPU+processCPU()-cpu
		cpu = processCPU()
		n, d = signInSlice(t, client, b, clients, 2*time.Second, &failed)
		signIns, signInTime, signInCPU = signIns+n, signInTime+d, signInCPU+processCPU()-cpu
	}
	perHash := hashCPU / time.Duration(max(1, hashes))
	perSignIn := signInCPU / time.Duration(max(1, signIns))
	bound := float64(hashes) / hashTime.Seconds()
	rate := float64(signIns) / signInTime.Seconds()

	// Latency at half the bound, against one hash on an idle process
	// (measured before and after).
	constant, slowest := latencyRun(t, client, b, bound/2, phase, false, &failed)
	singles = append(singles, oneHash(hasher, 5)...)
	poisson, _ := latencyRun(t, client, b, bound/2, phase, true, &failed)
	singles = append(singles, oneHash(hasher, 5)...)
	slices.Sort(singles)
	hash := singles[len(singles)/2]

	ratio := rate / bound
	p99 := percentile(constant, 99)
	latencyRatio := float64(p99) / float64(hash)
	round := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
	browsers := "returning browsers (device cookie kept)"
	if b.devices == nil {
		browsers = "new browsers (GUICHET_BENCH_NEW_BROWSERS: no device cookie, a new-device alert each)"
	}
	fmt.Printf("sign-in benchmark (%s, %d cores, GOMAXPROCS %d with the hashers' %d, %d clients, %v per measure, %s)\n",
		dialect, runtime.NumCPU(), runtime.GOMAXPROCS(0), account.HashSlots(), clients, phase, browsers)
	fmt.Printf("  argon2id bound:      %.1f hashes/s, %d at once; one hash %v (median of %d)\n", bound, account.HashSlots(), round(hash), len(singles))
	fmt.Printf("  sign-in throughput:  %.1f sign-ins/s = %.3f of the bound (target >= 0.90)\n", rate, ratio)
	fmt.Printf("  CPU time:            %v per hash, %v per sign-in (client included) = %.3f hashes\n",
		round(perHash), round(perSignIn), float64(perSignIn)/float64(perHash))
	fmt.Printf("  at %.1f sign-ins/s, constant rate: p50 %v, p90 %v, p99 %v = %.2f x one hash (target <= 3), max %v; %d sign-ins\n",
		bound/2, round(percentile(constant, 50)), round(percentile(constant, 90)), round(p99), latencyRatio, round(constant[len(constant)-1]), len(constant))
	fmt.Printf("  at %.1f sign-ins/s, Poisson (for information): p50 %v, p99 %v = %.2f x one hash; %d sign-ins\n",
		bound/2, round(percentile(poisson, 50)), round(percentile(poisson, 99)), float64(percentile(poisson, 99))/float64(hash), len(poisson))
	for _, r := range slowest[max(0, len(slowest)-3):] {
		fmt.Printf("  a slowest sign-in at constant rate: %v = find %v + authentication %v + form post %v\n",
			round(r.latency), round(r.steps[0]), round(r.steps[1]), round(r.steps[2]))
	}
	if failed.Load() > 0 {
		t.Errorf("%d sign-ins failed", failed.Load())
	}
	// Returning browsers were recognised: one known browser an account,
	// so no measured sign-in was a new one.
	if b.devices != nil {
		var known int
		if err := b.db.QueryRow(context.Background(), "SELECT COUNT(*) FROM known_devices").Scan(&known); err != nil {
			t.Fatal(err)
		} else if known != len(b.emails) {
			t.Errorf("%d known browsers for %d accounts: the returning browsers were not recognised", known, len(b.emails))
		}
	}
	if ratio < 0.90 {
		t.Errorf("throughput %.1f/s is %.1f%% of the bound %.1f/s, below 90%%", rate, 100*ratio, bound)
	}
	if latencyRatio > 3 {
		t.Errorf("p99 latency %v at half the bound is %.2f hashes, above 3", p99, latencyRatio)
	}
}

// BenchmarkSignIn reports sign-ins per second for the Go benchmark tools
// (one op = one complete sign-in, SQLite).
func BenchmarkSignIn(b *testing.B) {
	target := benchServer(b, false)
	client := benchClient(64)
	var n atomic.Int64
	b.SetParallelism(2)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			if err := target.signIn(client, target.emails[int(i)%len(target.emails)], nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "signins/s")
}

// TestSignInFlood is issue 11's load-shedding benchmark (make bench). Wrong
// sign-ins (the authentication call) from 1,000 concurrent clients, each
// request from an address of its own, in two phases:
//
//   - burst, the probe: 1,000 at once, and a visitor's sign-in (find,
//     authentication, form post) right behind them; shed, the visitor
//     submits again after Retry-After, as the SPA's message invites;
//   - sustained: each client sends its next one as soon as it has an
//     answer, for GUICHET_BENCH_FLOOD_SECONDS (default 10), while visitors
//     sign in again and again (GUICHET_BENCH_VISITOR_PAUSE on their page
//     in between, a second by default), trying
//     again at once when shed, from the browser they signed in with
//     before (its cookies: the device id and the returning browsers'
//     pass, which the flood's clients do not have); once with
//     the clients in this process, once with the same clients all behind
//     one address (issue 34: it holds only its share of the hashers'
//     places), once with them in a process of their own at nice 19
//     (TestFloodClients), closer to remote attackers.
//
// Targets (issue 34): the p99 of the admitted authentication calls, and
// the visitors' admitted sign-ins, under 2 s (the hash wait budget,
// account.DefaultWaitBudget, is below it: an admitted request expects to
// wait about the whole budget under a flood, and its own work comes on
// top); during a sustained flood, every visitor signed in within 5 s of
// the first try. The server holds each refusal of its first middleware a
// second (httpapi.DefaultShedHold), as `guichet serve` does.
// It reports how many calls were shed (429 BUSY).
func TestSignInFlood(t *testing.T) {
	testenv.Bench(t)
	const attackers, visitors = 1000, 4
	// visitorTarget is issue 34's: a visitor signs in within 5 s of the
	// first try, whatever the flood.
	const visitorTarget = 5 * time.Second
	// visitorPause is how long a visitor stays on their page before
	// signing in again.
	visitorPause := time.Second
	if d, err := time.ParseDuration(os.Getenv("GUICHET_BENCH_VISITOR_PAUSE")); err == nil {
		visitorPause = d
	}
	sustained := time.Duration(envInt("GUICHET_BENCH_FLOOD_SECONDS", 10)) * time.Second
	budget := account.DefaultWaitBudget
	const target = 2 * time.Second
	b := benchServer(t, os.Getenv("GUICHET_BENCH_POSTGRES") != "")
	client := benchClient(attackers + 16)
	// Warm up (the dummy hash, the hash time estimate).
	for i := range visitors {
		if err := b.signIn(client, b.emails[i], nil); err != nil {
			t.Fatal(err)
		}
	}
	// The clients try the accounts the visitors do not use (they lock: a
	// locked account is checked with a hash all the same) and unknown ids.
	var targets []string
	for _, email := range b.emails[visitors:] {
		id, err := b.find(client, email, b.nextIP())
		if err != nil {
			t.Fatal(err)
		}
		// An id of no account, of the id shape (22 base64url characters),
		// so the server runs the dummy hash instead of answering 404.
		targets = append(targets, id, fmt.Sprintf("%022d", len(targets)))
	}
	round := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	fmt.Printf("sign-in flood (%d cores, %d hashers, hash wait budget %v): wrong passwords from %d clients, each request from its own address; %d visitors, %v on their page between sign-ins\n",
		runtime.NumCPU(), account.HashSlots(), budget, attackers, visitors, visitorPause)

	// flood runs the clients, each sending until stop is closed (or once
	// when once is set) from the address from gives (each its own, or one
	// for all), and reports what they got; 429 BUSY and 503 OVERLOADED
	// (GUICHET_MAX_IN_FLIGHT) are shed.
	flood := func(once bool, stop chan struct{}, from func() string) (wait func() ([]time.Duration, int64, int64)) {
		var mu sync.Mutex
		var admitted []time.Duration
		var shed, other, total atomic.Int64
		var wg sync.WaitGroup
		for c := range attackers {
			wg.Go(func() {
				for i := c; ; i += attackers {
					status, took, err := b.authenticateFrom(client, targets[i%len(targets)], "Wrong-Bench-2026!", from())
					total.Add(1)
					switch {
					case err == nil && status == http.StatusBadRequest:
						mu.Lock()
						admitted = append(admitted, took)
						mu.Unlock()
					case err == nil && (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable):
						shed.Add(1)
					default:
						if other.Add(1) == 1 {
							t.Errorf("a flood request: %d %v", status, err)
						}
					}
					select {
					case <-stop:
						return
					default:
					}
					if once {
						return
					}
				}
			})
		}
		return func() ([]time.Duration, int64, int64) {
			wg.Wait()
			slices.Sort(admitted)
			return admitted, shed.Load(), total.Load()
		}
	}
	report := func(phase string, admitted []time.Duration, shed, total int64, d time.Duration) {
		fmt.Printf("  %s: %d requests in %v; admitted %d (checked with a hash), shed %d = %.1f%% (429 BUSY)\n",
			phase, total, d.Round(100*time.Millisecond), len(admitted), shed, 100*float64(shed)/float64(max(1, total)))
		if len(admitted) == 0 {
			t.Errorf("%s: nothing admitted", phase)
			return
		}
		p99 := percentile(admitted, 99)
		fmt.Printf("    admitted authentication calls: p50 %v, p99 %v, max %v (target p99 < %v)\n",
			round(percentile(admitted, 50)), round(p99), round(admitted[len(admitted)-1]), target)
		if p99 >= target {
			t.Errorf("%s: admitted p99 %v is not under %v", phase, p99, target)
		}
	}
	// visit is one visitor's sign-in: the time of the try that got in (0
	// when none did before until), the time from the first try, and the
	// tries shed.
	visit := func(email string, pause bool, until time.Time) (in, total time.Duration, tries int) {
		first := time.Now()
		for time.Now().Before(until) {
			began := time.Now()
			err := b.signIn(client, email, nil)
			var r *refused
			switch {
			case err == nil:
				return time.Since(began), time.Since(first), tries
			case errors.As(err, &r) && (r.code == "BUSY" || r.code == "OVERLOADED"):
				tries++
				if pause {
					time.Sleep(time.Duration(r.retryAfter) * time.Second)
				}
			default:
				t.Error(err)
				return 0, 0, tries
			}
		}
		return 0, time.Since(first), tries
	}

	// Burst.
	start := time.Now()
	done := flood(true, make(chan struct{}), b.nextIP)
	in, whole, shedTries := visit(b.emails[0], true, time.Now().Add(time.Minute))
	admitted, shed, total := done()
	report("burst of 1,000", admitted, shed, total, time.Since(start))
	fmt.Printf("    a visitor right behind the burst: shed %d times, then signed in in %v (%v from the first try, waiting Retry-After in between; target < %v)\n",
		shedTries, round(in), round(whole), target)
	if in >= target {
		t.Errorf("the visitor's admitted sign-in took %v, not under %v", in, target)
	}

	// visitorsDuring signs in with the visitors' accounts until the phase
	// ends and returns what they got. Each visitor is a person: signed in,
	// they read their page a while (visitorPause) before they sign in
	// again. Back to back (GUICHET_BENCH_VISITOR_PAUSE=0s), 4 visitors are
	// a stream of returning sign-ins of their own (about 100 a second when
	// the lane took every hash they asked for; 17 a second now): the
	// returning lane gives them at most one hash in four, and the flood's
	// admitted requests wait at most 4 ÷ 3 of the budget.
	visitorsDuring := func(start time.Time) string {
		var mu sync.Mutex
		var ins, wholes []time.Duration
		var tries int
		var vwg sync.WaitGroup
		for v := range visitors {
			vwg.Go(func() {
				for time.Since(start) < sustained {
					in, whole, shed := visit(b.emails[v], false, start.Add(sustained))
					mu.Lock()
					if in > 0 {
						ins, wholes = append(ins, in), append(wholes, whole)
					}
					tries += shed
					mu.Unlock()
					if in > 0 {
						time.Sleep(visitorPause)
					}
				}
			})
		}
		vwg.Wait()
		slices.Sort(ins)
		slices.Sort(wholes)
		s := fmt.Sprintf("    %d visitors trying again at once when shed: %d sign-ins, %d tries shed", visitors, len(ins), tries)
		if len(ins) > 0 {
			s += fmt.Sprintf("; the tries that got in p50 %v, max %v; from the first try p50 %v, max %v (target max < %v)",
				round(percentile(ins, 50)), round(ins[len(ins)-1]), round(percentile(wholes, 50)), round(wholes[len(wholes)-1]), visitorTarget)
			if wholes[len(wholes)-1] >= visitorTarget {
				t.Errorf("a visitor took %v from the first try to sign in, not under %v", wholes[len(wholes)-1], visitorTarget)
			}
		} else {
			t.Errorf("no visitor signed in during the flood")
		}
		return s
	}

	// Sustained, the clients in this process.
	stop := make(chan struct{})
	start = time.Now()
	done = flood(false, stop, b.nextIP)
	seen := visitorsDuring(start)
	close(stop)
	admitted, shed, total = done()
	report("sustained, clients in this process", admitted, shed, total, time.Since(start))
	fmt.Println(seen)

	// Sustained, the 1,000 clients behind one address (issue 34: it may
	// hold only its share of the hashers' places, account.DefaultClientShare).
	flooder := b.nextIP()
	stop = make(chan struct{})
	start = time.Now()
	done = flood(false, stop, func() string { return flooder })
	seen = visitorsDuring(start)
	close(stop)
	admitted, shed, total = done()
	report("sustained, the clients in this process behind one address", admitted, shed, total, time.Since(start))
	fmt.Println(seen)

	// Sustained, the clients in a process of their own at nice 19: as with
	// remote attackers, their CPU time does not come out of the server's
	// (nor their goroutines out of its scheduler).
	clients := exec.Command("nice", "-n", "19", os.Args[0], "-test.run=^TestFloodClients$")
	clients.Env = append(os.Environ(), "GUICHET_FLOOD_TARGET="+strings.Join(append([]string{
		b.base, b.host, b.apiKey, sustained.String()}, targets...), " "))
	var out strings.Builder
	clients.Stdout, clients.Stderr = &out, &out
	start = time.Now()
	if err := clients.Start(); err != nil {
		t.Fatal(err)
	}
	seen = visitorsDuring(start)
	if err := clients.Wait(); err != nil {
		t.Fatalf("flood clients: %v\n%s", err, out.String())
	}
	var got floodResult
	_, line, _ := strings.Cut(out.String(), "FLOOD ")
	line, _, _ = strings.Cut(line, "\n")
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("flood clients said %q: %v", out.String(), err)
	}
	slices.Sort(got.Admitted)
	report("sustained, clients in a process at nice 19 (their own waits for a core included)", got.Admitted, got.Shed, got.Total, time.Since(start))
	fmt.Println(seen)
}

// floodResult is what TestFloodClients reports to TestSignInFlood.
type floodResult struct {
	Admitted    []time.Duration
	Shed, Total int64
}

// TestFloodClients is TestSignInFlood's sustained flood run in a process of
// its own (GUICHET_FLOOD_TARGET: base URL, host, api key, duration, then
// the account ids to try).
func TestFloodClients(t *testing.T) {
	args := strings.Fields(os.Getenv("GUICHET_FLOOD_TARGET"))
	if len(args) < 5 {
		t.Skip("run by TestSignInFlood")
	}
	d, err := time.ParseDuration(args[3])
	if err != nil {
		t.Fatal(err)
	}
	const attackers = 1000
	b := &benchTarget{base: args[0], host: args[1], apiKey: args[2]}
	b.ips.Store(1 << 20) // addresses the parent process does not use
	targets := args[4:]
	client := benchClient(attackers)
	var mu sync.Mutex
	var r floodResult
	var wg sync.WaitGroup
	for c := range attackers {
		wg.Go(func() {
			for i, start := c, time.Now(); time.Since(start) < d; i += attackers {
				status, took, err := b.authenticate(client, targets[i%len(targets)], "Wrong-Bench-2026!")
				mu.Lock()
				r.Total++
				switch {
				case err == nil && status == http.StatusBadRequest:
					r.Admitted = append(r.Admitted, took)
				case err == nil && status == http.StatusTooManyRequests:
					r.Shed++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("FLOOD %s\n", line)
}

// TestSignInTimingMedians is the wall-clock side of issue 11's item 9 (the
// deterministic side is internal/account's TestWrongLockedUnknownRunOneHash):
// the authentication call's median time for a wrong password, a locked
// account, an unknown one and one holding a temporary password, interleaved
// over loopback against the server, beside one hash. Target: the medians
// within half a hash of each other (a branch that skipped the hash would
// differ by a whole one).
func TestSignInTimingMedians(t *testing.T) {
	testenv.Bench(t)
	const rounds = 25
	b := benchServer(t, os.Getenv("GUICHET_BENCH_POSTGRES") != "")
	client := benchClient(8)
	ctx := context.Background()
	hasher := account.NewHasher(account.DefaultParams)
	ids := make([]string, len(b.emails))
	for i, email := range b.emails {
		id, err := b.find(client, email, b.nextIP())
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	// emails[0] is staff-locked, emails[1] holds a temporary password; the
	// wrong passwords go to the others in turn, below the lockout.
	temp, err := hasher.Hash(ctx, "Temp-Bench-2026")
	if err != nil {
		t.Fatal(err)
	}
	err = b.db.InTx(ctx, func(tx *store.Tx) error {
		now := time.Now()
		if err := account.Lock(ctx, tx, ids[0], time.Time{}, now); err != nil {
			return err
		}
		return account.SetTemporaryPassword(ctx, tx, ids[1], temp, now.Add(time.Hour), now)
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []string{"wrong password", "locked", "unknown", "temporary held"}
	samples := map[string][]time.Duration{}
	for r := range rounds + 2 { // the first two warm up
		for _, name := range cases {
			id, password := ids[2+r%(len(ids)-2)], "Wrong-Bench-2026!"
			switch name {
			case "locked":
				id, password = ids[0], benchPassword
			case "unknown":
				id, password = "AAAAAAAAAAAAAAAAAAAAAA", benchPassword
			case "temporary held":
				id, password = ids[1], benchPassword
			}
			status, took, err := b.authenticate(client, id, password)
			if err != nil || status != http.StatusBadRequest {
				t.Fatalf("%s: %d %v", name, status, err)
			}
			if r >= 2 {
				samples[name] = append(samples[name], took)
			}
		}
	}
	hashes := oneHash(hasher, 9)
	slices.Sort(hashes)
	hash := hashes[len(hashes)/2]
	medians := map[string]time.Duration{}
	lo, hi := time.Duration(1<<62), time.Duration(0)
	for _, name := range cases {
		s := samples[name]
		slices.Sort(s)
		medians[name] = s[len(s)/2]
		lo, hi = min(lo, medians[name]), max(hi, medians[name])
	}
	round := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
	fmt.Printf("authentication timing (%d rounds, interleaved; one hash %v):", rounds, round(hash))
	for _, name := range cases {
		fmt.Printf(" %s %v;", name, round(medians[name]))
	}
	fmt.Printf(" spread %v = %.2f hashes (target <= 0.5)\n", round(hi-lo), float64(hi-lo)/float64(hash))
	if hi-lo > hash/2 {
		t.Errorf("the medians differ by %v, more than half a hash (%v)", hi-lo, hash)
	}
}
