package cobrowse

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"guichet/config"
	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/chat"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/testclock"
	"guichet/internal/throttle"
)

// tuesday10 is a Tuesday at 10:00 in Toronto (chat open in on).
var tuesday10 = time.Date(2026, 11, 24, 15, 0, 0, 0, time.UTC)

// env is co-browse and chat on a fresh database behind an HTTP server:
// brand hosts "<brand>.test" and, with X-Test-Staff, the staff member
// (internal/app's tests run the real session middleware).
type env struct {
	t      *testing.T
	db     *store.DB
	clock  *testclock.Clock
	brands *brand.Registry
	record map[string]bool
	chat   *chat.Service
	svc    *Service
	hub    *Hub
	srv    *httptest.Server
	mu     sync.Mutex
	staff  map[string]staff.Principal
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	reg, err := brand.LoadFS(config.Brands(), "embedded")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, db: db, clock: testclock.At(tuesday10), brands: reg, record: map[string]bool{}, staff: map[string]staff.Principal{}}
	e.chat = &chat.Service{DB: db, Brands: reg.ByID, Now: e.clock.Now, Limiter: throttle.New(db, e.clock.Now), Notifier: &chat.LocalNotifier{}}
	brands := func(id string) (*brand.Brand, bool) {
		b, ok := reg.ByID(id)
		e.mu.Lock()
		defer e.mu.Unlock()
		if ok && e.record[id] {
			c := *b
			c.Cobrowse.Record = true
			b = &c
		}
		return b, ok
	}
	if e.svc, err = New(context.Background(), db, e.chat, brands, e.clock.Now); err != nil {
		t.Fatal(err)
	}
	e.hub = NewHub(e.svc)
	t.Cleanup(e.hub.Shutdown)
	v := &Handler{Service: e.svc, Hub: e.hub}
	c := &ConsoleHandler{Service: e.svc, Hub: e.hub}
	mux := http.NewServeMux()
	for p, h := range map[string]api.Handler{
		"POST /api/v1/cobrowse/sessions":              v.Start,
		"POST /api/v1/cobrowse/sessions/{id}/consent": v.Consent,
		"GET /api/v1/cobrowse/session":                v.Current,
		"POST /api/v1/cobrowse/session/end":           v.End,
		"GET /api/v1/cobrowse/socket":                 v.Socket,
		"POST /console/chat/{id}/cobrowse":            c.Request,
		"POST /console/join":                          c.Join,
		"POST /console/sessions/{id}/end":             c.End,
		"GET /console/sessions/{id}/socket":           c.Socket,
	} {
		mux.Handle(p, h)
	}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := strings.Cut(r.Host, ":")
		if b, ok := reg.ByID(strings.Split(host, ".")[0]); ok {
			r = r.WithContext(api.WithSite(r.Context(), api.Site{Brand: b, Province: "on", Language: "en", Dev: true}))
		}
		e.mu.Lock()
		p, ok := e.staff[r.Header.Get("X-Test-Staff")]
		e.mu.Unlock()
		if ok {
			r = r.WithContext(staff.WithPrincipal(r.Context(), p))
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *env) addStaff(id string, brands ...string) staff.Principal {
	e.t.Helper()
	_, err := e.db.Exec(context.Background(), `INSERT INTO staff_accounts (id, email, name, role, brands, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, id, id+"@example.com", "Agent "+id, "agent", strings.Join(brands, ","), 1, 1)
	if err != nil {
		e.t.Fatal(err)
	}
	p := staff.Principal{ID: id, Name: "Agent " + id, Email: id + "@example.com", Role: staff.RoleAgent, Brands: brands}
	e.mu.Lock()
	e.staff[id] = p
	e.mu.Unlock()
	return p
}

// client is a browser: on a brand host (visitor) or the console (staff).
type client struct {
	e       *env
	host    string
	staffID string
	cookies map[string]string
}

func (e *env) visitor(brandID string) *client {
	return &client{e: e, host: brandID + ".test", cookies: map[string]string{}}
}

func (e *env) agent(p staff.Principal) *client {
	return &client{e: e, host: "console.test", staffID: p.ID, cookies: map[string]string{}}
}

func (c *client) header() http.Header {
	h := http.Header{}
	for k, v := range c.cookies {
		h.Add("Cookie", k+"="+v)
	}
	if c.staffID != "" {
		h.Set("X-Test-Staff", c.staffID)
	}
	return h
}

func (c *client) do(method, path, body string) (int, map[string]any) {
	c.e.t.Helper()
	req, err := http.NewRequest(method, c.e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		c.e.t.Fatal(err)
	}
	req.Host = c.host
	req.Header = c.header()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", "198.51.100.7")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer res.Body.Close()
	for _, k := range res.Cookies() {
		c.cookies[k.Name] = k.Value
	}
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

func (c *client) want(method, path, body string, status int, code string) map[string]any {
	c.e.t.Helper()
	got, out := c.do(method, path, body)
	if got != status || code != "" && out["errorCode"] != code {
		c.e.t.Fatalf("%s %s: %d %v; want %d %s", method, path, got, out, status, code)
	}
	return out
}

type ws struct {
	t    *testing.T
	conn *websocket.Conn
}

func (c *client) dial(path string) (*ws, *http.Response, error) {
	c.e.t.Helper()
	h := c.header()
	h.Set("Origin", "http://"+c.host)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(c.e.srv.URL, "http")+path,
		&websocket.DialOptions{Host: c.host, HTTPHeader: h})
	if err != nil {
		return nil, res, err
	}
	conn.SetReadLimit(4 << 20)
	w := &ws{t: c.e.t, conn: conn}
	c.e.t.Cleanup(func() { conn.CloseNow() })
	return w, res, nil
}

func (c *client) socket(path string) *ws {
	c.e.t.Helper()
	w, res, err := c.dial(path)
	if err != nil {
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		c.e.t.Fatalf("dial %s: %v (%d)", path, err, status)
	}
	return w
}

func (w *ws) read() map[string]any {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, data, err := w.conn.Read(ctx)
	if err != nil {
		w.t.Fatalf("read: %v", err)
	}
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		w.t.Fatal(err)
	}
	return f
}

// next reads frames until one of type typ.
func (w *ws) next(typ string) map[string]any {
	w.t.Helper()
	for {
		if f := w.read(); f["type"] == typ {
			return f
		}
	}
}

// nextState reads until a state frame of status.
func (w *ws) nextState(status string) map[string]any {
	w.t.Helper()
	for {
		if f := w.next("state"); f["status"] == status {
			return f
		}
	}
}

func (w *ws) send(v any) {
	w.t.Helper()
	b, _ := json.Marshal(v)
	w.sendRaw(b)
}

func (w *ws) sendRaw(b []byte) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.conn.Write(ctx, websocket.MessageText, b); err != nil {
		w.t.Fatal(err)
	}
}

// closeStatus reads until the socket closes and returns its close code.
func (w *ws) closeStatus() websocket.StatusCode {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		if _, _, err := w.conn.Read(ctx); err != nil {
			return websocket.CloseStatus(err)
		}
	}
}

// eventually waits (up to 10 s, then fails) for cond: what another
// goroutine records after a socket closes.
func (e *env) eventually(what string, cond func() bool) {
	e.t.Helper()
	for range 1000 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.t.Fatalf("never: %s", what)
}

func (e *env) count(q string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (e *env) session(id string) Session {
	e.t.Helper()
	s, err := e.svc.Get(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// codeSession is a belair visitor's session from the footer link, and the
// code they read to the agent.
func (e *env) codeSession() (*client, string, string) {
	e.t.Helper()
	v := e.visitor("belair")
	out := v.want("POST", "/api/v1/cobrowse/sessions", `{}`, 201, "")
	if v.cookies[DevCookieName] == "" || out["status"] != StatusWaiting {
		e.t.Fatalf("start: %v %v", out, v.cookies)
	}
	return v, out["id"].(string), out["code"].(string)
}

// activeCode is a code session the agent joined, the visitor's socket open.
func (e *env) activeCode(p staff.Principal) (*client, *ws, string) {
	e.t.Helper()
	v, id, code := e.codeSession()
	vs := v.socket("/api/v1/cobrowse/socket")
	vs.nextState(StatusWaiting)
	e.agent(p).want("POST", "/console/join", `{"code":"`+code+`"}`, 200, "")
	vs.nextState(StatusActive)
	return v, vs, id
}

// conversation is a chat conversation of brand held by agent p, and the
// visitor's chat cookie.
func (e *env) conversation(brandID string, p staff.Principal) (string, string) {
	e.t.Helper()
	ctx := context.Background()
	if err := e.chat.SetAvailability(ctx, p.ID, chat.AgentAvailable, []string{"en"}); err != nil {
		e.t.Fatal(err)
	}
	b, _ := e.brands.ByID(brandID)
	res, err := e.chat.Start(ctx, chat.StartInput{Brand: b, Province: "on", Language: "en", Name: "Alex", Topic: "Sign-in", IP: "198.51.100.7"})
	if err != nil {
		e.t.Fatal(err)
	}
	if res.Conversation.Status != chat.StatusActive {
		if _, err := e.chat.Accept(ctx, p, res.Conversation.ID); err != nil {
			e.t.Fatal(err)
		}
	}
	return res.Conversation.ID, res.Secret
}

// systemKeys are a conversation's system messages as key=name.
func (e *env) systemKeys(convID string) []string {
	e.t.Helper()
	msgs, err := e.chat.Messages(context.Background(), convID, 0, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		if m.Sender == chat.SenderSystem {
			out = append(out, m.SystemKey+"="+m.SystemName)
		}
	}
	return out
}
