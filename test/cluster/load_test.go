package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/devseed"
	"guichet/internal/sso"
	"guichet/test/cluster/cpuquota"
)

// TestLoad is `make load` (issue 19, docs/benchmarks.md): a mixed scenario
// through HAProxy at a fixed arrival rate (open loop: a call starts on its
// tick whether or not the earlier ones answered, and its latency counts
// from that tick), on one instance (app2 and app3 in maintenance in
// HAProxy, through its runtime API) and on three. Skipped unless
// GUICHET_LOAD=1 (make cluster never runs it).
//
//	LOAD_RATE       arrivals a second (default 10)
//	LOAD_RATES      several rates, stepped in turn (e.g. 5,10,20), instead of LOAD_RATE
//	LOAD_SECONDS    duration of each step (default 600)
//	LOAD_INSTANCES  the topologies run (default "1,3")
//	LOAD_P99_MS     the p99 bound a rate must hold (default 1000)
//	LOAD_IDLE       idle chat sockets held open during each step (default 50)
//	LOAD_CPU_QUOTA  cores per instance (e.g. 0.25): each instance runs in a
//	                cgroup of its own with that CPU quota (issue 34), and each
//	                step reports CPU per call and PostgreSQL CPU per call
func TestLoad(t *testing.T) {
	if os.Getenv("GUICHET_LOAD") != "1" {
		t.Skip("make load runs this (GUICHET_LOAD=1)")
	}
	rates := intList(t, envOr("LOAD_RATES", envOr("LOAD_RATE", "10")))
	seconds := intList(t, envOr("LOAD_SECONDS", "600"))[0]
	topologies := intList(t, envOr("LOAD_INSTANCES", "1,3"))
	bound := time.Duration(intList(t, envOr("LOAD_P99_MS", "1000"))[0]) * time.Millisecond
	idle := intList(t, envOr("LOAD_IDLE", "50"))[0]
	for _, host := range loadHosts {
		loadAPIKey(t, host)
	}
	sc := newScenario(t)

	best := map[int]float64{}
	for _, n := range topologies {
		useInstances(t, n)
		for _, rate := range rates {
			name := fmt.Sprintf("%d instance(s), %d/s, %d s", n, rate, seconds)
			before := readCPU(t, n)
			res := sc.run(t, rate, time.Duration(seconds)*time.Second, idle)
			res.print(t, name)
			readCPU(t, n).report(t, name, before, res)
			if bad := res.failures(); bad > 0 {
				t.Errorf("%s: %d calls answered 5xx or not at all", name, bad)
			}
			// Held: p99 within the bound, nothing failed, nothing shed
			// (429: the hash budget's BUSY; per-client limits do not
			// bite, every arrival has its own address).
			if p99 := res.overallP99(); p99 <= bound && res.failures() == 0 && res.count(429) == 0 {
				best[n] = max(best[n], res.throughput())
			} else {
				t.Logf("%s: not held (p99 %v, bound %v; %d failed, %d shed with 429)", name, p99, bound, res.failures(), res.count(429))
			}
		}
	}
	useInstances(t, len(cl.instances))
	for _, n := range topologies {
		t.Logf("highest throughput held with p99 <= %v on %d instance(s): %.1f calls/s", bound, n, best[n])
	}
	if best[1] > 0 && best[3] > 0 {
		t.Logf("throughput ratio three/one: %.2f", best[3]/best[1])
		if cl.instances[0].quota != nil {
			verdict := "met"
			if best[3] < 2.5*best[1] {
				verdict = "NOT met"
			}
			// A topology that held the highest rate stepped has a limit
			// above it: the ratio then says nothing.
			if top := float64(slices.Max(rates)); best[1] >= 0.95*top || best[3] >= 0.95*top {
				verdict = "not measured (a topology held the highest rate stepped: step higher)"
			}
			t.Logf("issue 34's target under equal quotas, three >= 2.5 x one: %s", verdict)
		}
	}
}

