package chatapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"guichet/config"
	"guichet/internal/api"
	"guichet/internal/chat"
	"guichet/internal/chat/bot"
	"guichet/internal/chat/hub"
	"guichet/internal/fanout/fanouttest"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/testenv"
	"guichet/internal/throttle"
)

// env is one chat service on a fresh site (fanouttest.Site: the database,
// its clock at testenv.ChatHours) with the routes in front: the visitor's
// routes on "<brand>.test" hosts (the brand resolved from the host's first
// label, province on, language from the test), and the agents' routes
// where the header X-Test-Staff names the signed-in staff member (the
// console's session middleware is internal/app's test).
type env struct {
	*fanouttest.Site
	svc *chat.Service
	hub *hub.Hub
	// mu is the tests' own (a test's hooks share state with its checks).
	mu sync.Mutex
}

// each runs fn on a fresh env on SQLite and PostgreSQL (testenv.Each).
func each(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	testenv.Each(t, func(t *testing.T, te *testenv.Env) { fn(t, newEnv(t, te.DB)) })
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	return newEnvWith(t, db, &chat.LocalNotifier{})
}

// newEnvWith is newEnv with its own chat.Notifier (an instance among several).
func newEnvWith(t *testing.T, db *store.DB, n chat.Notifier) *env {
	t.Helper()
	site := fanouttest.NewSite(t, db)
	svc := &chat.Service{DB: db, Brands: site.Brands.ByID, Now: site.Clock.Now, Limiter: throttle.New(db, site.Clock.Now), Notifier: n}
	e := &env{Site: site, svc: svc}
	e.hub = hub.New(svc)
	t.Cleanup(e.hub.Shutdown)
	e.Serve(e.handler(e.hub))
	return e
}

// otherInstance is the chat service of another instance on the same
// database: its notifications reach none of this env's sockets.
func (e *env) otherInstance() *chat.Service {
	return &chat.Service{DB: e.DB, Brands: e.svc.Brands, Now: e.Clock.Now, Notifier: &chat.LocalNotifier{}}
}

// sentFromOtherInstance is a conversation (id) whose visitor's socket (s)
// had the state and the agent's joining when the agent sent "from the
// other instance" through other (otherInstance): only a poll delivers it.
func (e *env) sentFromOtherInstance() (id string, s *ws, other *chat.Service) {
	e.T.Helper()
	marie, v, id := e.chatting("en")
	s = v.socket(0)
	s.Next("state")
	s.Next("message") // agent joined
	other = e.otherInstance()
	if _, err := other.AgentSend(context.Background(), marie, id, "", "from the other instance"); err != nil {
		e.T.Fatal(err)
	}
	return id, s, other
}

// handler serves the chat's routes the way internal/httpapi does, with the
// site and the staff member set by the test's front (fanouttest.Front).
func (e *env) handler(hub *hub.Hub) http.Handler {
	return e.handlerWith(hub, &ConsoleHandler{Service: e.svc, Hub: hub, AllBrands: e.Brands.All})
}

// handlerWith is handler with the agents' routes served by c.
func (e *env) handlerWith(hub *hub.Hub, c *ConsoleHandler) http.Handler {
	v := &VisitorHandler{Service: e.svc, Hub: hub}
	return e.Routes(map[string]api.Handler{
		"GET /api/v1/salesforceConfig":              v.Config,
		"POST /api/v1/chat/conversations":           v.Start,
		"GET /api/v1/chat/conversation":             v.Current,
		"POST /api/v1/chat/conversation/handover":   v.Handover,
		"POST /api/v1/chat/conversation/end":        v.End,
		"POST /api/v1/chat/conversation/transcript": v.Transcript,
		"POST /api/v1/chat/conversation/rating":     v.Rating,
		"POST /api/v1/chat/offline":                 v.Offline,
		"GET /api/v1/chat/socket":                   v.Socket,
		"GET /console/availability":                 c.GetAvailability,
		"PUT /console/availability":                 c.PutAvailability,
		"GET /console/queue":                        c.Queue,
		"POST /console/conversations/{id}/accept":   c.Accept,
		"POST /console/conversations/{id}/transfer": c.Transfer,
		"POST /console/conversations/{id}/end":      c.End,
		"POST /console/conversations/{id}/reply":    c.Reply,
		"GET /console/conversations/{id}":           c.Conversation,
		"GET /console/transcripts":                  c.Transcripts,
		"GET /console/figures":                      c.Figures,
		"GET /console/socket":                       c.Socket,
	})
}

// available makes an agent available in languages (a heartbeat now).
func (e *env) available(p staff.Principal, languages ...string) {
	e.T.Helper()
	if err := e.svc.SetAvailability(context.Background(), p.ID, chat.AgentAvailable, languages); err != nil {
		e.T.Fatal(err)
	}
}

