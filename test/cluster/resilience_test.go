package cluster

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"guichet/internal/sso"
)

// The fault suites run after the functional ones (file order): each ends
// with every instance UP in HAProxy again.

// waitAllUp fails the test when the instances are not all UP in HAProxy
// within a minute.
func waitAllUp(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := cl.waitAllUp(ctx); err != nil {
		t.Fatal(err)
	}
}

// traffic is steady load through the load balancer until stopped: each
// worker loads a page (GET, retried per HTTP semantics on a transport
// error or a 502/503/504, at most 3 times) and asks for an account (POST,
// never retried, each from a client address of its own). It counts what the clients finally saw.
type traffic struct {
	gets, posts, getFailures, postFailures, retries atomic.Int64
	stop                                            chan struct{}
	wg                                              sync.WaitGroup
	mu                                              sync.Mutex
	failures                                        []string
}

func startTraffic(t *testing.T, workers int, ipBase int) *traffic {
	loadAPIKey(t, "belair.localhost")
	tr := &traffic{stop: make(chan struct{})}
	for w := range workers {
		c := newClient(fmt.Sprintf("127.0.2.%d", ipBase+w), "belair.localhost")
		tr.wg.Add(1)
		go func() {
			defer tr.wg.Done()
			ctx := context.Background()
			for {
				select {
				case <-tr.stop:
					return
				default:
				}
				var a answer
				var err error
				for try := 0; try < 4; try++ {
					if try > 0 {
						tr.retries.Add(1)
						time.Sleep(100 * time.Millisecond)
					}
					a, err = c.do(ctx, setup.lb, "GET", "/", "", "")
					if err == nil && a.status != 502 && a.status != 503 && a.status != 504 {
						break
					}
				}
				tr.gets.Add(1)
				if err != nil || a.status != 200 {
					tr.getFailures.Add(1)
					tr.note(fmt.Sprintf("GET /: %d %v", a.status, err))
				}
				// Each POST from the next of 1,000 client addresses: the
				// find rate limit (30 a minute per client) is not under test.
				n := tr.posts.Load()
				pc := newClient(fmt.Sprintf("127.0.%d.%d", 4+n/250%4, 1+n%250), "belair.localhost")
				pc.http.Transport.(*http.Transport).DisableKeepAlives = true
				a, err = pc.json(ctx, setup.lb, "POST", "/api/v1/accounts/find", `{"email":"demo@belair.example"}`)
				tr.posts.Add(1)
				if err != nil || a.status != 200 {
					tr.postFailures.Add(1)
					tr.note(fmt.Sprintf("POST find: %d %v", a.status, err))
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	return tr
}

// restartIfDown starts a killed instance again (once) and waits for it.
func restartIfDown(t *testing.T, in *instance) {
	t.Helper()
	if in.down() {
		if err := in.start(); err != nil {
			t.Fatal(err)
		}
	}
	waitReady(t, in)
	waitAllUp(t)
}

// waitPosts waits for n more POSTs to have been answered.
func (tr *traffic) waitPosts(t *testing.T, n int64) {
	t.Helper()
	want := tr.posts.Load() + n
	deadline := time.Now().Add(time.Minute)
	for tr.posts.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("traffic stalled: %d POSTs, want %d", tr.posts.Load(), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitReady waits for an instance's own /readyz to answer 200.
func waitReady(t *testing.T, in *instance) {
	t.Helper()
	c := newClient("127.0.0.9", "belair.localhost")
	deadline := time.Now().Add(time.Minute)
	for {
		a, err := c.json(context.Background(), in.addr, "GET", "/readyz", "")
		if err == nil && a.status == 200 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready: %d %v", in.name, a.status, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (tr *traffic) note(s string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.failures) < 10 {
		tr.failures = append(tr.failures, s)
	}
}

func (tr *traffic) finish(t *testing.T) {
	close(tr.stop)
	tr.wg.Wait()
	t.Logf("traffic: %d GET (%d retries, %d failed), %d POST (%d failed)",
		tr.gets.Load(), tr.retries.Load(), tr.getFailures.Load(), tr.posts.Load(), tr.postFailures.Load())
}

// TestFaultRollingRestart restarts the three instances one after the other
// (SIGTERM: drain, then a fresh process) under steady traffic: clients that
// retry per HTTP semantics see no failure, and not even a POST fails,
// because a draining instance keeps serving until HAProxy stopped sending.
func TestFaultRollingRestart(t *testing.T) {
	waitAllUp(t)
	tr := startTraffic(t, 4, 10)
	tr.waitPosts(t, 50)
	for _, in := range cl.instances {
		in.terminate()
		if err := in.start(); err != nil {
			t.Fatal(err)
		}
		waitReady(t, in)
		waitAllUp(t)
		tr.waitPosts(t, 50) // traffic on the three again before the next
	}
	tr.finish(t)
	if tr.gets.Load() == 0 || tr.posts.Load() == 0 {
		t.Fatal("no traffic ran")
	}
	if tr.getFailures.Load() != 0 || tr.postFailures.Load() != 0 {
		t.Fatalf("failed requests during the rolling restart: %v", tr.failures)
	}
}

// TestFaultKill9DuringSignInsAndRegistrations kills two instances (kill
// -9: no drain), one after the other, while 200 clients at once sign in
// (80) and register (120, bna's legacy registration by PIN): every request is
// answered (none hangs: each waits behind the others' password hashes, so
// the bound is hangBound, not a speed the machine must have); a sign-in whose POST was
// on a killed instance fails with HAProxy's 502 and nothing else; every
// registration ends registered (clients retry per HTTP semantics, see
// register); the database holds no half-written account or registration
// and no duplicate; the restarted instances are ready again.
func TestFaultKill9DuringSignInsAndRegistrations(t *testing.T) {
	const signIns, registrations = 80, 120 // 200 clients at once
	waitAllUp(t)
	ctx := context.Background()
	importKillPolicies(t, registrations)
	before := accountCount(t)
	brands := []string{"belair", "bna", "intact", "scotia", "servus"}
	for _, b := range brands {
		loadAPIKey(t, b+".localhost")
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var steps atomic.Int64
	step := func() { steps.Add(1) }
	outcomes := map[string]int{}
	for i := range signIns {
		b := brands[i%len(brands)]
		c := newClientWithin(fmt.Sprintf("127.0.3.%d", 1+i), b+".localhost", hangBound)
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A form post sent again after a silent close may find its
			// ticket used by the first (whose answer was lost): the
			// sign-in is refused with the login error, and the person signs
			// in again from the start, as they would.
			var status int
			var err error
			for try := 0; try < 3; try++ {
				r := c.resends
				status, err = c.signIn(ctx, setup.lb, "demo@"+b+".example", demoPassword)
				var refused *signInRefused
				if !errors.As(err, &refused) || refused.code != sso.CodeLoginError || c.resends == r {
					break
				}
			}
			step()
			key := strconv.Itoa(status)
			var ne net.Error
			var refused *signInRefused
			switch {
			case errors.As(err, &ne) && ne.Timeout():
				key = "timeout"
			case errors.As(err, &refused):
				key = "refused " + refused.code
			case err != nil:
				key = "lost" // the connection closed without an answer
			}
			mu.Lock()
			outcomes[key]++
			mu.Unlock()
		}()
	}
	regs := &regTally{outcomes: map[string]int{}}
	for i := 1; i <= registrations; i++ {
		c := newClientWithin(fmt.Sprintf("127.0.%d.%d", 5+i/250, 1+i%250), killBrand+".localhost", hangBound)
		wg.Add(1)
		go func() {
			defer wg.Done()
			regs.add(register(ctx, c, i, step))
		}()
	}
	// The kills mid-way: app2 once 60 answers came back, app3 once 200
	// did (app2 started again meanwhile, so one instance is always up).
	waitSteps := func(n int64) {
		deadline := time.Now().Add(2 * time.Minute)
		for steps.Load() < n && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	first, second := cl.instances[1], cl.instances[2]
	t.Cleanup(func() {
		for _, in := range []*instance{first, second} {
			if in.down() {
				_ = in.start()
			}
		}
		waitAllUp(t)
	})
	waitSteps(60)
	atFirst := steps.Load()
	first.kill9()
	if err := first.start(); err != nil {
		t.Fatal(err)
	}
	waitSteps(200)
	atSecond := steps.Load()
	waitReady(t, first)
	second.kill9()
	wg.Wait()
	t.Logf("%s killed after %d answers, %s after %d (of %d)", first.name, atFirst, second.name, atSecond, steps.Load())
	t.Logf("%d sign-ins: %v; %d requests sent again after a silent close (client.do)", signIns, outcomes, resent.Load())
	t.Logf("%d registrations: %v %v", registrations, regs.outcomes, regs.why)
	for k, n := range outcomes {
		switch k {
		case "303", "429", "502", "lost", "refused " + sso.CodeTechnical:
			// signed in (to /my-account); BUSY (hash budget: 429 from the
			// password call, the technical code from the form post); in
			// flight on a killed instance (502, or no answer even when sent
			// again)
		default:
			t.Errorf("%d sign-ins ended with %s", n, k)
		}
	}
	if outcomes["303"] == 0 {
		t.Error("no sign-in succeeded")
	}
	if regs.outcomes[regFailed] != 0 || regs.outcomes[regCreated]+regs.outcomes[regLost] != registrations {
		t.Errorf("registrations: %v, failures %v", regs.outcomes, regs.why)
	}
	for _, in := range []*instance{first, second} {
		if in.down() {
			if err := in.start(); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitReady(t, first)
	waitReady(t, second)
	waitAllUp(t)
	got := checkRegistrationRows(t, registrations)
	if got != registrations {
		t.Errorf("%d accounts for %d registrations that ended registered", got, registrations)
	}
	if after := accountCount(t); after != before+registrations {
		t.Fatalf("accounts: %d before, %d after %d registrations", before, after, registrations)
	}
	c := newClient("127.0.0.7", "belair.localhost")
	c.mustSignIn(ctx, t, "sign-in after the restart", setup.lb, "demo@belair.example", demoPassword)
	// No instance is left refusing (issue 27): the one that took the others'
	// load, and the restarted ones, each sign a person in directly. A 429
	// BUSY is allowed only while the load's hashes are fresh: the admission
	// estimate decays, so BUSY ends by itself within a minute.
	for i, in := range cl.instances {
		direct := newClient(fmt.Sprintf("127.0.0.%d", 20+i), "belair.localhost")
		deadline := time.Now().Add(time.Minute)
		for {
			status, err := direct.signIn(ctx, in.addr, "demo@belair.example", demoPassword)
			if err == nil && status == 303 {
				break
			}
			if status != http.StatusTooManyRequests || time.Now().After(deadline) {
				t.Fatalf("%s after the kills: sign-in %d %v (BUSY for good?)", in.name, status, err)
			}
			time.Sleep(time.Second)
		}
	}
	k := newClient("127.0.0.6", killBrand+".localhost")
	k.mustSignIn(ctx, t, "a registered account signs in", setup.lb, killEmail(1), killPassword)
}

func accountCount(t *testing.T) int {
	t.Helper()
	ctx := context.Background()
	db := openDB(t)
	var n int
	if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM accounts").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// pgCtl runs the cluster's own PostgreSQL's pg_ctl (never the machine's).
func pgCtl(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command(setup.pgCtl, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("pg_ctl %v: %v %s", args, err, out)
	}
}

// TestFaultPostgresDown stops PostgreSQL until every instance's /readyz
// has turned red and HAProxy has counted every instance down in two rounds
// (a condition, not a fixed time: how long the health checks take to see
// it depends on the machine; the outage fails after a minute). Meanwhile
// calls through the load balancer are answered with the technical (500)
// or unavailable (503) answer within the 5 s client bound, never a hang;
// once HAProxy counts no instance ready, the answer is its own
// (deploy/haproxy.cfg): 503 with errorCode TECHNICAL for /api/*, the
// static technical roadblock for a page. PostgreSQL back, /readyz is green
// everywhere, a session opened before the outage still works and nothing
// queued is lost.
func TestFaultPostgresDown(t *testing.T) {
	waitAllUp(t)
	ctx := context.Background()
	loadAPIKey(t, "belair.localhost")
	c := newClient("127.0.0.8", "belair.localhost")
	c.mustSignIn(ctx, t, "sign-in before the outage", setup.lb, "demo@belair.example", demoPassword)
	pgCtl(t, "-m", "fast", "-w", "stop")
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			pgCtl(t, "-w", "start")
		}
	})
	stopped := time.Now()
	red := map[string]bool{}
	answers := map[int]int{}
	hangs, lbAnswers := 0, 0
	for len(red) < len(cl.instances) || lbAnswers < 2 {
		if time.Since(stopped) > time.Minute {
			break
		}
		for _, in := range cl.instances {
			if a, err := c.json(ctx, in.addr, "GET", "/readyz", ""); err == nil && a.status == 503 {
				red[in.name] = true
			}
		}
		st, err := lbStates()
		if err != nil || len(st) != len(cl.instances) {
			t.Fatalf("HAProxy's states: %v %v", st, err)
		}
		noneUp := true
		for _, s := range st {
			noneUp = noneUp && !strings.HasPrefix(s, "UP")
		}
		a, err := c.json(ctx, setup.lb, "POST", "/api/v1/accounts/find", `{"email":"demo@belair.example"}`)
		if err != nil {
			hangs++
		} else {
			answers[a.status]++
		}
		if noneUp {
			checkNoInstanceAnswers(t, c)
			lbAnswers++
		}
		time.Sleep(250 * time.Millisecond)
	}
	pgCtl(t, "-w", "start")
	restarted = true
	t.Logf("during the outage: answers %v, %d unanswered within 5 s, red: %v, %d rounds with no instance in HAProxy",
		answers, hangs, red, lbAnswers)
	if len(red) != len(cl.instances) {
		t.Errorf("/readyz turned red on %v only", red)
	}
	if hangs > 0 {
		t.Errorf("%d calls not answered within 5 s", hangs)
	}
	if lbAnswers < 2 {
		t.Errorf("HAProxy counted every instance down in %d rounds of a one-minute outage, want 2", lbAnswers)
	}
	for status, n := range answers {
		if status != 500 && status != 503 {
			t.Errorf("%d calls answered %d during the outage", n, status)
		}
	}
	waitAllUp(t)
	if a, err := c.json(ctx, setup.lb, "GET", "/api/v1/me", ""); err != nil || a.status != 200 {
		t.Fatalf("the session after the outage: %d %v", a.status, err)
	}
	ids := enqueueEmails(t, 20, "after-pg")
	waitDelivered(t, ids, time.Minute)
}

// checkNoInstanceAnswers checks the load balancer's own answers while no
// instance is ready: an API call gets the API's error shape (503, JSON,
// errorCode TECHNICAL: the SPA shows a roadblock), a page the technical
// roadblock in English and French that loads nothing from elsewhere; both
// say when to retry, both within the client's 5 s.
func checkNoInstanceAnswers(t *testing.T, c *client) {
	t.Helper()
	for _, call := range []struct{ method, path, accept, body string }{
		{"POST", "/api/v1/accounts/find", "application/json", `{"email":"demo@belair.example"}`},
		{"GET", "/api/console/v1/session", "application/json", ""},
		{"GET", "/", "text/html", ""},
		{"GET", "/registration/identification", "text/html", ""},
	} {
		req, _ := http.NewRequest(call.method, "http://"+setup.lb+call.path, strings.NewReader(call.body))
		req.Host = c.host
		req.Header.Set("Accept", call.accept)
		res, err := c.http.Do(req)
		if err != nil {
			t.Errorf("%s %s with no instance: %v", call.method, call.path, err)
			continue
		}
		raw, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Errorf("%s %s with no instance: %v", call.method, call.path, err)
			continue
		}
		ct := res.Header.Get("Content-Type")
		if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" || !strings.HasPrefix(ct, call.accept) {
			t.Errorf("%s %s with no instance: %d %q Retry-After %q", call.method, call.path, res.StatusCode, ct, res.Header.Get("Retry-After"))
			continue
		}
		page := string(raw)
		if call.accept == "application/json" {
			var body struct{ ErrorCode, MessageKey string }
			if err := json.Unmarshal(raw, &body); err != nil || body.ErrorCode != "TECHNICAL" || body.MessageKey != "error.technical" {
				t.Errorf("%s %s with no instance: %s (%v)", call.method, call.path, page, err)
			}
			continue
		}
		for _, want := range []string{"Something went wrong", "Un problème est survenu", `lang="fr"`} {
			if !strings.Contains(page, want) {
				t.Errorf("%s with no instance: the page lacks %q", call.path, want)
			}
		}
		for _, bad := range []string{"<script", "<link", "src=", "http://", "https://"} {
			if strings.Contains(page, bad) {
				t.Errorf("%s with no instance: the page holds %q (it must stand without the app)", call.path, bad)
			}
		}
	}
}

// outboxRetry is the instances' first outbox retry delay
// (GUICHET_OUTBOX_RETRY_SECONDS), doubled at each retry.
const outboxRetry = 2 * time.Second

// TestFaultSMTPDown stops the SMTP server while messages are queued and
// starts it again after CLUSTER_SMTP_OUTAGE seconds (default 20: with the
// instances' 2 s retry base that is four doublings of backoff, as a
// two-minute outage is with the production 30 s): every message is
// delivered, each once.
func TestFaultSMTPDown(t *testing.T) {
	outage := 20 * time.Second
	if v := os.Getenv("CLUSTER_SMTP_OUTAGE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("CLUSTER_SMTP_OUTAGE=%q: seconds", v)
		}
		outage = time.Duration(n) * time.Second
	}
	cl.sink.stop()
	t.Cleanup(func() { _ = cl.sink.start() }) // no-op when running
	ids := enqueueEmails(t, 100, "smtp-down")
	time.Sleep(outage) // the outage itself, not a measurement
	if err := cl.sink.start(); err != nil {
		t.Fatal(err)
	}
	// The workers back off (outboxRetry doubling, with jitter): the last
	// retry before the server came back may be up to one backoff after it,
	// at most the outage's length again; the rest is slack for a busy machine.
	waitDelivered(t, ids, 2*outage+3*time.Minute)
	t.Logf("%d messages queued during a %s SMTP outage, each delivered once", len(ids), outage)
}

// lbCounters reads HAProxy's stats CSV by its header: the guichet
// frontend's and backend's rows and each server's (FRONTEND, BACKEND,
// app1...), column name -> value (hrsp_2xx, hrsp_5xx...).
func lbCounters(t *testing.T) map[string]map[string]int64 {
	t.Helper()
	res, err := http.Get("http://" + setup.stats + "/stats;csv")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	r := csv.NewReader(res.Body)
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("HAProxy's stats: %v", err)
	}
	header := rows[0]
	header[0] = strings.TrimPrefix(header[0], "# ")
	out := map[string]map[string]int64{}
	for _, row := range rows[1:] {
		if len(row) < 2 || row[0] != "guichet" {
			continue
		}
		cols := map[string]int64{}
		for i, name := range header {
			if i < len(row) {
				cols[name], _ = strconv.ParseInt(row[i], 10, 64)
			}
		}
		out[row[1]] = cols
	}
	return out
}

// migrationStatus runs HEAD's `guichet migrate --status` on a database:
// its output, and the count of pending migrations it reports.
func migrationStatus(t *testing.T, databaseURL string) (string, int) {
	t.Helper()
	out, err := exec.Command(setup.bin, "migrate", "--status", "--database-url", databaseURL).CombinedOutput()
	if err != nil {
		t.Fatalf("guichet migrate --status: %v %s", err, out)
	}
	var applied, pending int
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if _, err := fmt.Sscanf(lines[len(lines)-1], "%d applied, %d pending", &applied, &pending); err != nil {
		t.Fatalf("guichet migrate --status: %q: %v", lines[len(lines)-1], err)
	}
	return string(out), pending
}

// TestUpgradeInstanceByInstance is a rolling upgrade (issue 33): the three
// instances run the old binary (GUICHET_UPGRADE_BIN, built by
// scripts/upgrade-from.sh from an older commit whose schema lacks at least
// one of HEAD's migrations) on a database of their own, made by the old
// binary, under the mixed load's HTTP calls; then each is stopped (SIGTERM,
// the drain) and started again with HEAD's binary, one at a time. The
// first new one migrates at start, under the advisory lock, while the two
// old ones keep serving the schema it changed. Wanted: HAProxy answered no
// 5xx in the whole run, no call of the load failed (client.do's resend on
// a silent close is the only retry), the old instances answered through
// HAProxy and directly after the migration, every queued email was
// delivered once (old and new workers on one outbox), and `guichet migrate
// --status` ends with nothing pending.
func TestUpgradeInstanceByInstance(t *testing.T) {
	oldBin := os.Getenv("GUICHET_UPGRADE_BIN")
	if oldBin == "" {
		t.Fatal("GUICHET_UPGRADE_BIN is not set (scripts/cluster.sh builds it with scripts/upgrade-from.sh)")
	}
	waitAllUp(t)
	ctx := context.Background()
	for _, host := range loadHosts {
		loadAPIKey(t, host)
	}
	// A database of its own, which the old binary creates and migrates.
	u, err := url.Parse(setup.databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/guichet_upgrade"
	upgradeURL := u.String()
	admin := openDB(t)
	for _, q := range []string{"DROP DATABASE IF EXISTS guichet_upgrade", "CREATE DATABASE guichet_upgrade"} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	mainURL := setup.databaseURL
	for _, in := range cl.instances {
		in.terminate()
	}
	t.Cleanup(func() {
		setup.databaseURL = mainURL
		for _, in := range cl.instances {
			in.terminate()
			in.bin, in.databaseURL = "", ""
			if err := in.start(); err != nil {
				t.Error(err)
			}
		}
		waitAllUp(t)
	})
	for _, in := range cl.instances {
		in.bin, in.databaseURL = oldBin, upgradeURL
		if err := in.start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, in := range cl.instances {
		waitReady(t, in)
	}
	waitAllUp(t)
	setup.databaseURL = upgradeURL // openDB, enqueueEmails: the upgrade's database
	status, pending := migrationStatus(t, upgradeURL)
	if pending == 0 {
		t.Fatalf("the old binary's schema has every migration of HEAD: nothing to upgrade across (GUICHET_UPGRADE_FROM)\n%s", status)
	}
	t.Logf("before the upgrade, HEAD's binary sees %d migration(s) pending", pending)

	sc := pageScenario(t)
	stop := make(chan struct{})
	loaded := make(chan *results, 1)
	start := lbCounters(t)
	rate := intList(t, envOr("UPGRADE_RATE", "10"))[0]
	go func() { loaded <- sc.runUntil(rate, stop) }()
	stopped := false
	defer func() {
		if !stopped {
			close(stop)
			<-loaded
		}
	}()
	ids := enqueueEmails(t, 50, "upgrade-old")
	answered := func(name string, c map[string]map[string]int64) int64 {
		return c[name]["hrsp_2xx"] + c[name]["hrsp_3xx"] + c[name]["hrsp_4xx"]
	}
	for i, in := range cl.instances {
		in.terminate()
		in.bin = ""
		if err := in.start(); err != nil {
			t.Fatal(err)
		}
		waitReady(t, in)
		waitAllUp(t)
		ids = append(ids, enqueueEmails(t, 50, fmt.Sprintf("upgrade-%d", i))...)
		if i > 0 {
			continue
		}
		// HEAD's schema now, the two old instances still serving: each
		// answers directly (a find, a sign-in: reads and writes of the
		// tables the migration changed or not), and each answers calls of
		// the load through HAProxy.
		if _, pending := migrationStatus(t, upgradeURL); pending != 0 {
			t.Fatalf("%s started with HEAD's binary: %d migration(s) still pending", in.name, pending)
		}
		migrated := lbCounters(t)
		for j, old := range cl.instances[1:] {
			c := newClient(fmt.Sprintf("127.0.0.%d", 30+j), "belair.localhost")
			if a, err := c.json(ctx, old.addr, "POST", "/api/v1/accounts/find", `{"email":"demo@belair.example"}`); err != nil || a.status != 200 {
				t.Errorf("old %s after the migration: find %d %v", old.name, a.status, err)
			}
			if status, err := c.signIn(ctx, old.addr, "demo@belair.example", demoPassword); err != nil || status != 303 {
				t.Errorf("old %s after the migration: sign-in %d %v", old.name, status, err)
			}
		}
		deadline := time.Now().Add(2 * time.Minute)
		for _, old := range cl.instances[1:] {
			for answered(old.name, lbCounters(t))-answered(old.name, migrated) < 20 {
				if time.Now().After(deadline) {
					t.Fatalf("old %s answered %d calls through HAProxy after the migration, want 20", old.name,
						answered(old.name, lbCounters(t))-answered(old.name, migrated))
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		now := lbCounters(t)
		t.Logf("after the migration, through HAProxy, old app2 answered %d calls and old app3 %d",
			answered("app2", now)-answered("app2", migrated), answered("app3", now)-answered("app3", migrated))
	}
	close(stop)
	stopped = true
	res := <-loaded
	res.print(t, fmt.Sprintf("during the upgrade, %d/s", rate))
	// Not a failure, a finding (docs/cluster.md): the assets named by one
	// version's page are not all in the other version's binary.
	missing := 0
	for _, o := range res.byKind["asset"] {
		if o.status == http.StatusNotFound {
			missing++
		}
	}
	t.Logf("%d of %d asset calls answered 404 (an asset of the other version's SPA)", missing, len(res.byKind["asset"]))
	end := lbCounters(t)
	if n := end["FRONTEND"]["hrsp_5xx"] - start["FRONTEND"]["hrsp_5xx"]; n != 0 {
		t.Errorf("HAProxy answered %d 5xx during the upgrade", n)
	}
	if bad := res.failures(); bad > 0 {
		t.Errorf("%d calls of the load answered 5xx, a refused sign-in or nothing", bad)
	}
	if len(res.all()) == 0 {
		t.Fatal("no load ran")
	}
	waitDelivered(t, ids, 2*time.Minute)
	status, pending = migrationStatus(t, upgradeURL)
	if pending != 0 || strings.Contains(status, "newer version") {
		t.Fatalf("after the upgrade:\n%s", status)
	}
	newest := strings.Split(strings.TrimSpace(status), "\n")
	t.Logf("after the upgrade: %s; %s", newest[len(newest)-2], newest[len(newest)-1])
}
