package cobrowse

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/chat"
	"guichet/internal/chat/chatapi"
	"guichet/internal/fanout/fanouttest"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/testenv"
	"guichet/internal/throttle"
)

// env is co-browse and chat on a fresh site (fanouttest.Site: the
// database, its clock at testenv.ChatHours, the routes behind the front):
// brand hosts "<brand>.test" and, with X-Test-Staff, the staff member
// (internal/app's tests run the real session middleware).
type env struct {
	*fanouttest.Site
	record map[string]bool
	chat   *chat.Service
	svc    *Service
	hub    *Hub
	mu     sync.Mutex // record's and check's
	// check, when set, answers a viewer socket's session re-check for the
	// staff id it opened with (the application's staff.Service.Check).
	check func(staffID string) (staff.Principal, error)
}

// each runs fn on a fresh env on SQLite and PostgreSQL (testenv.Each),
// one instance of the application.
func each(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	testenv.Each(t, func(t *testing.T, te *testenv.Env) { fn(t, newEnvWith(t, te.DB, &chat.LocalNotifier{})) })
}

// newEnvWith is the env of an instance with its own Notifier (one among
// several).
func newEnvWith(t *testing.T, db *store.DB, n chat.Notifier) *env {
	t.Helper()
	e := &env{Site: fanouttest.NewSite(t, db), record: map[string]bool{}}
	reg := e.Brands
	e.chat = &chat.Service{DB: db, Brands: reg.ByID, Now: e.Clock.Now, Limiter: throttle.New(db, e.Clock.Now), Notifier: n}
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
	var err error
	if e.svc, err = New(context.Background(), db, e.chat, brands, e.Clock.Now); err != nil {
		t.Fatal(err)
	}
	e.chat.OnEnd = e.svc.EndWithConversation
	e.chat.OnTransfer = e.svc.EndWithTransfer
	e.hub = NewHub(e.svc)
	t.Cleanup(e.hub.Shutdown)
	v := &Handler{Service: e.svc, Hub: e.hub}
	c := &ConsoleHandler{Service: e.svc, Hub: e.hub, Session: func(r *http.Request) func(context.Context) (staff.Principal, error) {
		id := r.Header.Get("X-Test-Staff")
		return func(context.Context) (staff.Principal, error) {
			e.mu.Lock()
			check := e.check
			e.mu.Unlock()
			if check == nil {
				return staff.Principal{ID: id, Role: staff.RoleAgent}, nil
			}
			return check(id)
		}
	}}
	e.Serve(e.Routes(map[string]api.Handler{
		"POST /api/v1/cobrowse/sessions":              v.Start,
		"POST /api/v1/cobrowse/sessions/{id}/consent": v.Consent,
		"GET /api/v1/cobrowse/session":                v.Current,
		"POST /api/v1/cobrowse/session/end":           v.End,
		"GET /api/v1/cobrowse/socket":                 v.Socket,
		"POST /console/chat/{id}/cobrowse":            c.Request,
		"POST /console/join":                          c.Join,
		"POST /console/sessions/{id}/end":             c.End,
		"GET /console/sessions/{id}/socket":           c.Socket,
	}))
	return e
}

