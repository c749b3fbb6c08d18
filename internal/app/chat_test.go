package app

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/audit"
	"guichet/internal/chat/chatapi"
	"guichet/internal/maintenance"
	"guichet/internal/staff"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

// eachChat runs fn on a console app whose clock stands in chat hours.
func eachChat(t *testing.T, fn func(t *testing.T, a *App, clock *testclock.Clock)) {
	eachConsoleAt(t, func() *testclock.Clock { return testclock.At(testenv.ChatHours) }, fn)
}

// dialVia opens a WebSocket to host through srv (whatever the host's name
// resolves to), with headers.
func dialVia(srv *httptest.Server, host, path string, h http.Header) (*websocket.Conn, *http.Response, error) {
	addr := strings.TrimPrefix(srv.URL, "http://")
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return websocket.Dial(ctx, "ws://"+host+path, &websocket.DialOptions{HTTPClient: client, HTTPHeader: h})
}

// waitingVisitor opens the socket of the visitor whose chat cookie is
// secret (closed when the test ends) and reads its conversation waiting.
func waitingVisitor(t *testing.T, srv *httptest.Server, host, secret string) *websocket.Conn {
	t.Helper()
	vs := dialed(t, srv, host, "/api/v1/chat/socket?after=0",
		http.Header{"Origin": {"http://" + host}, "Cookie": {chatapi.CookieName + "=" + secret}})
	if st := readFrame(t, vs, "state"); st["status"] != "waiting" {
		t.Fatalf("state %v", st)
	}
	return vs
}

func readFrame(t *testing.T, c *websocket.Conn, typ string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := readType(ctx, c, typ)
	if err != nil {
		t.Fatalf("read %s: %v", typ, err)
	}
	return f
}

