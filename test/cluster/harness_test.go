// Package cluster holds the cluster suites of issue 19 (docs/cluster.md):
// three `guichet serve` instances on one PostgreSQL behind HAProxy with
// deploy/haproxy.cfg, a real SMTP sink, and faults (kill -9, PostgreSQL
// stopped, SMTP down, rolling restart). scripts/cluster.sh (make cluster)
// starts PostgreSQL and HAProxy and runs them; without GUICHET_CLUSTER=1
// every test here skips, so `go test ./...` never needs that set-up.
package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"guichet/test/cluster/cpuquota"
)

// env is the set-up scripts/cluster.sh hands over.
type env struct {
	bin, databaseURL, lb, stats, smtpAddr, logDir, pgCtl string
	apps                                                 []string
}

var (
	cl    *cluster
	setup env
)

func TestMain(m *testing.M) {
	if os.Getenv("GUICHET_CLUSTER") != "1" {
		fmt.Println("cluster suites skipped: make cluster runs them (GUICHET_CLUSTER=1)")
		os.Exit(0)
	}
	setup = env{
		bin: os.Getenv("GUICHET_CLUSTER_BIN"), databaseURL: os.Getenv("GUICHET_CLUSTER_DATABASE_URL"),
		lb: os.Getenv("GUICHET_LB_BIND"), stats: os.Getenv("GUICHET_LB_STATS"),
		smtpAddr: os.Getenv("GUICHET_CLUSTER_SMTP"), logDir: os.Getenv("GUICHET_CLUSTER_LOGS"),
		pgCtl: os.Getenv("GUICHET_CLUSTER_PG_CTL"),
		apps:  []string{os.Getenv("GUICHET_APP1"), os.Getenv("GUICHET_APP2"), os.Getenv("GUICHET_APP3")},
	}
	var err error
	cl, err = startCluster(setup)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		if cl != nil {
			cl.stop()
		}
		os.Exit(1)
	}
	code := m.Run()
	cl.stop()
	os.Exit(code)
}

// cluster is what the suites drive: the instances and the SMTP sink.
type cluster struct {
	sink      *sink
	instances []*instance
}

// traces is the suites' OTLP receiver, set up before the first instance
// starts (every start passes its address).
var traces *traceReceiver