// availableAgent creates an agent of every brand, available in languages.
func (e *env) availableAgent(id, name string, languages ...string) staff.Principal {
	e.T.Helper()
	p := e.AddStaff(id, name, staff.RoleAgent)
	e.available(p, languages...)
	return p
}

// visitor is a browser on a brand host: its chat cookie, language and
// address.
type visitor struct {
	e        *env
	host     string
	language string
	ip       string
	cookie   string
}

func (e *env) visitor(brandID string) *visitor {
	return &visitor{e: e, host: brandID + ".test", language: "en", ip: "198.51.100.7"}
}

// request is the visitor's request (body "" for none), with its cookie.
func (v *visitor) request(method, path, body string) testenv.Request {
	r := testenv.Request{Method: method, Path: path, Host: v.host, IP: v.ip, Headers: map[string]string{"language": v.language}}
	if body != "" {
		r.Body = body
	}
	if v.cookie != "" {
		r.Cookies = []*http.Cookie{{Name: DevCookieName, Value: v.cookie}}
	}
	return r
}

// do serves the visitor's request and keeps the chat cookie it sets.
func (v *visitor) do(method, path, body string) testenv.Answer {
	v.e.T.Helper()
	a := testenv.Do(v.e.T, v.e.H, v.request(method, path, body))
	if c := a.Cookie(DevCookieName); c != nil {
		v.cookie = c.Value
	}
	return a
}

// want is do, failing the test unless the answer has status (and code);
// it returns the JSON body.
func (v *visitor) want(method, path, body string, status int, code string) map[string]any {
	v.e.T.Helper()
	return v.do(method, path, body).Expect(v.e.T, status, code).JSON(v.e.T)
}

// start opens a conversation and returns its id.
func (v *visitor) start() string {
	v.e.T.Helper()
	return v.want("POST", "/api/v1/chat/conversations", `{"name":"Alex","topic":"Sign-in","page":"/login"}`, 201, "")["id"].(string)
}

// staffRequest is a request to an agents' route as a staff member.
func staffRequest(p staff.Principal, method, path, body string) testenv.Request {
	r := testenv.Request{Method: method, Path: path, Host: "console.test", Headers: map[string]string{"X-Test-Staff": p.ID}}
	if body != "" {
		r.Body = body
	}
	return r
}

// staffWant calls an agents' route as a staff member, failing the test
// unless the answer has status (and code); it returns the JSON body.
func (e *env) staffWant(p staff.Principal, method, path, body string, status int, code string) map[string]any {
	e.T.Helper()
	return testenv.Do(e.T, e.H, staffRequest(p, method, path, body)).Expect(e.T, status, code).JSON(e.T)
}

// ws is a test's WebSocket client.
type ws = fanouttest.WS

func (e *env) dial(path, host, origin, cookie string, header http.Header) (*ws, *http.Response, error) {
	return e.dialURL(e.Srv.URL, path, host, origin, cookie, header)
}

// newTestServer serves the env's routes with the agents' ones served by c.
func newTestServer(t *testing.T, e *env, c *ConsoleHandler) *httptest.Server {
	srv := httptest.NewServer(e.handlerWith(e.hub, c))
	t.Cleanup(srv.Close)
	return srv
}

// dialAt connects an agent's socket on srv.
func (e *env) dialAt(srv *httptest.Server, p staff.Principal) *ws {
	e.T.Helper()
	w, _, err := e.dialURL(srv.URL, "/console/socket", "console.test", "http://console.test", "", http.Header{"X-Test-Staff": {p.ID}})
	if err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(func() { w.Conn.CloseNow() })
	return w
}

func (e *env) dialURL(base, path, host, origin, cookie string, header http.Header) (*ws, *http.Response, error) {
	if header == nil {
		header = http.Header{}
	}
	if origin != "" {
		header.Set("Origin", origin)
	}
	if cookie != "" {
		header.Set("Cookie", DevCookieName+"="+cookie)
	}
	return fanouttest.Dial(e.T, base, path, host, header)
}

// visitorSocket connects a visitor's socket after seq.
func (v *visitor) socket(after int) *ws {
	v.e.T.Helper()
	w, _, err := v.e.dial("/api/v1/chat/socket?after="+strconv.Itoa(after), v.host, "http://"+v.host, v.cookie, nil)
	if err != nil {
		v.e.T.Fatal(err)
	}
	v.e.T.Cleanup(func() { w.Conn.CloseNow() })
	return w
}

// agentSocket connects an agent's socket.
func (e *env) agentSocket(p staff.Principal) *ws {
	e.T.Helper()
	return e.dialAt(e.Srv, p)
}

// realBot is the brands' chatbot (internal/chat/bot) on the sample FAQ files.
func realBot(t *testing.T, e *env) chat.Bot {
	t.Helper()
	var ids []string
	for _, b := range e.Brands.All() {
		ids = append(ids, b.ID)
	}
	b, err := bot.Load(config.Brands(), ids)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
