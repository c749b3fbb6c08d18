package app

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"guichet/internal/api"
	"guichet/internal/api/apitest"
	"guichet/internal/staff"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

// outageCalls are calls of a flow and of the console that each read the
// database first.
var outageCalls = []struct{ host, method, path, body string }{
	{"belair", "POST", "/api/v1/accounts/find", `{"email":"demo@belair.example"}`},
	{"belair", "POST", "/api/v1/accounts/password-reset", `{"email":"demo@belair.example"}`},
	{"belair", "POST", "/api/v1/accounts/" + placeholder + "/authentication", `{"password":"Wrong-Horse-9!"}`},
	{consoleHost, "GET", "/api/console/v1/session", ""},
	{consoleHost, "POST", "/api/console/v1/session", `{"email":"marie@example.com","password":"Console-Pass-2026!"}`},
}

// wantOutage makes each of outageCalls and wants testdata/api/answers.json's
// "outage" answer (503 UNAVAILABLE, which the SPA shows as the technical
// roadblock) with a Retry-After, never a bare 500.
func wantOutage(t *testing.T, a *App) {
	t.Helper()
	belair, _ := a.Brands.ByID("belair")
	wantStatus, wantBody := apitest.Answer(t, "outage")
	var scenarios []testenv.Scenario
	for _, c := range outageCalls {
		req := testenv.Request{Method: c.method, Path: c.path, Host: c.host, Body: c.body, Headers: map[string]string{}}
		if c.host == "belair" {
			req.Host = belair.Hosts[0]
			req.Headers["api-key"] = belair.APIKey
		} else {
			req.Cookies = []*http.Cookie{{Name: staff.CookieName, Value: "dead-session-token"}}
		}
		req.Headers["Content-Type"] = "application/json"
		req.Headers["Origin"] = "http://" + req.Host
		scenarios = append(scenarios, testenv.Scenario{Name: c.method + " " + c.path + " with the database gone", Request: req,
			Status: wantStatus, Headers: map[string]string{"Retry-After": strconv.Itoa(api.UnavailableRetryAfter)},
			After: func(t testing.TB, rec testenv.Answer) {
				var body any
				_ = json.Unmarshal(rec.Body, &body)
				if !reflect.DeepEqual(body, wantBody) {
					t.Fatalf("%s %s with the database gone: %d %s, want %d %v", c.method, c.path, rec.Status, rec.Body, wantStatus, wantBody)
				}
			}})
	}
	testenv.Run(t, a.Handler, scenarios...)
}

// TestDatabaseOutageIsUnavailable closes the database under the running
// application, on both databases: a flow's and the console's calls answer
// 503 UNAVAILABLE with Retry-After (the SPA's technical roadblock), not a
// bare 500.
func TestDatabaseOutageIsUnavailable(t *testing.T) {
	eachChat(t, func(t *testing.T, a *App, _ *testclock.Clock) {
		a.DB.Close()
		wantOutage(t, a)
	})
}

// TestPostgresGoneIsUnavailable: PostgreSQL reached through a relay that
// then stops (its port refuses, its connections reset), as a database
// server going down: the same 503 answers.
func TestPostgresGoneIsUnavailable(t *testing.T) {
	u, err := url.Parse(storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	relay := newRelay(t, u.Host)
	u.Host = relay.addr
	a := consoleApp(t, u.String(), testclock.At(testenv.ChatHours))
	relay.stop()
	wantOutage(t, a)
}

// relay forwards TCP connections to a server until stopped.
type relay struct {
	addr  string
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newRelay(t *testing.T, target string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{addr: ln.Addr().String(), ln: ln}
	t.Cleanup(r.stop)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			r.mu.Lock()
			r.conns = append(r.conns, c, s)
			r.mu.Unlock()
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
	return r
}

// stop closes the port and every connection through it.
func (r *relay) stop() {
	r.ln.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		c.Close()
	}
	r.conns = nil
}
