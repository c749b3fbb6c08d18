package app

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/audit"
	"guichet/internal/cobrowse"
	"guichet/internal/staff"
	"guichet/internal/testclock"
)

// TestCobrowseThroughTheWholeHandler: co-browse's routes in the
// application's route table behind every middleware: the footer link's
// session on a screen-share brand only, the agent's join with a factor
// 20 minutes old (routine, like chat), the visitor's socket hijacked
// through the wrapped writers on the brand host (Origin and the cobrowse
// cookie checked; none on the console host), the viewer on the console
// host only; a viewer's join asks for a snapshot, an event reaches it, the
// agent's end closes both.
func TestCobrowseThroughTheWholeHandler(t *testing.T) {
	eachChat(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		ctx := t.Context()
		srv, agent, token := marieServed(t, a, clock)
		staffID := agent.want("GET", "/api/console/v1/session", "", 200, "")["id"].(string)
		// A factor 20 minutes old (the session kept alive): enough for co-browse.
		clock.Advance(10 * time.Minute)
		agent.want("GET", "/api/console/v1/session", "", 200, "")
		clock.Advance(10 * time.Minute)

		siteBrowser(t, a, "intact").want("POST", "/api/v1/cobrowse/sessions", `{}`, 404, "COBROWSE_UNAVAILABLE")
		visitor := siteBrowser(t, a, "belair")
		host := visitor.host
		started := visitor.want("POST", "/api/v1/cobrowse/sessions", `{}`, 201, "")
		secret := visitor.cookies[cobrowse.CookieName]
		if secret == "" || !cobrowse.ValidCode(started["code"].(string)) {
			t.Fatalf("started %v, cookie %q", started, secret)
		}
		id := started["id"].(string)
		agent.want("POST", "/api/v1/cobrowse/sessions", `{}`, 404, "")
		visitor.want("POST", "/api/console/v1/cobrowse/join", `{"code":"000000"}`, 404, "")
		newBrowser(t, a, consoleHost).want("POST", "/api/console/v1/cobrowse/join", `{"code":"000000"}`, 401, "SIGN_IN_REQUIRED")
		joined := agent.want("POST", "/api/console/v1/cobrowse/join", `{"code":"`+started["code"].(string)+`"}`, 200, "")
		if joined["status"] != cobrowse.StatusActive {
			t.Fatalf("joined %v", joined)
		}

		cookie := cobrowse.CookieName + "=" + secret
		for _, c := range []struct {
			host   string
			header http.Header
			status int
		}{
			{host, http.Header{"Origin": {"http://evil.example"}, "Cookie": {cookie}}, 403},
			{host, http.Header{"Origin": {"http://" + host}}, 401},
			{consoleHost, http.Header{"Origin": {"http://" + consoleHost}, "Cookie": {cookie}}, 404},
		} {
			if _, res, err := dialVia(srv, c.host, "/api/v1/cobrowse/socket", c.header); err == nil || res == nil || res.StatusCode != c.status {
				t.Fatalf("visitor socket on %s: %v %v; want %d", c.host, err, res, c.status)
			}
		}
		viewerPath := "/api/console/v1/cobrowse/sessions/" + id + "/socket"
		if _, res, err := dialVia(srv, host, viewerPath, http.Header{"Origin": {"http://" + host},
			"Cookie": {staff.CookieName + "=" + token}}); err == nil || res == nil || res.StatusCode != 404 {
			t.Fatalf("viewer on a brand host: %v %v", err, res)
		}
		vs := dialed(t, srv, host, "/api/v1/cobrowse/socket", http.Header{"Origin": {"http://" + host}, "Cookie": {cookie}})
		if st := readFrame(t, vs, "state"); st["status"] != cobrowse.StatusActive {
			t.Fatalf("state %v", st)
		}
		view := dialed(t, srv, consoleHost, viewerPath, http.Header{"Origin": {"http://" + consoleHost},
			"Cookie": {staff.CookieName + "=" + token}})
		readFrame(t, vs, "snapshot")
		_ = vs.Write(ctx, websocket.MessageText, []byte(`{"type":"event","data":{"type":2,"data":{}}}`))
		if f := readFrame(t, view, "event"); f["seq"] != float64(1) {
			t.Fatalf("event %v", f)
		}
		agent.want("POST", "/api/console/v1/cobrowse/sessions/"+id+"/end", "", 200, "")
		for _, c := range []*websocket.Conn{vs, view} {
			if st := readFrame(t, c, "state"); st["status"] != cobrowse.StatusEnded {
				t.Fatalf("end %v", st)
			}
		}
		for _, ev := range []string{string(audit.CobrowseJoin), string(audit.CobrowseEnd)} {
			if auditCount(t, a, staffID, ev, "ok")+auditCount(t, a, staffID, ev, "viewer")+auditCount(t, a, staffID, ev, cobrowse.ReasonAgent) == 0 {
				t.Fatalf("%s not audited with the staff id", ev)
			}
		}
	})
}

