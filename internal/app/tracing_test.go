package app

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"guichet/internal/chat/chatapi"
	"guichet/internal/devseed"
	"guichet/internal/emailtoken"
	"guichet/internal/testenv"
)

// otlpReceiver is an OTLP/HTTP trace receiver, as a collector's: it
// decodes every export request (protobuf) and keeps its spans, the bodies
// as they came, and how many connections were opened to it.
type otlpReceiver struct {
	srv    *httptest.Server
	conns  atomic.Int64
	mu     sync.Mutex
	bodies [][]byte
	spans  []*tracepb.Span
	// services are the service.name of the exports' resources.
	services map[string]bool
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	rc := &otlpReceiver{services: map[string]bool{}}
	rc.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" ||
			err != nil || proto.Unmarshal(body, &req) != nil {
			t.Errorf("OTLP receiver: %s %s (%s): not an export request", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
			http.Error(w, "not an OTLP/HTTP export", http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, body)
		for _, rs := range req.ResourceSpans {
			for _, kv := range rs.GetResource().GetAttributes() {
				if kv.Key == "service.name" {
					rc.services[kv.GetValue().GetStringValue()] = true
				}
			}
			for _, ss := range rs.ScopeSpans {
				rc.spans = append(rc.spans, ss.Spans...)
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	rc.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			rc.conns.Add(1)
		}
	}
	rc.srv.Start()
	t.Cleanup(rc.srv.Close)
	return rc
}

// otelVariables are the variables that configure tracing; each test sets
// the ones it means and unsets the others (a developer's shell may have
// some).
var otelVariables = []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED",
	"OTEL_TRACES_EXPORTER", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG",
	"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_COMPRESSION"}

func setOTel(t *testing.T, env map[string]string) {
	t.Helper()
	for _, k := range otelVariables {
		t.Setenv(k, "") // restored when the test ends
		if v, ok := env[k]; ok {
			t.Setenv(k, v)
		} else {
			os.Unsetenv(k)
		}
	}
}

const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
)

// tracedWorld is the served --dev application exporting its traces to a
// receiver, and a browser whose every request carries the caller's
// traceparent.
func tracedWorld(t *testing.T, databaseURL string, env map[string]string) (*rpWorld, *otlpReceiver, func() error) {
	t.Helper()
	rc := newOTLPReceiver(t)
	for k, v := range env {
		env[k] = strings.ReplaceAll(v, "RECEIVER", rc.srv.URL)
	}
	setOTel(t, env)
	a, addr, stop := servedDevApp(t, databaseURL)
	w := &rpWorld{t: t, a: a, addr: addr, port: addr[strings.LastIndex(addr, ":"):], browser: loopbackClient(addr, false)}
	// The caller's W3C traceparent, which HAProxy passes through as it came.
	w.browser.Transport = withHeader{next: w.browser.Transport, name: "traceparent", value: "00-" + callerTrace + "-" + callerSpan + "-01"}
	return w, rc, stop
}

// TestTracing: with OTEL_EXPORTER_OTLP_ENDPOINT set, a sign-in, a magic
// link's read, a chat socket and the outbox's delivery reach an OTLP
// receiver once the server has shut down (its flush: no wait on time): the
// request spans are named by their route patterns and are the children of
// the caller's traceparent; the database, hash and socket spans are the
// children of their request's; every log line of those requests carries
// their trace and span ids; and neither a span nor anything else the
// exporter sent holds the password, the login ticket, the token of the path,
// the chat cookie, the browser's other cookies or a customer's email. On
// SQLite and PostgreSQL.
func TestTracing(t *testing.T) { testenv.EachURL(t, true, checkTracing) }

