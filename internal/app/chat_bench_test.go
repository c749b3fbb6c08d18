package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/chat/chatapi"
	"guichet/internal/staff"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// The chat benchmarks of issue 17 (make bench, not CI):
//
//	GUICHET_BENCH=1 go test -run '^TestChatIdleSockets$' -v ./internal/app/
//	GUICHET_BENCH=1 go test -run '^TestChatLatency$' -v ./internal/app/
//
// The server runs in a process of its own (this test binary again, as
// TestChatBenchServer), so its resident memory is the server's alone;
// GUICHET_BENCH_POSTGRES=1 puts it on GUICHET_TEST_DATABASE_URL's database.
// GUICHET_BENCH_SOCKETS (default 5000) idle visitor sockets: resident
// memory per socket (VmRSS before and after, and the Go heap and stacks
// from /metrics), target at most 20 KB. GUICHET_BENCH_CONVERSATIONS
// (default 500) active conversations, each agent (3 conversations each, the
// brand's maxPerAgent) sending a message in each every 2 s for
// GUICHET_BENCH_SECONDS (default 20): sender (the agent's socket) to
// receiver (the visitor's socket) latency, target p99 at most 50 ms.

// chatBenchInfo is what the server process tells the benchmark.
type chatBenchInfo struct {
	Addr   string   `json:"addr"`
	Admin  string   `json:"admin"`
	Tokens []string `json:"tokens"`
}

const chatBenchConsole = "console.bench.test"

// TestChatBenchServer is the server process of the chat benchmarks: the
// application as `guichet serve` runs it (SQLite, or PostgreSQL), its clock
// on a Tuesday at 10:00 in Toronto (chat hours), GUICHET_BENCH_AGENTS staff
// members signed in; it prints chatBenchInfo and serves until stdin closes.
func TestChatBenchServer(t *testing.T) {
	if os.Getenv("GUICHET_BENCH_CHAT_SERVER") == "" {
		t.Skip("the chat benchmarks' server process")
	}
	devNull, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	slog.SetDefault(slog.New(slog.NewJSONHandler(devNull, nil)))
	cfg := benchConfig(t)
	cfg.ConsoleHost = chatBenchConsole
	if os.Getenv("GUICHET_BENCH_POSTGRES") != "" {
		cfg.DatabaseURL = storetest.PostgresURL(t)
	}
	start, real := testenv.ChatHours, time.Now()
	cfg.now = func() time.Time { return start.Add(time.Since(real)) }
	ctx, stop := context.WithCancel(context.Background())
	a, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr, served := goServe(ctx, a)
	info := chatBenchInfo{Addr: <-addr, Admin: a.AdminAddr()}
	n := envInt("GUICHET_BENCH_AGENTS", 0)
	info.Tokens = make([]string, n)
	concurrently(n, 4, func(i int) {
		_, token, err := a.Staff.Add(ctx, staff.NewMember{Email: fmt.Sprintf("agent%03d@example.com", i),
			Name: fmt.Sprintf("Agent %d", i), Role: staff.RoleAgent}, "cli")
		if err != nil {
			t.Error(err)
			return
		}
		setup, err := a.Staff.Setup(ctx, token)
		if err != nil {
			t.Error(err)
			return
		}
		opened, _, err := a.Staff.CompleteSetup(ctx, token, "Brand-New-Pass-2026!", staff.TOTP(setup.Secret, cfg.now()), fmt.Sprintf("10.200.%d.%d", i/250, i%250))
		if err != nil {
			t.Error(err)
			return
		}
		info.Tokens[i] = opened.Token
	})
	out, _ := json.Marshal(info)
	fmt.Println("CHATBENCH " + string(out))
	_, _ = io.Copy(io.Discard, os.Stdin)
	stop()
	<-served
}

// chatBench is the benchmark's side: the server process and a client.
type chatBench struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.Closer
	info   chatBenchInfo
	client *http.Client
	ips    int
	// dialIPs numbers the sockets' addresses (dial runs concurrently).
	dialIPs atomic.Int64
}

func startChatBench(t *testing.T, agents int) *chatBench {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChatBenchServer$", "-test.v")
	cmd.Env = append(os.Environ(), "GUICHET_BENCH_CHAT_SERVER=1", "GUICHET_BENCH_AGENTS="+strconv.Itoa(agents))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &chatBench{t: t, cmd: cmd, stdin: stdin, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "CHATBENCH "); ok {
			if err := json.Unmarshal([]byte(line), &b.info); err != nil {
				t.Fatal(err)
			}
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return b
		}
	}
	t.Fatal("the server process did not start")
	return nil
}