// acceptedChat is a belair visitor's live conversation accepted by agent,
// and that visitor.
func acceptedChat(t *testing.T, a *App, agent *browser) (visitor *browser, convID string) {
	t.Helper()
	agent.want("PUT", "/api/console/v1/chat/availability", `{"status":"available","languages":["en","fr"]}`, 200, "")
	visitor = siteBrowser(t, a, "belair")
	convID = visitor.want("POST", "/api/v1/chat/conversations", `{"name":"Alex","topic":"Sign-in"}`, 201, "")["id"].(string)
	visitor.want("POST", "/api/v1/chat/conversation/handover", "", 200, "")
	agent.want("POST", "/api/console/v1/chat/conversations/"+convID+"/accept", "", 200, "")
	return visitor, convID
}

// sharingChat: Marie (belair agent) holds a chat of a belair visitor, who
// accepted her request to share the screen (its session id).
func sharingChat(t *testing.T, a *App, clock *testclock.Clock) (agent, visitor *browser, convID, id string) {
	t.Helper()
	agent = marie(t, a, clock)
	visitor, convID = acceptedChat(t, a, agent)
	id = agent.want("POST", "/api/console/v1/chat/conversations/"+convID+"/cobrowse", "", 201, "")["id"].(string)
	visitor.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{"accept":true}`, 200, "")
	return agent, visitor, convID, id
}

// TestChatEndEndsItsCobrowse: the app wires chat's end to co-browse
// (chat.Service.OnEnd): the agent ending a chat whose visitor shares the
// screen ends the sharing too, through the whole handler.
func TestChatEndEndsItsCobrowse(t *testing.T) {
	eachChat(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		agent, visitor, convID, _ := sharingChat(t, a, clock)
		if s := visitor.want("GET", "/api/v1/cobrowse/session", "", 200, ""); s["status"] != cobrowse.StatusActive {
			t.Fatalf("before the chat's end: %v", s)
		}
		agent.want("POST", "/api/console/v1/chat/conversations/"+convID+"/end", "", 200, "")
		s := visitor.want("GET", "/api/v1/cobrowse/session", "", 200, "")
		if s["status"] != cobrowse.StatusEnded || s["endReason"] != cobrowse.ReasonAgent {
			t.Fatalf("after the chat's end: %v", s)
		}
	})
}

// TestChatTransferEndsItsCobrowse: the app wires chat's transfer to
// co-browse (chat.Service.OnTransfer): the conversation's screen sharing
// ends with the transfer, so the former holder stops watching and the new
// holder may ask again; the viewer socket's refusals come after the
// upgrade, as close codes (the real staff middleware: none signed in is
// 4401).
func TestChatTransferEndsItsCobrowse(t *testing.T) {
	eachChat(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		srv := serveHTTP(t, a)
		marie, visitor, convID, id := sharingChat(t, a, clock)
		luc := signedInStaff(t, a, clock, "luc@example.com", staff.RoleAgent, []string{"belair"})

		viewerPath := "/api/console/v1/cobrowse/sessions/" + id + "/socket"
		closeOf := func(cookie string) websocket.StatusCode {
			h := http.Header{"Origin": {"http://" + consoleHost}}
			if cookie != "" {
				h.Set("Cookie", staff.CookieName+"="+cookie)
			}
			c, res, err := dialVia(srv, consoleHost, viewerPath, h)
			if err != nil {
				status := 0
				if res != nil {
					status = res.StatusCode
				}
				t.Fatalf("viewer refused before the upgrade: %d %v", status, err)
			}
			defer c.CloseNow()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for {
				if _, _, err := c.Read(ctx); err != nil {
					return websocket.CloseStatus(err)
				}
			}
		}
		if got := closeOf(""); got != cobrowse.CloseSignedOut {
			t.Fatalf("no staff session: close %d", got)
		}
		if got := closeOf("forged"); got != cobrowse.CloseSignedOut {
			t.Fatalf("a forged staff session: close %d", got)
		}

		luc.want("PUT", "/api/console/v1/chat/availability", `{"status":"available","languages":["en","fr"]}`, 200, "")
		lucID := luc.want("GET", "/api/console/v1/session", "", 200, "")["id"].(string)
		marie.want("POST", "/api/console/v1/chat/conversations/"+convID+"/transfer", `{"staffId":"`+lucID+`"}`, 200, "")
		s := visitor.want("GET", "/api/v1/cobrowse/session", "", 200, "")
		if s["status"] != cobrowse.StatusEnded || s["endReason"] != cobrowse.ReasonAgent {
			t.Fatalf("after the transfer: %v", s)
		}
		if got := closeOf(marie.cookies[staff.CookieName]); got != cobrowse.CloseUnknown {
			t.Fatalf("the former holder's viewer: close %d", got)
		}
		if got := closeOf(luc.cookies[staff.CookieName]); got != cobrowse.CloseNotHolder {
			t.Fatalf("the new holder's viewer of the old session: close %d", got)
		}
		luc.want("POST", "/api/console/v1/chat/conversations/"+convID+"/cobrowse", "", 201, "")
	})
}
