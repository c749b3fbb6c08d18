package cluster

import (
	"context"
	"encoding/base32"
	"encoding/json"
	"maps"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/staff"
)

// openSocket opens a WebSocket through the load balancer from ip.
func openSocket(t *testing.T, c *client, ip, path string) *websocket.Conn {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext(ctx, network, setup.lb)
	}}}
	h := http.Header{"Origin": {"http://" + c.host}}
	for k, v := range c.cookies {
		h.Add("Cookie", k+"="+v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+c.host+path, &websocket.DialOptions{HTTPClient: hc, HTTPHeader: h})
	if err != nil {
		t.Fatalf("socket %s through the load balancer: %v", path, err)
	}
	return ws
}

// socketHolders is HAProxy's count of live sessions per instance.
func socketHolders(t *testing.T) map[string]int {
	t.Helper()
	res, err := http.Get("http://" + setup.stats + "/stats;csv")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	rows, err := readStats(res)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for name, row := range rows {
		if n, _ := strconv.Atoi(row[4]); n > 0 {
			out[name] = n
		}
	}
	return out
}

// agentOnSocket signs the agent in from ip on the console host and opens
// its console chat socket (the caller closes it).
func agentOnSocket(t *testing.T, ip string) (*client, *websocket.Conn) {
	t.Helper()
	agent := newClient(ip, "console.localhost")
	signInAgent(t, agent)
	waitSessions(t, 0, agent)
	return agent, openSocket(t, agent, ip, "/api/console/v1/chat/socket")
}

// waitSessions closes the clients' idle keep-alive connections (HAProxy
// counts them as sessions) and waits, at most 5 s, for HAProxy to count n
// live sessions in all; it returns them per instance.
func waitSessions(t *testing.T, n int, clients ...*client) map[string]int {
	t.Helper()
	http.DefaultClient.CloseIdleConnections()
	for _, c := range clients {
		c.http.CloseIdleConnections()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		holders, total := socketHolders(t), 0
		for _, k := range holders {
			total += k
		}
		if total == n {
			return holders
		}
		if time.Now().After(deadline) {
			t.Fatalf("HAProxy counts sessions %v, want %d in all", holders, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// agentCookies are the console session of the first signInAgent: a TOTP
// code is accepted once, so the suites after the first share the session
// (sessions hold across instances).
var agentCookies map[string]string

// signInAgent signs the --dev agent in to the console (password, then the
// TOTP code of its fixed secret) and makes it available in English.
func signInAgent(t *testing.T, c *client) {
	t.Helper()
	ctx := context.Background()
	if agentCookies != nil {
		maps.Copy(c.cookies, agentCookies)
		a, err := c.json(ctx, setup.lb, "PUT", "/api/console/v1/chat/availability", `{"status":"available","languages":["en","fr"]}`)
		if err != nil || a.status >= 300 {
			t.Fatalf("agent availability: %d %v %v", a.status, a.body, err)
		}
		return
	}
	var agent staff.DevMember
	for _, m := range staff.DevMembers {
		if m.Role == staff.RoleAgent {
			agent = m
		}
	}
	a, err := c.json(ctx, setup.lb, "POST", "/api/console/v1/session",
		`{"email":"`+agent.Email+`","password":"`+staff.DevPassword+`"}`)
	if err != nil || a.status != 200 {
		t.Fatalf("console sign-in: %d %v %v", a.status, a.body, err)
	}
	secret, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(agent.Secret)
	if err != nil {
		t.Fatal(err)
	}
	a, err = c.json(ctx, setup.lb, "POST", "/api/console/v1/session/totp", `{"code":"`+staff.TOTP(secret, time.Now())+`"}`)
	if err != nil || a.status != 200 {
		t.Fatalf("console TOTP: %d %v %v", a.status, a.body, err)
	}
	a, err = c.json(ctx, setup.lb, "PUT", "/api/console/v1/chat/availability", `{"status":"available","languages":["en","fr"]}`)
	if err != nil || a.status >= 300 {
		t.Fatalf("agent availability: %d %v %v", a.status, a.body, err)
	}
	agentCookies = maps.Clone(c.cookies)
}

// TestChatAcrossInstances: a visitor and an agent whose sockets sit on
// different instances (HAProxy's session counts say so) chat both ways.
func TestChatAcrossInstances(t *testing.T) {
	ctx := context.Background()
	loadAPIKey(t, "belair.localhost")
	agent, as := agentOnSocket(t, "127.0.0.12")
	defer as.CloseNow()

	visitor := newClient("127.0.0.13", "belair.localhost")
	a, err := visitor.json(ctx, setup.lb, "POST", "/api/v1/chat/conversations", `{"name":"Alex","topic":"claims"}`)
	if err != nil || (a.status != 201 && a.status != 200) {
		t.Fatalf("start a chat: %d %v %v", a.status, a.body, err)
	}
	// belair's bot answers first; asking for a person hands over to the
	// agents (belair's hours: weekdays 08:00-20:00, Toronto).
	a, err = visitor.json(ctx, setup.lb, "POST", "/api/v1/chat/conversation/handover", "")
	if err == nil && a.status == 409 && a.body["errorCode"] == "CHAT_CLOSED" {
		t.Skip("belair's live chat is closed at this hour (weekdays 08:00-20:00 Toronto): nothing to hand over to")
	}
	if err != nil || a.status != 200 {
		t.Fatalf("handover to an agent: %d %v %v", a.status, a.body, err)
	}
	id, _ := a.body["id"].(string)
	vs := openSocket(t, visitor, "127.0.0.13", "/api/v1/chat/socket?after=0")
	defer vs.CloseNow()
	holders := waitSessions(t, 2, visitor)
	if len(holders) != 2 {
		t.Fatalf("the two sockets are not on two instances: %v", holders)
	}

	a, err = agent.json(ctx, setup.lb, "POST", "/api/console/v1/chat/conversations/"+id+"/accept", "")
	if err != nil || a.status != 200 {
		t.Fatalf("accept: %d %v %v", a.status, a.body, err)
	}
	write := func(ws *websocket.Conn, v map[string]any) {
		raw, _ := json.Marshal(v)
		if err := ws.Write(ctx, websocket.MessageText, raw); err != nil {
			t.Fatal(err)
		}
	}
	write(as, map[string]any{"type": "subscribe", "conversationId": id, "after": 0})
	write(as, map[string]any{"type": "message", "conversationId": id, "clientId": "a1", "body": "Hello Alex, how can I help?"})
	got := readUntil(t, vs, func(m []frame) bool { return hasClientID(m, "a1") || hasBody(m, "Hello Alex, how can I help?") })
	if len(got) == 0 {
		t.Fatal("the visitor never got the agent's message")
	}
	write(vs, map[string]any{"type": "message", "clientId": "v1", "body": "My car was hit"})
	readUntil(t, as, func(m []frame) bool { return hasBody(m, "My car was hit") })
}

func hasBody(msgs []frame, body string) bool {
	for _, m := range msgs {
		if m.Body == body {
			return true
		}
	}
	return false
}