// rssKB is the server process's resident memory.
func (b *chatBench) rssKB() int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", b.cmd.Process.Pid))
	if err != nil {
		b.t.Fatal(err)
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(data)
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// metric reads one Go runtime figure of the server's /metrics.
func (b *chatBench) metric(name string) float64 {
	res, err := http.Get("http://" + b.info.Admin + "/metrics")
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		b.t.Fatalf("no %s in /metrics", name)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

// request calls the API on a brand host from an address of its own.
func (b *chatBench) request(method, host, apiKey, path, body string, cookie *http.Cookie) (*http.Response, map[string]any) {
	req, _ := http.NewRequest(method, "http://"+b.info.Addr+path, strings.NewReader(body))
	req.Host = host
	req.Header.Set("api-key", apiKey)
	req.Header.Set("Content-Type", "application/json")
	b.ips++
	req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", b.ips>>16&255, b.ips>>8&255, b.ips&255))
	if cookie != nil {
		req.AddCookie(cookie)
	}
	return sendJSON(b.t, b.client, req)
}

// startConversations opens n conversations on a brand and returns their
// visitor cookies and ids.
func (b *chatBench) startConversations(brandID string, n int) ([]*http.Cookie, []string) {
	reg, err := LoadBrands(Config{BrandsDir: "../../config/brands"})
	if err != nil {
		b.t.Fatal(err)
	}
	br, _ := reg.ByID(brandID)
	var cookies []*http.Cookie
	var ids []string
	for i := range n {
		res, out := b.request("POST", br.Hosts[0], br.APIKey, "/api/v1/chat/conversations", `{"name":"Visitor","topic":"Sign-in"}`, nil)
		if res.StatusCode != 201 {
			b.t.Fatalf("conversation %d: %d %v", i, res.StatusCode, out)
		}
		for _, c := range res.Cookies() {
			if c.Name == chatapi.CookieName {
				cookies = append(cookies, c)
			}
		}
		ids = append(ids, out["id"].(string))
	}
	return cookies, ids
}

// dial opens a socket from an address of its own (the server caps the
// sockets of one address: hub.MaxSocketsPerIP).
func (b *chatBench) dial(host, path string, cookie *http.Cookie) *websocket.Conn {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := b.dialIPs.Add(1)
	conn, _, err := websocket.Dial(ctx, "ws://"+b.info.Addr+path, &websocket.DialOptions{Host: host,
		HTTPHeader: http.Header{"Origin": {"http://" + host}, "Cookie": {cookie.Name + "=" + cookie.Value},
			"X-Forwarded-For": {fmt.Sprintf("10.128.%d.%d", n>>8&255, n&255)}}})
	if err != nil {
		b.t.Fatal(err)
	}
	conn.SetReadLimit(1 << 20)
	return conn
}

// concurrently calls fn(0) … fn(n-1) from goroutines, at most width at a
// time, and returns once every call has.
func concurrently(n, width int, fn func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, width)
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			fn(i)
		})
	}
	wg.Wait()
}

func TestChatIdleSockets(t *testing.T) {
	testenv.Bench(t)
	n := envInt("GUICHET_BENCH_SOCKETS", 5000)
	b := startChatBench(t, 0)
	cookies, _ := b.startConversations("belair", n) // the chatbot brand: no agent needed
	reg, _ := LoadBrands(Config{BrandsDir: "../../config/brands"})
	host := func() string { br, _ := reg.ByID("belair"); return br.Hosts[0] }()
	time.Sleep(3 * time.Second)
	rss0, heap0, stack0, g0 := b.rssKB(), b.metric("go_memstats_heap_inuse_bytes"), b.metric("go_memstats_stack_inuse_bytes"), b.metric("go_goroutines")
	conns := make([]*websocket.Conn, n)
	concurrently(n, 32, func(i int) {
		c := b.dial(host, "/api/v1/chat/socket?after=0", cookies[i])
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := readType(ctx, c, "message"); err != nil { // the bot's welcome: the socket is served
			t.Error(err)
		}
		conns[i] = c
	})
	time.Sleep(3 * time.Second)
	rss1, heap1, stack1, g1 := b.rssKB(), b.metric("go_memstats_heap_inuse_bytes"), b.metric("go_memstats_stack_inuse_bytes"), b.metric("go_goroutines")
	perRSS := float64(rss1-rss0) * 1024 / float64(n)
	perGo := (heap1 - heap0 + stack1 - stack0) / float64(n)
	t.Logf("%d idle visitor sockets: RSS %d -> %d MB, %.1f KB per socket; Go heap+stacks %.1f KB per socket (heap %.1f, stacks %.1f); goroutines %.0f -> %.0f (%.2f per socket)",
		n, rss0/1024, rss1/1024, perRSS/1024, perGo/1024, (heap1-heap0)/float64(n)/1024, (stack1-stack0)/float64(n)/1024, g0, g1, (g1-g0)/float64(n))
	if perRSS > 20*1024 {
		t.Errorf("%.1f KB of resident memory per idle socket; target 20 KB", perRSS/1024)
	}
	for _, c := range conns {
		if c != nil {
			c.CloseNow()
		}
	}
}