// cpuReading is, in the quota mode (LOAD_CPU_QUOTA), the CPU the first n
// instances' quota groups and PostgreSQL (its postmaster and backends) had
// used at one moment.
type cpuReading struct {
	on        bool
	instances []time.Duration
	throttled int64
	postgres  time.Duration
	at        time.Time
}

func readCPU(t *testing.T, n int) cpuReading {
	t.Helper()
	r := cpuReading{on: cl.instances[0].quota != nil, at: time.Now()}
	if !r.on {
		return r
	}
	for _, in := range cl.instances[:n] {
		u, err := in.quota.Usage()
		if err != nil {
			t.Fatal(err)
		}
		th, err := in.quota.Throttled()
		if err != nil {
			t.Fatal(err)
		}
		r.instances = append(r.instances, u)
		r.throttled += th
	}
	raw, err := os.ReadFile(setup.logDir + "/pg/postmaster.pid")
	if err != nil {
		t.Fatalf("PostgreSQL's postmaster.pid (scripts/cluster.sh's $tmp/pg): %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(raw), "\n", 2)[0]))
	if err != nil {
		t.Fatalf("postmaster.pid: %v", err)
	}
	// USER_HZ is 100 on Linux: /proc's times are in 10 ms ticks.
	if r.postgres, err = cpuquota.TreeCPU("/proc", pid, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	return r
}

// report logs what a step cost since before: the instances' CPU (each
// share of its quota), the periods the quotas held them back, and CPU and
// PostgreSQL CPU per call answered, with the load average beside (the
// figures are only as good as the machine was quiet).
func (r cpuReading) report(t *testing.T, name string, before cpuReading, res *results) {
	t.Helper()
	if !r.on {
		return
	}
	answered := len(res.all()) - res.count(0)
	wall := r.at.Sub(before.at)
	var used time.Duration
	var each []string
	for i, u := range r.instances {
		d := u - before.instances[i]
		used += d
		each = append(each, fmt.Sprintf("%s %.2fs", cl.instances[i].name, d.Seconds()))
	}
	pg := r.postgres - before.postgres
	load, _ := os.ReadFile("/proc/loadavg")
	perCall := func(d time.Duration) string {
		if answered == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000/float64(answered))
	}
	quota, _ := strconv.ParseFloat(os.Getenv("LOAD_CPU_QUOTA"), 64) // setQuota checked it
	t.Logf("cpu %s: quota %s core(s) each; instances used %.2f s of CPU in %.1f s (%s; %.0f%% of their quotas), throttled %d periods; "+
		"CPU per call %s, PostgreSQL CPU per call %s (%.2f s) over %d calls answered; load average %s",
		name, os.Getenv("LOAD_CPU_QUOTA"), used.Seconds(), wall.Seconds(), strings.Join(each, ", "),
		100*used.Seconds()/(quota*float64(len(r.instances))*wall.Seconds()), r.throttled-before.throttled,
		perCall(used), perCall(pg), pg.Seconds(), answered, strings.TrimSpace(string(load)))
}

// loadHosts are the brands the scenario uses.
var loadHosts = []string{"belair.localhost", "bna.localhost", "intact.localhost", "scotia.localhost"}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func intList(t *testing.T, s string) []int {
	t.Helper()
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			t.Fatalf("load setting %q: want positive integers", s)
		}
		out = append(out, n)
	}
	return out
}