// TestChatThroughTheWholeHandler: the chat's routes in the application's
// route table, behind every middleware: the visitor's socket hijacks
// through the wrapped writers on a brand host (no api key; Origin and the
// chat cookie checked; 503 under maintenance) and does not exist on the
// console host; the agents' routes want a staff session but no fresh
// second factor and do not exist on brand hosts; a message goes from the
// agent's socket to the visitor's.
func TestChatThroughTheWholeHandler(t *testing.T) {
	eachChat(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		ctx := context.Background()
		srv, agent, token := marieServed(t, a, clock)
		me := agent.want("GET", "/api/console/v1/session", "", 200, "")
		staffID, staffName := me["id"].(string), me["name"].(string)

		// No session: 401. A factor 20 minutes old: chat calls still work,
		// other console changes ask for it again.
		newBrowser(t, a, consoleHost).want("GET", "/api/console/v1/chat/queue", "", 401, "SIGN_IN_REQUIRED")
		clock.Advance(10 * time.Minute)
		agent.want("GET", "/api/console/v1/chat/queue", "", 200, "")
		clock.Advance(10 * time.Minute)
		agent.want("PUT", "/api/console/v1/chat/availability", `{"status":"available","languages":["en","fr"]}`, 200, "")
		agent.want("POST", "/api/console/v1/maintenance", `{"brand":"belair","on":true}`, 401, "REAUTH_REQUIRED")
		// The brand host has no agents' routes; the console host no visitor's.
		visitor := siteBrowser(t, a, "belair")
		host := visitor.host
		visitor.cookies[staff.CookieName] = token
		visitor.want("GET", "/api/console/v1/chat/queue", "", 404, "")
		agent.want("GET", "/api/v1/salesforceConfig", "", 404, "")
		agent.want("GET", "/api/v1/chat/socket", "", 404, "")

		chatOpen := visitor.want("GET", "/api/v1/salesforceConfig", "", 200, "")["chat"].(map[string]any)
		if chatOpen["open"] != true {
			t.Fatalf("chat %v", chatOpen)
		}
		started := visitor.want("POST", "/api/v1/chat/conversations", `{"name":"Alex","topic":"Sign-in"}`, 201, "")
		secret := visitor.cookies[chatapi.CookieName]
		if secret == "" || started["status"] != "bot" {
			t.Fatalf("started %v, cookie %q", started, secret)
		}
		visitor.want("POST", "/api/v1/chat/conversation/handover", "", 200, "")
		id := started["id"].(string)

		origin := http.Header{"Origin": {"http://" + host}, "Cookie": {chatapi.CookieName + "=" + secret}}
		for _, c := range []struct {
			host   string
			header http.Header
			status int
		}{
			{host, http.Header{"Origin": {"http://evil.example"}, "Cookie": {chatapi.CookieName + "=" + secret}}, 403},
			{host, http.Header{"Origin": {"http://" + host}}, 401},
			{consoleHost, http.Header{"Origin": {"http://" + consoleHost}, "Cookie": {chatapi.CookieName + "=" + secret}}, 404},
		} {
			if _, res, err := dialVia(srv, c.host, "/api/v1/chat/socket", c.header); err == nil || res == nil || res.StatusCode != c.status {
				t.Fatalf("visitor socket on %s: %v %v; want %d", c.host, err, res, c.status)
			}
		}
		agentHeader := http.Header{"Origin": {"http://" + consoleHost}, "Cookie": {staff.CookieName + "=" + token}}
		if _, res, err := dialVia(srv, host, "/api/console/v1/chat/socket", http.Header{"Origin": {"http://" + host},
			"Cookie": {staff.CookieName + "=" + token}}); err == nil || res == nil || res.StatusCode != 404 {
			t.Fatalf("agent socket on a brand host: %v %v", err, res)
		}
		if _, res, err := dialVia(srv, consoleHost, "/api/console/v1/chat/socket", http.Header{"Origin": {"http://" + consoleHost}}); err == nil || res == nil || res.StatusCode != 401 {
			t.Fatalf("agent socket without a session: %v %v", err, res)
		}

		as := dialed(t, srv, consoleHost, "/api/console/v1/chat/socket", agentHeader)
		if q := readFrame(t, as, "queue"); len(q["waiting"].([]any)) != 1 {
			t.Fatalf("queue %v", q)
		}
		vs := waitingVisitor(t, srv, host, secret)
		agent.want("POST", "/api/console/v1/chat/conversations/"+id+"/accept", "", 200, "")
		_ = as.Write(ctx, websocket.MessageText, []byte(`{"type":"subscribe","conversationId":"`+id+`","after":0}`))
		_ = as.Write(ctx, websocket.MessageText, []byte(`{"type":"message","conversationId":"`+id+`","clientId":"a1","body":"Hello Alex"}`))
		for {
			f := readFrame(t, vs, "message")
			if f["sender"] == "agent" {
				if f["body"] != "Hello Alex" || f["agentName"] != staffName {
					t.Fatalf("agent's message %v", f)
				}
				break
			}
		}
		if auditCount(t, a, staffID, string(audit.ChatAccept), "ok") != 1 || auditCount(t, a, staffID, string(audit.ChatAvailability), "ok") != 1 {
			t.Fatal("the chat actions are not audited")
		}

		// Maintenance: the visitor's socket is answered 503 before any upgrade.
		if err := maintenance.On(ctx, a.DB, maintenance.Change{Brand: "belair", At: clock.Now(), Actor: "cli"}); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute) // past the maintenance reader's cache
		if _, res, err := dialVia(srv, host, "/api/v1/chat/socket", origin); err == nil || res == nil || res.StatusCode != 503 {
			t.Fatalf("under maintenance: %v %v", err, res)
		}
	})
}