func (e *env) addStaff(id string, brands ...string) staff.Principal {
	e.T.Helper()
	return e.AddStaff(id, "Agent "+id, staff.RoleAgent, brands...)
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

// do serves the client's request (body "" for none) from 198.51.100.7,
// with its cookies and staff member, and keeps the cookies it sets.
func (c *client) do(method, path, body string) testenv.Answer {
	c.e.T.Helper()
	req := testenv.Request{Method: method, Path: path, Host: c.host, IP: "198.51.100.7"}
	if body != "" {
		req.Body = body
	}
	for k, v := range c.cookies {
		req.Cookies = append(req.Cookies, &http.Cookie{Name: k, Value: v})
	}
	if c.staffID != "" {
		req.Headers = map[string]string{"X-Test-Staff": c.staffID}
	}
	a := testenv.Do(c.e.T, c.e.H, req)
	for _, k := range a.Cookies() {
		c.cookies[k.Name] = k.Value
	}
	return a
}

// want is do, failing the test unless the answer has status (and code);
// it returns the JSON body.
func (c *client) want(method, path, body string, status int, code string) map[string]any {
	c.e.T.Helper()
	return c.do(method, path, body).Expect(c.e.T, status, code).JSON(c.e.T)
}

type ws = fanouttest.WS

func (c *client) dial(path string) (*ws, *http.Response, error) {
	c.e.T.Helper()
	h := c.header()
	h.Set("Origin", "http://"+c.host)
	return fanouttest.Dial(c.e.T, c.e.Srv.URL, path, c.host, h)
}

func (c *client) socket(path string) *ws {
	c.e.T.Helper()
	w, res, err := c.dial(path)
	if err != nil {
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		c.e.T.Fatalf("dial %s: %v (%d)", path, err, status)
	}
	return w
}

func (e *env) session(id string) Session {
	e.T.Helper()
	s, err := e.svc.Get(context.Background(), id)
	if err != nil {
		e.T.Fatal(err)
	}
	return s
}

// codeSession is a belair visitor's session from the footer link, and the
// code they read to the agent.
func (e *env) codeSession() (*client, string, string) {
	e.T.Helper()
	v := e.visitor("belair")
	out := v.want("POST", "/api/v1/cobrowse/sessions", `{}`, 201, "")
	if v.cookies[DevCookieName] == "" || out["status"] != StatusWaiting {
		e.T.Fatalf("start: %v %v", out, v.cookies)
	}
	return v, out["id"].(string), out["code"].(string)
}

// activeCode is a code session the agent joined, the visitor's socket open.
func (e *env) activeCode(p staff.Principal) (*client, *ws, string) {
	e.T.Helper()
	return e.activeCodeVia(e, p)
}

// activeCodeVia is activeCode with the agent joining through another
// instance's server (agents: that instance's env).
func (e *env) activeCodeVia(agents *env, p staff.Principal) (*client, *ws, string) {
	e.T.Helper()
	v, id, code := e.codeSession()
	vs := v.socket("/api/v1/cobrowse/socket")
	vs.NextState(StatusWaiting)
	agents.agent(p).want("POST", "/console/join", `{"code":"`+code+`"}`, 200, "")
	vs.NextState(StatusActive)
	return v, vs, id
}

// conversation is a chat conversation of brand held by agent p, and the
// visitor's chat cookie.
func (e *env) conversation(brandID string, p staff.Principal) (string, string) {
	e.T.Helper()
	ctx := context.Background()
	if err := e.chat.SetAvailability(ctx, p.ID, chat.AgentAvailable, []string{"en"}); err != nil {
		e.T.Fatal(err)
	}
	b, _ := e.Brands.ByID(brandID)
	res, err := e.chat.Start(ctx, chat.StartInput{Brand: b, Province: "on", Language: "en", Name: "Alex", Topic: "Sign-in", IP: "198.51.100.7"})
	if err != nil {
		e.T.Fatal(err)
	}
	if res.Conversation.Status != chat.StatusActive {
		if _, err := e.chat.Accept(ctx, p, res.Conversation.ID); err != nil {
			e.T.Fatal(err)
		}
	}
	return res.Conversation.ID, res.Secret
}

// systemKeys are a conversation's system messages as key=name.
func (e *env) systemKeys(convID string) []string {
	e.T.Helper()
	msgs, err := e.chat.Messages(context.Background(), convID, 0, 0)
	if err != nil {
		e.T.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		if m.Sender == chat.SenderSystem {
			out = append(out, m.SystemKey+"="+m.SystemName)
		}
	}
	return out
}

// endedFor checks that each socket got the ended state with reason, then
// the close 1000.
func (e *env) endedFor(reason string, sockets ...*ws) {
	e.T.Helper()
	for _, w := range sockets {
		if f := w.NextState(StatusEnded); f["reason"] != reason {
			e.T.Fatalf("end: %v, want reason %s", f, reason)
		}
		w.ExpectClose(e.T, websocket.StatusNormalClosure, "after the ended state")
	}
}

// sharedChat is a scotia conversation held by p whose visitor accepted
// p's request and shares the screen, watched by p's viewer.
func (e *env) sharedChat(p staff.Principal) (convID, id string, vs, view *ws) {
	e.T.Helper()
	convID, chatSecret := e.conversation("scotia", p)
	id = e.agent(p).want("POST", "/console/chat/"+convID+"/cobrowse", "", 201, "")["id"].(string)
	v := e.visitor("scotia")
	v.cookies[chatapi.DevCookieName] = chatSecret
	v.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{"accept":true}`, 200, "")
	vs, view = e.watched(v, p, id)
	return convID, id, vs, view
}

// watched opens the visitor's socket of active session id and agent p's
// viewer, and sees one event go from one to the other.
func (e *env) watched(v *client, p staff.Principal, id string) (vs, view *ws) {
	e.T.Helper()
	vs = v.socket("/api/v1/cobrowse/socket")
	vs.NextState(StatusActive)
	view = e.agent(p).socket("/console/sessions/" + id + "/socket")
	vs.Next("snapshot")
	vs.Send(map[string]any{"type": "event", "data": map[string]any{"type": 2}})
	view.Next("event")
	return vs, view
}

// codeOf is the API error code the handlers answer err with (apiError).
func codeOf(err error) string {
	code, _ := errorCode(err)
	return code
}