// useInstances leaves n instances in HAProxy's rotation and puts the
// others in maintenance (HAProxy's runtime API, as an operator would), then
// waits until HAProxy has them so.
func useInstances(t *testing.T, n int) {
	t.Helper()
	for i, in := range cl.instances {
		state := "ready"
		if i >= n {
			state = "maint"
		}
		if err := lbCommand("set server guichet/" + in.name + " state " + state); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		st, err := lbStates()
		ok := err == nil
		for i, in := range cl.instances {
			want := "UP"
			if i >= n {
				want = "MAINT"
			}
			if st[in.name] != want {
				ok = false
			}
		}
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("HAProxy states %v (%v), want %d instance(s) UP", st, err, n)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// lbCommand sends one command to HAProxy's runtime API (GUICHET_LB_SOCKET).
func lbCommand(cmd string) error {
	conn, err := net.Dial("unix", os.Getenv("GUICHET_LB_SOCKET"))
	if err != nil {
		return fmt.Errorf("HAProxy's runtime API: %w", err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, cmd+"\n"); err != nil {
		return err
	}
	out, _ := io.ReadAll(conn)
	if s := strings.TrimSpace(string(out)); s != "" {
		return fmt.Errorf("HAProxy: %s: %s", cmd, s)
	}
	return nil
}

// scenario is the mix of calls, with what they need read once: the pages'
// assets, the registration demo person of bna.
type scenario struct {
	assets  []string
	agent   *client // the --dev agent, signed in once (a TOTP code is accepted once)
	agentIP string
	clients atomic.Uint64
}

var assetRef = regexp.MustCompile(`(?:src|href)="(/assets/[^"]+)"`)

func newScenario(t *testing.T) *scenario {
	t.Helper()
	sc := pageScenario(t)
	sc.agentIP, sc.agent = sc.clientAt("console.localhost")
	signInAgent(t, sc.agent)
	return sc
}

// pageScenario is a scenario without the agent (runUntil's calls): the
// assets the page names.
func pageScenario(t *testing.T) *scenario {
	t.Helper()
	sc := &scenario{}
	c := sc.client("belair.localhost")
	page, err := c.page(context.Background(), "/")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range assetRef.FindAllStringSubmatch(page, -1) {
		sc.assets = append(sc.assets, m[1])
	}
	if len(sc.assets) == 0 {
		t.Fatal("no /assets/ in the page: the SPA is not built (make build)")
	}
	return sc
}

// client is a new caller from its own loopback address, 127.1.x.y: each
// arrival comes from the next one (over 64,000 of them), so the per-client
// rate limits see many clients, as in production.
func (sc *scenario) client(host string) *client {
	_, c := sc.clientAt(host)
	return c
}

// clientAt is client, with the address it calls from.
func (sc *scenario) clientAt(host string) (string, *client) {
	n := sc.clients.Add(1)
	ip := fmt.Sprintf("127.%d.%d.%d", 1+n/62500%8, n/250%250, 1+n%250)
	return ip, newClient(ip, host)
}

func (c *client) page(ctx context.Context, path string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+setup.lb+path, nil)
	req.Host = c.host
	res, err := c.http.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return string(raw), &statusError{res.StatusCode}
	}
	return string(raw), err
}

type statusError struct{ status int }

func (e *statusError) Error() string { return fmt.Sprintf("status %d", e.status) }

// outcome is one call: its type, its status (0: no answer), its latency
// from its scheduled start.
type outcome struct {
	kind    string
	status  int
	latency time.Duration
}

// calls are the scenario's call types and their weights (of 100).
var calls = []struct {
	kind   string
	weight int
}{
	{"page", 30}, {"asset", 15}, {"sign-in", 10}, {"sign-in-wrong", 10},
	{"recovery", 10}, {"registration", 10}, {"chat", 15},
}

// run holds idle sockets and two agent chats open, and starts calls at
// rate a second for d; it returns every outcome once all have answered.
func (sc *scenario) run(t *testing.T, rate int, d time.Duration, idle int) *results {
	t.Helper()
	sockets := sc.idleSockets(t, idle)
	chat := newChatRoom(t, sc)
	defer func() {
		if errs := chat.close(); len(errs) > 0 {
			t.Logf("error frames on the chat sockets: %v", errs)
		}
	}()
	res := sc.arrivals(rate, int(d/(time.Second/time.Duration(rate))), nil, chat)
	res.duration = d
	res.idleOpen = sockets.close()
	res.idleWanted = idle
	if res.idleOpen != idle {
		t.Errorf("%d of %d idle chat sockets dropped during the run", idle-res.idleOpen, idle)
	}
	return res
}

// runUntil is the mix's HTTP calls at rate a second until stop closes (the
// upgrade test): no sockets, the chat arrivals are left out, as a drain
// closes sockets (1012) and the scenario's do not reconnect
// (TestFaultKill9ChatVisitor covers the reconnection).
func (sc *scenario) runUntil(rate int, stop <-chan struct{}) *results {
	return sc.arrivals(rate, -1, stop, nil)
}

// arrivals starts call i at start + i/rate, total calls (-1: until stop
// closes), and returns every outcome once all have answered; chat nil
// leaves out the chat arrivals.
func (sc *scenario) arrivals(rate, total int, stop <-chan struct{}, chat *chatRoom) *results {
	ctx := context.Background()
	out := make(chan outcome, 1024)
	res := &results{byKind: map[string][]outcome{}, rate: rate}
	done := make(chan struct{})
	go func() {
		for o := range out {
			res.byKind[o.kind] = append(res.byKind[o.kind], o)
		}
		close(done)
	}()
	var wg sync.WaitGroup
	interval := time.Second / time.Duration(rate)
	start := time.Now()
calls:
	for i := 0; i != total; i++ {
		at := start.Add(time.Duration(i) * interval)
		select {
		case <-stop:
			break calls
		case <-time.After(time.Until(at)):
		}
		kind := pick(i)
		if kind == "chat" && chat == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var status int
			if kind == "chat" {
				kind, status = chat.exchange(ctx, i)
			} else {
				status = sc.call(ctx, kind, i)
			}
			out <- outcome{kind: kind, status: status, latency: time.Since(at)}
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	close(out)
	<-done
	return res
}

// pick is the call type of arrival i: the weights, shuffled the same way
// in every run.
func pick(i int) string {
	r := rand.New(rand.NewPCG(uint64(i), 19)).IntN(100)
	for _, c := range calls {
		if r < c.weight {
			return c.kind
		}
		r -= c.weight
	}
	return calls[0].kind
}

var brandIDs = []string{"belair", "bna", "intact", "scotia"}

// call runs one call of kind and returns the status that ended it (the
// first not expected, or the last), 0 when nothing was answered.
func (sc *scenario) call(ctx context.Context, kind string, i int) int {
	brand := brandIDs[i%len(brandIDs)]
	c := sc.client(brand + ".localhost")
	switch kind {
	case "page":
		// The SPA's shell on / and on a deep route (the server answers
		// index.html for both).
		for _, p := range []string{"/", "/registration/identification"} {
			if _, err := c.page(ctx, p); err != nil {
				return errStatus(err)
			}
		}
		return 200
	case "asset":
		_, err := c.page(ctx, sc.assets[i%len(sc.assets)])
		if err != nil {
			return errStatus(err)
		}
		return 200
	case "sign-in":
		status, err := c.signIn(ctx, setup.lb, "demo@"+brand+".example", demoPassword)
		var refused *signInRefused
		if errors.As(err, &refused) {
			if refused.code == sso.CodeTechnical {
				return 429 // the form post's BUSY: shed, as the password call's 429
			}
			return 401 // a right password refused: a failure (results.failures)
		}
		return status
	case "sign-in-wrong":
		// A wrong password for the brand's second account: 401 until it
		// locks (then 4xx too); the demo accounts signing in stay usable.
		status, _ := c.signIn(ctx, setup.lb, "ubi@"+brand+".example", "Wrong-Horse-9!")
		return status
	case "recovery":
		a, err := c.json(ctx, setup.lb, "POST", "/api/v1/accounts/password-reset",
			fmt.Sprintf(`{"email":"load-%d@%s.example"}`, i, brand))
		if err != nil {
			return 0
		}
		return a.status
	case "registration":
		// Legacy registration's identification on bna (the find's
		// registration variant): a policy number of its own each time,
		// none on file (404 POLICY_NUMBER_NOT_FOUND after the lookup):
		// the product allows 10 finds an hour per policy number, so the
		// demo people cannot be repeated at this rate.
		c.host = "bna.localhost"
		a, err := c.json(ctx, setup.lb, "POST", "/api/v1/accounts/find", registrationBody(i))
		if err != nil {
			return 0
		}
		return a.status
	}
	return 0
}

func errStatus(err error) int {
	if se, ok := err.(*statusError); ok {
		return se.status
	}
	return 0
}

// registrationBody identifies Nora Aucun (bna's demo person, Ontario)
// under a policy number no one has: LDa-bcde, from the arrival's number.
func registrationBody(i int) string {
	number := fmt.Sprintf("L%02d-%04d", i/10000%100, i%10000)
	return fmt.Sprintf(`{"policyNumber":%q,"firstName":"Nora","lastName":"Aucun","dateOfBirth":%q,"postalCode":%q}`,
		number, devseed.DateOfBirth, devseed.PostalCode("on"))
}

// idle holds visitor chat sockets open (belair's bot conversations, each
// from its own address) and counts those still open at the end.
type idle struct {
	conns   []*websocket.Conn
	dropped []chan struct{}
}

func (sc *scenario) idleSockets(t *testing.T, n int) *idle {
	t.Helper()
	ctx := context.Background()
	h := &idle{}
	for range n {
		ip, c := sc.clientAt("belair.localhost")
		a, err := c.json(ctx, setup.lb, "POST", "/api/v1/chat/conversations", `{"name":"Idle","topic":"claims"}`)
		if err != nil || (a.status != 201 && a.status != 200) {
			t.Fatalf("idle socket's conversation: %d %v %v", a.status, a.body, err)
		}
		ws := openSocket(t, c, ip, "/api/v1/chat/socket?after=0")
		// Reading (and dropping the bot's frames) answers pings; the
		// channel closes when the socket drops.
		dropped := make(chan struct{})
		go func() {
			defer close(dropped)
			for {
				if _, _, err := ws.Read(ctx); err != nil {
					return
				}
			}
		}()
		go keepAlive(ws, dropped)
		h.conns = append(h.conns, ws)
		h.dropped = append(h.dropped, dropped)
	}
	return h
}

func (h *idle) close() int {
	open := 0
	for i, ws := range h.conns {
		select {
		case <-h.dropped[i]:
		default:
			open++
		}
		ws.CloseNow()
		<-h.dropped[i]
	}
	return open
}

// chatRoom is the --dev agent holding belair's maxPerAgent (3)
// conversations, each with a visitor's socket. A chat call is one message
// until the other side's socket delivers it: the visitor's when that
// visitor has sent fewer than 9 in the last minute, the agent's otherwise;
// the report counts the two apart. The product allows a visitor 20 a
// minute (chat.VisitorMessageLimit) on throttle's estimate of a sliding
// window (this minute's count plus the last one's, weighted, refused
// attempts included): 9 in any 60 s keeps it under 20; 18 did not (runs
// past a minute were refused RATE_LIMITED).
type chatRoom struct {
	agent    *websocket.Conn
	visitors []*chatVisitor
	mu       sync.Mutex
	waiting  map[string]chan struct{}
	errors   map[string]int // error frames by code
	cancel   context.CancelFunc
	readers  sync.WaitGroup
	sequence atomic.Int64
}

type chatVisitor struct {
	id     string // the conversation
	client *client
	ws     *websocket.Conn
	mu     sync.Mutex
	sent   []time.Time // the visitor's messages of the last minute
}

const chatConversations = 3

func newChatRoom(t *testing.T, sc *scenario) *chatRoom {
	t.Helper()
	ctx := context.Background()
	aip, agent := sc.agentIP, sc.agent
	rctx, cancel := context.WithCancel(ctx)
	r := &chatRoom{agent: openSocket(t, agent, aip, "/api/console/v1/chat/socket"), waiting: map[string]chan struct{}{}, errors: map[string]int{}, cancel: cancel}
	// Available again (the last run's socket closed) and beating at once.
	if a, err := agent.json(ctx, setup.lb, "PUT", "/api/console/v1/chat/availability",
		`{"status":"available","languages":["en","fr"]}`); err != nil || a.status >= 300 {
		t.Fatalf("agent availability: %d %v %v", a.status, a.body, err)
	}
	if err := r.agent.Write(ctx, websocket.MessageText, []byte(`{"type":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	for range chatConversations {
		vip, visitor := sc.clientAt("belair.localhost")
		a, err := visitor.json(ctx, setup.lb, "POST", "/api/v1/chat/conversations", `{"name":"Load","topic":"claims"}`)
		if err != nil || (a.status != 201 && a.status != 200) {
			t.Fatalf("start a chat: %d %v %v", a.status, a.body, err)
		}
		a, err = visitor.json(ctx, setup.lb, "POST", "/api/v1/chat/conversation/handover", "")
		if err != nil || a.status != 200 {
			t.Fatalf("handover to an agent: %d %v %v", a.status, a.body, err)
		}
		id, _ := a.body["id"].(string)
		v := &chatVisitor{id: id, client: visitor, ws: openSocket(t, visitor, vip, "/api/v1/chat/socket?after=0")}
		r.visitors = append(r.visitors, v)
		a, err = agent.json(ctx, setup.lb, "POST", "/api/console/v1/chat/conversations/"+id+"/accept", "")
		if err != nil || a.status != 200 {
			t.Fatalf("accept: %d %v %v", a.status, a.body, err)
		}
		raw, _ := json.Marshal(map[string]any{"type": "subscribe", "conversationId": id, "after": 0})
		if err := r.agent.Write(ctx, websocket.MessageText, raw); err != nil {
			t.Fatal(err)
		}
		r.readers.Add(2)
		go r.read(rctx, v.ws)
		go func() { defer r.readers.Done(); keepAlive(v.ws, rctx.Done()) }()
	}
	r.readers.Add(2)
	go r.read(rctx, r.agent)
	go func() { defer r.readers.Done(); keepAlive(r.agent, rctx.Done()) }()
	return r
}

// read delivers the message frames of one socket to their waiters.
func (r *chatRoom) read(ctx context.Context, ws *websocket.Conn) {
	defer r.readers.Done()
	for {
		_, raw, err := ws.Read(ctx)
		if err != nil {
			return
		}
		var f struct {
			frame
			ErrorCode string `json:"errorCode"`
			Code      string `json:"code"`
		}
		if json.Unmarshal(raw, &f) != nil {
			continue
		}
		if f.Type == "error" {
			r.mu.Lock()
			r.errors[f.ErrorCode+f.Code]++
			r.mu.Unlock()
			continue
		}
		if f.Type != "message" {
			continue
		}
		r.mu.Lock()
		if ch, ok := r.waiting[f.Body]; ok {
			close(ch)
			delete(r.waiting, f.Body)
		}
		r.mu.Unlock()
	}
}

// keepAlive sends the widget's and the console's ping frame every 20 s
// (the instances close a socket silent for 75 s: sockets.IdleTimeout, and
// an agent whose socket stops beating is no longer available) until done.
func keepAlive(ws *websocket.Conn, done <-chan struct{}) {
	tick := time.NewTicker(20 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := ws.Write(ctx, websocket.MessageText, []byte(`{"type":"ping"}`))
			cancel()
			if err != nil {
				return
			}
		}
	}
}

// visitorMay records a message of v now when v's budget allows it.
func (v *chatVisitor) visitorMay(now time.Time) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	kept := v.sent[:0]
	for _, at := range v.sent {
		if now.Sub(at) < time.Minute {
			kept = append(kept, at)
		}
	}
	v.sent = kept
	if len(v.sent) >= 9 {
		return false
	}
	v.sent = append(v.sent, now)
	return true
}

// exchange sends one message in conversation i%3 and waits, at most 5 s,
// for the other side to get it: the call's kind ("chat-visitor" or
// "chat-agent") and 200 when it did, 0 when not.
func (r *chatRoom) exchange(ctx context.Context, i int) (string, int) {
	v := r.visitors[i%len(r.visitors)]
	n := r.sequence.Add(1)
	body := fmt.Sprintf("load message %d", n)
	ch := make(chan struct{})
	r.mu.Lock()
	r.waiting[body] = ch
	r.mu.Unlock()
	msg := map[string]any{"type": "message", "clientId": fmt.Sprintf("l%d", n), "body": body}
	kind, ws := "chat-visitor", v.ws
	if i%2 == 1 || !v.visitorMay(time.Now()) {
		kind, ws, msg["conversationId"] = "chat-agent", r.agent, v.id
	}
	raw, _ := json.Marshal(msg)
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := ws.Write(wctx, websocket.MessageText, raw); err != nil {
		return kind, 0
	}
	select {
	case <-ch:
		return kind, 200
	case <-wctx.Done():
		return kind, 0
	}
}

// close ends the conversations (the agent is free for the next run's).
func (r *chatRoom) close() map[string]int {
	for _, v := range r.visitors {
		_, _ = v.client.json(context.Background(), setup.lb, "POST", "/api/v1/chat/conversation/end", "")
	}
	r.cancel()
	for _, v := range r.visitors {
		v.ws.CloseNow()
	}
	r.agent.CloseNow()
	r.readers.Wait()
	return r.errors
}

// results are a run's outcomes by call type.
type results struct {
	byKind               map[string][]outcome
	rate                 int
	duration, elapsed    time.Duration
	idleOpen, idleWanted int
}

func (r *results) failures() int {
	bad := 0
	for kind, outs := range r.byKind {
		for _, o := range outs {
			// A right password's sign-in ends at /my-account (303) or is
			// shed (429); anything else is a failure too.
			if o.status == 0 || o.status >= 500 || kind == "sign-in" && o.status != 303 && o.status != 429 {
				bad++
			}
		}
	}
	return bad
}

// count is the number of calls answered status.
func (r *results) count(status int) int {
	n := 0
	for _, o := range r.all() {
		if o.status == status {
			n++
		}
	}
	return n
}

func (r *results) all() []outcome {
	var all []outcome
	for _, outs := range r.byKind {
		all = append(all, outs...)
	}
	return all
}

// throughput is calls answered a second over the run (the last answer
// included).
func (r *results) throughput() float64 {
	return float64(len(r.all())) / r.elapsed.Seconds()
}

func (r *results) overallP99() time.Duration { return percentile(r.all(), 0.99) }

// percentile of the latencies (nearest rank on the sorted samples).
func percentile(outs []outcome, q float64) time.Duration {
	if len(outs) == 0 {
		return 0
	}
	l := make([]time.Duration, len(outs))
	for i, o := range outs {
		l[i] = o.latency
	}
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	k := int(float64(len(l))*q+0.999999) - 1
	return l[min(max(k, 0), len(l)-1)]
}

func (r *results) print(t *testing.T, name string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "load %s: %d calls in %.1f s (%.1f/s), idle sockets open at the end %d/%d\n",
		name, len(r.all()), r.elapsed.Seconds(), r.throughput(), r.idleOpen, r.idleWanted)
	fmt.Fprintf(&b, "  %-14s %6s %8s %8s %8s  %s\n", "call", "count", "p50", "p90", "p99", "statuses")
	kinds := make([]string, 0, len(r.byKind))
	for k := range r.byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	row := func(k string, outs []outcome) {
		st := map[int]int{}
		for _, o := range outs {
			st[o.status]++
		}
		codes := make([]int, 0, len(st))
		for s := range st {
			codes = append(codes, s)
		}
		sort.Ints(codes)
		var parts []string
		for _, s := range codes {
			label := strconv.Itoa(s)
			if s == 0 {
				label = "none"
			}
			parts = append(parts, fmt.Sprintf("%s:%d", label, st[s]))
		}
		fmt.Fprintf(&b, "  %-14s %6d %8s %8s %8s  %s\n", k, len(outs), ms(percentile(outs, .5)),
			ms(percentile(outs, .9)), ms(percentile(outs, .99)), strings.Join(parts, " "))
	}
	for _, k := range kinds {
		row(k, r.byKind[k])
	}
	row("all", r.all())
	t.Log(b.String())
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }
