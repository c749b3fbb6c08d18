package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coder/websocket"

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
		ctx := context.Background()
		srv := httptest.NewServer(a.Handler)
		defer srv.Close()
		belair, _ := a.Brands.ByID("belair")
		intact, _ := a.Brands.ByID("intact")
		host := belair.Hosts[0]
		agent := signedInStaff(t, a, clock, "marie@example.com", staff.RoleAgent, []string{"belair"})
		token := agent.cookies[staff.CookieName]
		staffID := agent.want("GET", "/api/console/v1/session", "", 200, "")["id"].(string)
		// A factor 20 minutes old (the session kept alive): enough for co-browse.
		clock.Advance(10 * time.Minute)
		agent.want("GET", "/api/console/v1/session", "", 200, "")
		clock.Advance(10 * time.Minute)

		other := newBrowser(t, a, intact.Hosts[0])
		other.header.Set("api-key", intact.APIKey)
		other.want("POST", "/api/v1/cobrowse/sessions", `{}`, 404, cobrowse.ErrUnavailable.Code)
		visitor := newBrowser(t, a, host)
		visitor.header.Set("api-key", belair.APIKey)
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
		vs, _, err := dialVia(srv, host, "/api/v1/cobrowse/socket", http.Header{"Origin": {"http://" + host}, "Cookie": {cookie}})
		if err != nil {
			t.Fatal(err)
		}
		defer vs.CloseNow()
		if st := readFrame(t, vs, "state"); st["status"] != cobrowse.StatusActive {
			t.Fatalf("state %v", st)
		}
		view, _, err := dialVia(srv, consoleHost, viewerPath, http.Header{"Origin": {"http://" + consoleHost},
			"Cookie": {staff.CookieName + "=" + token}})
		if err != nil {
			t.Fatal(err)
		}
		defer view.CloseNow()
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
		for _, ev := range []string{cobrowse.EventJoin, cobrowse.EventEnd} {
			if auditCount(t, a, staffID, ev, "ok")+auditCount(t, a, staffID, ev, "viewer")+auditCount(t, a, staffID, ev, cobrowse.ReasonAgent) == 0 {
				t.Fatalf("%s not audited with the staff id", ev)
			}
		}
	})
}