// traceReceiver is an OTLP/HTTP endpoint that keeps what the instances
// export (protobuf bodies, read as bytes: the tests look for a trace id
// in them). The instances trace only what a sampled caller asks (the
// parent-based sampler at ratio 0), so the suites cost no spans.
type traceReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newTraceReceiver() *traceReceiver {
	r := &traceReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil || req.URL.Path != "/v1/traces" {
			http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.bodies = append(r.bodies, body)
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	return r
}

// holds reports whether an export has carried b.
func (r *traceReceiver) holds(b []byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, body := range r.bodies {
		if bytes.Contains(body, b) {
			return true
		}
	}
	return false
}

func startCluster(e env) (*cluster, error) {
	for k, v := range map[string]string{"GUICHET_CLUSTER_BIN": e.bin, "GUICHET_CLUSTER_DATABASE_URL": e.databaseURL,
		"GUICHET_LB_BIND": e.lb, "GUICHET_LB_STATS": e.stats, "GUICHET_CLUSTER_SMTP": e.smtpAddr,
		"GUICHET_CLUSTER_LOGS": e.logDir} {
		if v == "" {
			return nil, fmt.Errorf("%s is not set (scripts/cluster.sh sets it)", k)
		}
	}
	traces = newTraceReceiver()
	c := &cluster{sink: newSink(e.smtpAddr)}
	if err := c.sink.start(); err != nil {
		return c, err
	}
	for i, addr := range e.apps {
		in := &instance{name: fmt.Sprintf("app%d", i+1), addr: addr}
		c.instances = append(c.instances, in)
		if err := in.setQuota(); err != nil {
			return c, err
		}
		if err := in.start(); err != nil {
			return c, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	return c, c.waitAllUp(ctx)
}

func (c *cluster) stop() {
	for _, in := range c.instances {
		in.terminate()
		if in.quota != nil {
			if err := in.quota.Remove(); err != nil {
				fmt.Fprintln(os.Stderr, "cluster: removing the quota group:", err)
			}
		}
	}
	traces.srv.Close()
	c.sink.stop()
}

// waitAllUp waits until HAProxy reports every instance UP (its health
// checks on /readyz passed twice).
func (c *cluster) waitAllUp(ctx context.Context) error {
	for {
		st, err := lbStates()
		up := 0
		for _, in := range c.instances {
			if st[in.name] == "UP" {
				up++
			}
		}
		if err == nil && up == len(c.instances) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("instances not all UP in HAProxy: %v (%v)", st, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// lbStates reads HAProxy's stats CSV: server name -> status (UP, DOWN...).
func lbStates() (map[string]string, error) {
	res, err := http.Get("http://" + setup.stats + "/stats;csv")
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	rows, err := readStats(res)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for name, row := range rows {
		out[name] = row[17]
	}
	return out, nil
}

// readStats reads the stats CSV's rows of the guichet backend's servers.
func readStats(res *http.Response) (map[string][]string, error) {
	r := csv.NewReader(bufio.NewReader(res.Body))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, row := range rows {
		if len(row) > 17 && row[0] == "guichet" && strings.HasPrefix(row[1], "app") {
			out[row[1]] = row
		}
	}
	return out, nil
}

// instance is one `guichet serve` process.
// clockShift moves the instances' clock (GUICHET_DEV_NOW, --dev only) to
// the next weekday noon in Toronto when the suites start, so belair's live
// chat (weekdays 08:00-20:00 there) is open whatever the hour of the run;
// every start of every instance uses the same shift, so they agree.
var clockShift = func() time.Duration {
	zone, err := time.LoadLocation("America/Toronto")
	if err != nil {
		return 0
	}
	now := time.Now().In(zone)
	noon := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, zone)
	for noon.Before(now) || noon.Weekday() == time.Saturday || noon.Weekday() == time.Sunday {
		noon = noon.AddDate(0, 0, 1)
	}
	return noon.Sub(now)
}()

type instance struct {
	name, addr string
	// bin and databaseURL, when set, replace setup's (the upgrade test
	// runs an older binary on a database of its own).
	bin, databaseURL string
	mu               sync.Mutex
	cmd              *exec.Cmd
	exited           chan struct{}
	starts           int
	// quota, in make load's quota mode (LOAD_CPU_QUOTA), is the cgroup
	// each start of the process is moved into.
	quota *cpuquota.Group
}

// setQuota makes the instance's quota group when LOAD_CPU_QUOTA (cores
// per instance) is set; a group that cannot be made stops the suites (the
// mode never measures without its quotas).
func (in *instance) setQuota() error {
	v := os.Getenv("LOAD_CPU_QUOTA")
	if v == "" {
		return nil
	}
	cores, err := strconv.ParseFloat(v, 64)
	if err != nil || cores <= 0 {
		return fmt.Errorf("LOAD_CPU_QUOTA=%q: want cores per instance, e.g. 0.25", v)
	}
	in.quota, err = cpuquota.New("/sys/fs/cgroup", fmt.Sprintf("guichet-load-%d-%s", os.Getpid(), in.name), cores)
	return err
}

func (in *instance) start() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.starts++
	logf, err := os.OpenFile(fmt.Sprintf("%s/%s.log", setup.logDir, in.name), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	bin, databaseURL := setup.bin, setup.databaseURL
	if in.bin != "" {
		bin = in.bin
	}
	if in.databaseURL != "" {
		databaseURL = in.databaseURL
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(),
		"GUICHET_DEV=1", // demo accounts and the brands' dev hosts; mail still goes to SMTP
		"GUICHET_ADDR="+in.addr, "GUICHET_ADMIN_ADDR=off",
		"GUICHET_DATABASE_URL="+databaseURL,
		"GUICHET_SMTP_URL=smtp://"+setup.smtpAddr+"?tls=none&from=no-reply@guichet.test",
		"GUICHET_TRUSTED_PROXIES=127.0.0.1/32",
		"GUICHET_DRAIN_SECONDS="+drainSeconds(),
		// Traces (docs/architecture.md "Tracing") of sampled callers only,
		// to the suite's receiver, exported every 200 ms.
		"OTEL_EXPORTER_OTLP_ENDPOINT="+traces.srv.URL, "OTEL_TRACES_SAMPLER=parentbased_traceidratio",
		"OTEL_TRACES_SAMPLER_ARG=0", "OTEL_BSP_SCHEDULE_DELAY=200",
		// The SMTP outage suite's retries: 2 s doubling, not 30 s, so the
		// outage need not last minutes to prove delivery after it.
		"GUICHET_OUTBOX_RETRY_SECONDS="+strconv.Itoa(int(outboxRetry.Seconds())),
		// Every instance on the same shifted clock (chat's opening hours
		// hold whenever the suites run), each start included.
		"GUICHET_DEV_NOW="+time.Now().Add(clockShift).Format(time.RFC3339Nano),
	)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Should the suites die, their instances die with them.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	if in.quota != nil {
		if err := in.quota.Add(cmd.Process.Pid); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			logf.Close()
			return err
		}
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(exited)
	}()
	in.cmd, in.exited = cmd, exited
	return nil
}

// down reports whether the process has exited.
func (in *instance) down() bool {
	in.mu.Lock()
	exited := in.exited
	in.mu.Unlock()
	select {
	case <-exited:
		return true
	default:
		return false
	}
}

// drainSeconds is the instances' GUICHET_DRAIN_SECONDS: 5 (the default),
// or CLUSTER_DRAIN_SECONDS (0 shows what the rolling restart costs without
// a drain).
func drainSeconds() string {
	if v := os.Getenv("CLUSTER_DRAIN_SECONDS"); v != "" {
		return v
	}
	return "5"
}

// kill9 kills the process (no drain, no clean-up) and waits for it.
func (in *instance) kill9() {
	in.mu.Lock()
	cmd, exited := in.cmd, in.exited
	in.mu.Unlock()
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-exited
}

// terminate is systemd's stop: SIGTERM, then the drain; it waits.
func (in *instance) terminate() {
	in.mu.Lock()
	cmd, exited := in.cmd, in.exited
	in.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// sink is the SMTP server the instances deliver to: it counts each
// Message-ID it accepted, and can be stopped and started again.
type sink struct {
	addr string
	mu   sync.Mutex
	srv  *smtp.Server
	seen map[string]int
	// last is the last message each recipient received, whole.
	last map[string]string
}

func newSink(addr string) *sink {
	return &sink{addr: addr, seen: map[string]int{}, last: map[string]string{}}
}

// recipients lists up to 10 addresses the sink received mail for.
func (s *sink) recipients() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.last {
		if len(out) == 10 {
			break
		}
		out = append(out, k)
	}
	return out
}

// lastTo is the last message to that address, "" before one came.
func (s *sink) lastTo(rcpt string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last[rcpt]
}

func (s *sink) start() error {
	s.mu.Lock()
	running := s.srv != nil
	s.mu.Unlock()
	if running {
		return nil
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &sinkSession{s: s}, nil }))
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.MaxMessageBytes = 1 << 20
	var l net.Listener
	var err error
	for range 50 { // the port may linger a moment after a stop
		if l, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.srv = srv
	s.mu.Unlock()
	go func() { _ = srv.Serve(l) }()
	return nil
}

func (s *sink) stop() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

// count is how many times the message with that Message-ID arrived.
func (s *sink) count(messageID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[messageID]
}

type sinkSession struct {
	s  *sink
	to []string
}

func (x *sinkSession) AuthPlain(string, string) error       { return nil }
func (x *sinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (x *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}
func (x *sinkSession) Reset()        { x.to = nil }
func (x *sinkSession) Logout() error { return nil }
func (x *sinkSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	br := bufio.NewReader(strings.NewReader(string(raw)))
	id := ""
	for {
		line, err := br.ReadString('\n')
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Message-Id") {
			id = strings.TrimSpace(v)
		}
		if err != nil || strings.TrimSpace(line) == "" {
			break
		}
	}
	x.s.mu.Lock()
	x.s.seen[id]++
	for _, to := range x.to {
		x.s.last[to] = string(raw)
	}
	x.s.mu.Unlock()
	return nil
}