func checkTracing(t *testing.T, databaseURL string) {
	logs := testenv.CaptureLog(t)
	w, rc, stop := tracedWorld(t, databaseURL, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "RECEIVER", "OTEL_SERVICE_NAME": "guichet-test"})
	ctx := t.Context()

	// A real sign-in (find, password, the SSO form post with its ticket).
	found := must200(t, w, "POST", "/api/v1/accounts/find", `{"email":"`+demoEmail+`"}`)
	auth := must200(t, w, "POST", "/api/v1/accounts/"+found["id"].(string)+"/authentication", `{"password":"`+demoPassword+`"}`)
	ticket := auth["loginTicket"].(string)
	res, err := w.browser.PostForm(w.issuer("belair")+"/pkmslogin.form", map[string][]string{"login-form-type": {"pwd"},
		"username": {demoEmail}, "password": {demoPassword}, "ticket": {ticket}})
	if err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("SSO form post: %v %v", res, err)
	}
	res.Body.Close()
	must200(t, w, "GET", "/api/v1/me", "")

	// A magic link: its token in the request's path; its email delivered.
	b, _ := w.a.Brands.ByID("belair")
	issued, err := TokenService(w.a.cfg, w.a.DB, w.a.Brands, nil).Issue(ctx, emailtoken.Request{Brand: "belair",
		PolicyNumber: devseed.PolicyNumber(b, "TOK", 1), Email: "tok-new@belair.example", Source: "edoc", Send: true,
		IssuedBy: emailtoken.IssuedByCLI})
	if err != nil {
		t.Fatal(err)
	}
	if status, out := w.api("belair", "GET", "/api/v1/tokens/"+issued.Token, ""); status != http.StatusOK {
		t.Fatalf("token read: %d %v", status, out)
	}
	w.mailTo(emailtoken.Template("edoc"), "tok-new@belair.example")

	// A chat socket: accepted, then closed (no such conversation).
	chatSecret := "chat-secret-" + hex.EncodeToString([]byte(callerSpan))
	conn, _, err := websocket.Dial(ctx, "ws://belair.localhost"+w.port+"/api/v1/chat/socket", &websocket.DialOptions{
		HTTPClient: w.browser, HTTPHeader: http.Header{"Origin": {w.issuer("belair")},
			"Cookie": {chatapi.DevCookieName + "=" + chatSecret}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := conn.Read(ctx); websocket.CloseStatus(err) != chatapi.CloseUnknown {
		t.Fatalf("chat socket: %v", err)
	}

	if err := stop(); err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if !rc.services["guichet-test"] {
		t.Errorf("resources' services %v, want OTEL_SERVICE_NAME's", rc.services)
	}

	// No secret anywhere in what the exporter sent: nor the customers'
	// emails, nor the browser's cookies (its session among them).
	secrets := []string{demoPassword, ticket, issued.Token, chatSecret, demoEmail, "tok-new@belair.example"}
	site, err := url.Parse(w.issuer("belair"))
	if err != nil {
		t.Fatal(err)
	}
	cookies := w.browser.Jar.Cookies(site)
	if len(cookies) == 0 {
		t.Fatal("the browser holds no cookie of the portal after signing in")
	}
	for _, c := range cookies {
		if len(c.Value) >= 16 {
			secrets = append(secrets, c.Value)
		}
	}
	if len(secrets) == 6 {
		t.Fatalf("no session-like cookie among %d", len(cookies))
	}
	for _, secret := range secrets {
		for _, body := range rc.bodies {
			if bytes.Contains(body, []byte(secret)) {
				t.Errorf("an export holds a secret (%.6s…)", secret)
			}
		}
	}

	byID := map[string]*tracepb.Span{}
	for _, s := range rc.spans {
		byID[hex.EncodeToString(s.SpanId)] = s
	}
	parent := func(s *tracepb.Span) *tracepb.Span { return byID[hex.EncodeToString(s.ParentSpanId)] }
	// The request spans: the caller's children, named by their routes.
	requests := map[string]*tracepb.Span{}
	for _, s := range rc.spans {
		if s.Kind != tracepb.Span_SPAN_KIND_SERVER || strings.HasPrefix(s.Name, "websocket ") {
			continue
		}
		if hex.EncodeToString(s.TraceId) != callerTrace || hex.EncodeToString(s.ParentSpanId) != callerSpan {
			t.Errorf("request span %s: trace %x parent %x, want the caller's", s.Name, s.TraceId, s.ParentSpanId)
		}
		if attr(s, "http.route") == "" || attr(s, "http.response.status_code") == "" {
			t.Errorf("request span %s lacks its route or status: %v", s.Name, s.Attributes)
		}
		requests[s.Name] = s
	}
	for _, name := range []string{"POST /api/v1/accounts/find", "POST /api/v1/accounts/{id}/authentication", "POST /pkmslogin.form",
		"GET /api/v1/me", "GET /api/v1/tokens/{token}", "GET /api/v1/chat/socket", "GET /_dev/mail.json"} {
		if requests[name] == nil {
			t.Errorf("no request span %q (spans: %v)", name, spanNames(rc.spans))
		}
	}
	// Their children: the password's hash wait and hash, the statements, the
	// socket's session.
	children := func(of *tracepb.Span) map[string]bool {
		out := map[string]bool{}
		for _, s := range rc.spans {
			if of != nil && parent(s) == of {
				out[s.Name] = true
			}
		}
		return out
	}
	if c := children(requests["POST /api/v1/accounts/{id}/authentication"]); !c["hash wait"] || !c["argon2id"] || !hasPrefix(c, "SELECT accounts", "transaction ") {
		t.Errorf("the password check's children: %v", c)
	}
	system := map[string]string{"": "sqlite"}[databaseURL]
	if system == "" {
		system = "postgresql"
	}
	for _, s := range rc.spans {
		if strings.HasPrefix(s.Name, "SELECT ") && attr(s, "db.system.name") != system {
			t.Errorf("statement span %s: db.system.name %q, want %s", s.Name, attr(s, "db.system.name"), system)
		}
	}
	if c := children(requests["GET /api/v1/tokens/{token}"]); !hasPrefix(c, "transaction UPDATE email_tokens") {
		t.Errorf("the token read's children: %v", c)
	}
	if c := children(requests["GET /api/v1/chat/socket"]); !c["websocket /api/v1/chat/socket"] {
		t.Errorf("the chat socket's children: %v", c)
	}
	// The outbox delivery: a trace of its own, its statements its children.
	var delivered bool
	for _, s := range rc.spans {
		if s.Name == "outbox delivery" && attr(s, "guichet.outbox.template") == emailtoken.Template("edoc") {
			delivered = len(s.ParentSpanId) == 0 && attr(s, "guichet.outbox.outcome") == "sent" && children(s)["UPDATE outbox"]
		}
	}
	if !delivered {
		t.Errorf("no outbox delivery span for the invitation with its outcome and statement (spans: %v)", spanNames(rc.spans))
	}

	// Every log line of the traced requests carries its request span's ids.
	requestLines := 0
	for line := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		var l map[string]any
		if json.Unmarshal([]byte(line), &l) != nil {
			continue
		}
		traced, _ := l["trace_id"].(string)
		spanID, _ := l["span_id"].(string)
		span := byID[spanID]
		if l["msg"] == "request" {
			requestLines++
			if traced != callerTrace || span == nil || span.Kind != tracepb.Span_SPAN_KIND_SERVER {
				t.Errorf("request log line without its request span's ids: %s", line)
			}
		} else if traced != "" && (span == nil || hex.EncodeToString(span.TraceId) != traced) {
			t.Errorf("a log line whose ids are no exported span's: %s", line)
		}
	}
	if requestLines < len(requests) {
		t.Errorf("%d request log lines, want %d", requestLines, len(requests))
	}
}

// TestTracingOffByDefault: without an endpoint, with OTEL_SDK_DISABLED=true
// or with OTEL_TRACES_EXPORTER=none, no exporter runs: nothing connects to
// the receiver (the control, with only the endpoint, does), no log line
// carries a trace id, and an unknown protocol stops the start.
func TestTracingOffByDefault(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		on   bool
	}{
		{"unset", map[string]string{}, false},
		{"disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "RECEIVER", "OTEL_SDK_DISABLED": "true"}, false},
		{"no exporter", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "RECEIVER/v1/traces", "OTEL_TRACES_EXPORTER": "none"}, false},
		{"control", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "RECEIVER/v1/traces"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			logs := testenv.CaptureLog(t)
			w, rc, stop := tracedWorld(t, "", c.env)
			if w.a.tracing.On() != c.on {
				t.Fatalf("tracing on: %v, want %v", w.a.tracing.On(), c.on)
			}
			must200(t, w, "POST", "/api/v1/accounts/find", `{"email":"`+demoEmail+`"}`)
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			if conns := rc.conns.Load(); (conns > 0) != c.on {
				t.Errorf("%d connections to the receiver, want some: %v", conns, c.on)
			}
			if traced := strings.Contains(logs.String(), `"trace_id":"`+callerTrace); traced != c.on {
				t.Errorf("trace ids in the logs: %v, want %v", traced, c.on)
			}
		})
	}
	setOTel(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
	if _, err := newApp(context.Background(), Config{DataDir: t.TempDir(), BrandsDir: "../../config/brands", Mail: "log"}); err == nil ||
		!strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_PROTOCOL") {
		t.Fatalf("New with a gRPC protocol: %v", err)
	}
}

// must200 is the browser's API call, which must answer 200.
func must200(t *testing.T, w *rpWorld, method, path, body string) map[string]any {
	t.Helper()
	status, out := w.api("belair", method, path, body)
	if status != http.StatusOK {
		t.Fatalf("%s %s: %d %v", method, path, status, out)
	}
	return out
}

// attr is a span attribute's value as text ("" when absent).
func attr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			switch v := kv.Value.Value.(type) {
			case *commonpb.AnyValue_StringValue:
				return v.StringValue
			default:
				return kv.Value.String()
			}
		}
	}
	return ""
}

func spanNames(spans []*tracepb.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

// hasPrefix: one of names starts with each prefix given.
func hasPrefix(names map[string]bool, prefixes ...string) bool {
	for _, p := range prefixes {
		found := false
		for n := range names {
			found = found || strings.HasPrefix(n, p)
		}
		if !found {
			return false
		}
	}
	return true
}