func TestChatLatency(t *testing.T) {
	testenv.Bench(t)
	convs := envInt("GUICHET_BENCH_CONVERSATIONS", 500)
	seconds := envInt("GUICHET_BENCH_SECONDS", 20)
	agents := (convs + 2) / 3
	b := startChatBench(t, agents)
	reg, _ := LoadBrands(Config{BrandsDir: "../../config/brands"})
	scotia, _ := reg.ByID("scotia")
	host := scotia.Hosts[0]
	agentCall := func(token, method, path, body string) map[string]any {
		req, _ := http.NewRequest(method, "http://"+b.info.Addr+path, strings.NewReader(body))
		req.Host = chatBenchConsole
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(&http.Cookie{Name: staff.CookieName, Value: token})
		res, out := sendJSON(t, b.client, req)
		if res.StatusCode != 200 {
			t.Fatalf("%s %s: %d %v", method, path, res.StatusCode, out)
		}
		return out
	}
	for _, token := range b.info.Tokens {
		agentCall(token, "PUT", "/api/console/v1/chat/availability", `{"status":"available","languages":["en"]}`)
	}
	cookies, ids := b.startConversations("scotia", convs)
	for i, id := range ids {
		agentCall(b.info.Tokens[i/3], "POST", "/api/console/v1/chat/conversations/"+id+"/accept", "")
	}
	// The visitors' sockets, each reading every frame and timing the
	// agents' messages (their body holds the send time).
	var mu sync.Mutex
	var lat []time.Duration
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var readers sync.WaitGroup
	for i := range convs {
		c := b.dial(host, "/api/v1/chat/socket?after=0", cookies[i])
		readers.Go(func() {
			defer c.CloseNow()
			for {
				_, data, err := c.Read(ctx)
				if err != nil {
					return
				}
				var f struct{ Type, Sender, Body string }
				_ = json.Unmarshal(data, &f)
				if f.Type == "message" && f.Sender == "agent" {
					sent, err := strconv.ParseInt(strings.TrimPrefix(f.Body, "t="), 10, 64)
					if err == nil {
						d := time.Since(time.Unix(0, sent))
						mu.Lock()
						lat = append(lat, d)
						mu.Unlock()
					}
				}
			}
		})
	}
	// The agents' sockets: subscribed to their conversations, each sends in
	// each of them every 2 s, staggered.
	var senders sync.WaitGroup
	end := time.Now().Add(time.Duration(seconds) * time.Second)
	for a, token := range b.info.Tokens {
		conn := b.dial(chatBenchConsole, "/api/console/v1/chat/socket", &http.Cookie{Name: staff.CookieName, Value: token})
		var mine []string
		for i := a * 3; i < min(a*3+3, convs); i++ {
			mine = append(mine, ids[i])
			_ = conn.Write(ctx, websocket.MessageText, []byte(`{"type":"subscribe","conversationId":"`+ids[i]+`","after":1000000}`))
		}
		go func() {
			for {
				if _, _, err := conn.Read(ctx); err != nil {
					return
				}
			}
		}()
		senders.Go(func() {
			defer conn.CloseNow()
			time.Sleep(time.Duration(a) * 2 * time.Second / time.Duration(len(b.info.Tokens)))
			tick := time.NewTicker(2 * time.Second)
			defer tick.Stop()
			n := 0
			for time.Now().Before(end) {
				for _, id := range mine {
					n++
					msg := fmt.Sprintf(`{"type":"message","conversationId":"%s","clientId":"%d-%d","body":"t=%d"}`, id, a, n, time.Now().UnixNano())
					if err := conn.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
						return
					}
				}
				<-tick.C
			}
		})
	}
	senders.Wait()
	time.Sleep(2 * time.Second)
	stop()
	readers.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(lat) == 0 {
		t.Fatal("no message arrived")
	}
	slices.Sort(lat)
	q := func(p float64) time.Duration { return lat[min(int(p*float64(len(lat))), len(lat)-1)] }
	want := float64(convs) * float64(seconds) / 2
	t.Logf("load average (1, 5, 15 min) at the end: %s", loadAverage())
	t.Logf("%d active conversations (%d agents), %d messages (%.0f/s) agent socket -> visitor socket: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms",
		convs, agents, len(lat), float64(len(lat))/float64(seconds), ms(q(0.5)), ms(q(0.9)), ms(q(0.99)), ms(lat[len(lat)-1]))
	if float64(len(lat)) < 0.95*want {
		t.Errorf("%d messages arrived of about %.0f sent", len(lat), want)
	}
	if q(0.99) > 50*time.Millisecond {
		t.Errorf("p99 %.1f ms; target 50 ms", ms(q(0.99)))
	}
}

// loadAverage is /proc/loadavg's first three figures: a latency figure
// means little without what else the two cores were doing.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