// TestDevNow: GUICHET_DEV_NOW starts the clock at its instant (and it runs
// on); refused without --dev and when it is no RFC 3339 instant.
func TestDevNow(t *testing.T) {
	if _, err := DevClock(Config{DevNow: "2026-11-29T10:00:00-05:00"}); err == nil || !strings.Contains(err.Error(), "--dev") {
		t.Fatalf("without --dev: %v", err)
	}
	for _, bad := range []string{"2026-11-29", "sunday", "2026-11-29T10:00:00"} {
		if _, err := DevClock(Config{Dev: true, DevNow: bad}); err == nil {
			t.Fatalf("%q accepted", bad)
		}
	}
	if c, err := DevClock(Config{Dev: true}); c != nil || err != nil {
		t.Fatalf("unset: clock %v, %v", c != nil, err)
	}
	clock, err := DevClock(Config{Dev: true, DevNow: "2026-11-29T10:00:00-05:00"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)
	first := clock()
	if first.Before(start) || first.Sub(start) > time.Hour {
		t.Fatalf("clock at %s, want from %s", first, start)
	}
	if later := clock(); later.Before(first) {
		t.Fatal("the clock went back")
	}
	if _, err := newApp(context.Background(), Config{DataDir: t.TempDir(), BrandsDir: "../../config/brands", Mail: "log",
		DevNow: "2026-11-29T10:00:00-05:00"}); err == nil || !strings.Contains(err.Error(), "GUICHET_DEV_NOW") {
		t.Fatalf("New without --dev: %v", err)
	}
	// --dev on a Sunday: chat is closed and says when it opens.
	a, err := newApp(context.Background(), Config{Dev: true, DataDir: t.TempDir(), BrandsDir: "../../config/brands",
		DevNow: "2026-11-29T10:00:00-05:00", AdminAddr: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.DB.Close()
	b := newBrowser(t, a, "belair.localhost")
	belair, _ := a.Brands.ByID("belair")
	b.header.Set("api-key", belair.APIKey)
	b.header.Set("province", "ON")
	got := b.want("GET", "/api/v1/salesforceConfig", "", 200, "")["chat"].(map[string]any)
	if got["open"] != false || got["reason"] != "closed" || got["nextOpen"] != "2026-11-30T08:00:00-05:00" {
		t.Fatalf("sunday: %v", got)
	}
	// Staff still sign in with their authenticator's code, of the real time:
	// the shifted clock is the portal's, not the phone's.
	if _, err := a.Staff.SeedDev(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := newBrowser(t, a, "console.localhost")
	c.want("POST", "/api/console/v1/session", `{"email":"agent@console.example","password":"`+staff.DevPassword+`"}`, 200, "")
	secret, err := staff.DecodeSecret(staff.DevMembers[0].Secret)
	if err != nil {
		t.Fatal(err)
	}
	c.want("POST", "/api/console/v1/session/totp", `{"code":"`+staff.TOTP(secret, time.Now())+`"}`, 200, "")
	// The widget counts "today" and "tomorrow" from the server's clock, which runs on from GUICHET_DEV_NOW.
	if now, _ := got["now"].(string); !strings.HasPrefix(now, "2026-11-29T10:") || !strings.HasSuffix(now, "-05:00") {
		t.Fatalf("now: %v", got["now"])
	}
}

// TestChatSocketsOutliveServerTimeouts: a socket hijacked from a server
// whose read and write timeouts are far shorter than the socket's idle
// time still carries messages (net/http clears the deadlines at the
// hijack); and `Serve` closes the sockets with 1012 when it shuts down.
func TestChatSocketsOutliveServerTimeouts(t *testing.T) {
	clock := testclock.At(testenv.ChatHours)
	a := consoleApp(t, "", clock)
	ctx := context.Background()
	visitor := siteBrowser(t, a, "belair")
	host := visitor.host
	visitor.want("POST", "/api/v1/chat/conversations", `{"name":"Alex","topic":"Sign-in"}`, 201, "")
	header := http.Header{"Origin": {"http://" + host}, "Cookie": {chatapi.CookieName + "=" + visitor.cookies[chatapi.CookieName]}}

	srv := httptest.NewUnstartedServer(a.Handler)
	srv.Config = newServer(a.Handler)
	srv.Config.ReadTimeout, srv.Config.WriteTimeout, srv.Config.IdleTimeout = 50*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond
	srv.Start()
	defer srv.Close()
	vs := dialed(t, srv, host, "/api/v1/chat/socket?after=0", header)
	readFrame(t, vs, "message")        // the bot's welcome
	time.Sleep(200 * time.Millisecond) // four times every server timeout
	if err := vs.Write(ctx, websocket.MessageText, []byte(`{"type":"message","clientId":"late","body":"still there?"}`)); err != nil {
		t.Fatal(err)
	}
	if f := readFrame(t, vs, "message"); f["clientId"] != "late" {
		t.Fatalf("after the timeouts: %v", f)
	}

	// Serve's shutdown: 1012 to every socket.
	a.cfg.Addr, a.cfg.AdminAddr = "127.0.0.1:0", "off"
	serveCtx, stop := context.WithCancel(ctx)
	addr, served := goServe(serveCtx, a)
	live := &httptest.Server{URL: "http://" + <-addr}
	ws2 := dialed(t, live, host, "/api/v1/chat/socket?after=0", header)
	readFrame(t, ws2, "state")
	stop()
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		if _, _, err := ws2.Read(rctx); err != nil {
			if code := websocket.CloseStatus(err); code != websocket.StatusServiceRestart {
				t.Fatalf("closed with %d (%v), want 1012", code, err)
			}
			break
		}
	}
	if err := <-served; err != nil && err != http.ErrServerClosed {
		t.Fatal(err)
	}
}

// TestAgentSocketEndsWithTheSession: an agent's socket re-checks the staff
// session it opened with on each ping; the agent's actions on it keep the
// session alive, its pings do not: past the idle timeout or after a
// sign-out it closes with 4401.
func TestAgentSocketEndsWithTheSession(t *testing.T) {
	eachChat(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		ctx := context.Background()
		srv := serveHTTP(t, a)
		open := func(token string) *websocket.Conn {
			t.Helper()
			as := dialed(t, srv, consoleHost, "/api/console/v1/chat/socket",
				http.Header{"Origin": {"http://" + consoleHost}, "Cookie": {staff.CookieName + "=" + token}})
			readFrame(t, as, "queue")
			return as
		}
		ping := func(c *websocket.Conn) {
			t.Helper()
			if err := c.Write(ctx, websocket.MessageText, []byte(`{"type":"ping"}`)); err != nil {
				t.Fatal(err)
			}
		}
		closed := func(c *websocket.Conn) websocket.StatusCode {
			t.Helper()
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			for {
				if _, _, err := c.Read(rctx); err != nil {
					return websocket.CloseStatus(err)
				}
			}
		}
		agent := marie(t, a, clock)
		as := open(agent.cookies[staff.CookieName])
		clock.Advance(staff.IdleTimeout - time.Minute)
		// An action on the socket (here a subscribe) is activity: the
		// session lives on.
		if err := as.Write(ctx, websocket.MessageText, []byte(`{"type":"subscribe","conversationId":"AAAAAAAAAAAAAAAAAAAAAA","after":0}`)); err != nil {
			t.Fatal(err)
		}
		readFrame(t, as, "error") // NOT_FOUND
		clock.Advance(staff.IdleTimeout - time.Minute)
		ping(as)
		readFrame(t, as, "pong") // still signed in
		// Pings are no activity: idle past the timeout, the socket closes.
		clock.Advance(2 * time.Minute)
		ping(as)
		if code := closed(as); code != chatapi.CloseSignedOut {
			t.Fatalf("socket of an idle session closed with %d; want 4401", code)
		}

		other := signedInStaff(t, a, clock, "paul@example.com", staff.RoleAgent, []string{"belair"})
		bs := open(other.cookies[staff.CookieName])
		other.want("DELETE", "/api/console/v1/session", "", 204, "")
		ping(bs)
		if code := closed(bs); code != chatapi.CloseSignedOut {
			t.Fatalf("socket of a signed-out session closed with %d; want 4401", code)
		}
	})
}
