package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/chat/chatapi"
	"guichet/internal/cobrowse"
	"guichet/internal/staff"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

// The tests below run no hub (no poll, no reap timer) and the clock
// stands still: a socket's own 60-second re-check can never come, so a
// socket that closes was closed by the sign-out's wake-up or refused by
// the statement that would have stored its frame.

// staffSockets are an agent's open chat socket (subscribed to convID) and
// co-browse viewer socket (session id), through srv.
func staffSockets(t *testing.T, srv *httptest.Server, token, convID, id string) (chatSock, viewer *websocket.Conn) {
	t.Helper()
	h := http.Header{"Origin": {"http://" + consoleHost}, "Cookie": {staff.CookieName + "=" + token}}
	chatSock = dialed(t, srv, consoleHost, "/api/console/v1/chat/socket", h)
	readFrame(t, chatSock, "queue")
	writeFrame(t, chatSock, `{"type":"subscribe","conversationId":"`+convID+`","after":0}`)
	readFrame(t, chatSock, "message")
	if id == "" {
		return chatSock, nil
	}
	viewer = dialed(t, srv, consoleHost, "/api/console/v1/cobrowse/sessions/"+id+"/socket", h)
	if st := readFrame(t, viewer, "state"); st["status"] != cobrowse.StatusActive {
		t.Fatalf("viewer state %v", st)
	}
	return chatSock, viewer
}

func writeFrame(t *testing.T, c *websocket.Conn, frame string) {
	t.Helper()
	if err := c.Write(context.Background(), websocket.MessageText, []byte(frame)); err != nil {
		t.Fatal(err)
	}
}

// closeCode reads c until it closes (an event: the timeout is generous and
// no part of what is tested) and returns its close code; frames of type
// skip are read past, any other fails the test.
func closeCode(t *testing.T, c *websocket.Conn, skip ...string) websocket.StatusCode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return websocket.CloseStatus(err)
		}
		var f map[string]any
		_ = json.Unmarshal(data, &f)
		ok := false
		for _, s := range skip {
			ok = ok || f["type"] == s
		}
		if !ok {
			t.Fatalf("before the close: %s", data)
		}
	}
}

// agentMessages counts the agent's messages of a conversation with body.
func agentMessages(t *testing.T, a *App, convID, body string) int {
	t.Helper()
	var n int
	if err := a.DB.QueryRow(context.Background(), "SELECT COUNT(*) FROM chat_messages WHERE conversation_id = ? AND sender = 'agent' AND body = ?",
		convID, body).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSignOutEndsTheStaffSocketsAtOnce: the console's sign-out closes the
// agent's open chat socket and co-browse viewer socket with 4401 at once,
// without a frame from them and without their periodic re-check (the
// clock stands still); a disable does the same.
func TestSignOutEndsTheStaffSocketsAtOnce(t *testing.T) {
	eachChat(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		srv := serveHTTP(t, a)
		agent, _, convID, id := sharingChat(t, a, clock)
		chatSock, viewer := staffSockets(t, srv, agent.cookies[staff.CookieName], convID, id)
		agent.want("DELETE", "/api/console/v1/session", "", 204, "")
		if code := closeCode(t, chatSock, "queue", "state", "message"); code != chatapi.CloseSignedOut {
			t.Fatalf("chat socket after the sign-out: close %d, want 4401", code)
		}
		if code := closeCode(t, viewer, "state", "event"); code != cobrowse.CloseSignedOut {
			t.Fatalf("viewer after the sign-out: close %d, want 4401", code)
		}

		// A disable (the admin's, or guichet staff disable) likewise.
		disableClosesSocket(t, a, a, srv, clock)
	})
}

// TestFrameAfterSignOutIsRefused: with the sign-out's wake-up lost (no
// Ended hook), the very next frame that would reach the visitor is
// refused by the statement that would store it: the agent's message (an
// error frame SIGN_IN_REQUIRED, then 4401; nothing stored) and the
// viewer's pointer (4401; nothing stored).
func TestFrameAfterSignOutIsRefused(t *testing.T) {
	eachChat(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		srv := serveHTTP(t, a)
		a.Staff.Ended = nil
		agent, _, convID, id := sharingChat(t, a, clock)
		chatSock, viewer := staffSockets(t, srv, agent.cookies[staff.CookieName], convID, id)
		writeFrame(t, chatSock, `{"type":"message","conversationId":"`+convID+`","clientId":"c1","body":"before"}`)
		for readFrame(t, chatSock, "message")["body"] != "before" {
		}
		var before int64
		if err := a.DB.QueryRow(context.Background(), "SELECT last_seq FROM cobrowse_sessions WHERE id = ?", id).Scan(&before); err != nil {
			t.Fatal(err)
		}

		agent.want("DELETE", "/api/console/v1/session", "", 204, "")
		writeFrame(t, chatSock, `{"type":"message","conversationId":"`+convID+`","clientId":"c2","body":"after sign-out"}`)
		if f := readFrame(t, chatSock, "error"); f["errorCode"] != "SIGN_IN_REQUIRED" || f["clientId"] != "c2" {
			t.Fatalf("refusal %v", f)
		}
		if code := closeCode(t, chatSock, "queue", "state", "message"); code != chatapi.CloseSignedOut {
			t.Fatalf("chat socket: close %d, want 4401", code)
		}
		writeFrame(t, viewer, `{"type":"pointer","data":{"x":1,"y":2}}`)
		if code := closeCode(t, viewer, "state", "event"); code != cobrowse.CloseSignedOut {
			t.Fatalf("viewer: close %d, want 4401", code)
		}
		if n := agentMessages(t, a, convID, "after sign-out"); n != 0 {
			t.Fatalf("%d messages stored after the sign-out", n)
		}
		if n := agentMessages(t, a, convID, "before"); n != 1 {
			t.Fatalf("%d messages before the sign-out, want 1", n)
		}
		var after int64
		if err := a.DB.QueryRow(context.Background(), "SELECT last_seq FROM cobrowse_sessions WHERE id = ?", id).Scan(&after); err != nil {
			t.Fatal(err)
		}
		if after != before {
			t.Fatalf("co-browse seq %d -> %d: a pointer stored after the sign-out", before, after)
		}
	})
}

// TestSignOutEndsSocketsOnEveryInstance: two applications on one
// PostgreSQL database, their hubs not running (no poll, no re-check
// timer) and the clock still: the agent's chat socket and viewer are held
// by B; the sign-out through A closes both with 4401 (the wake-up crossed
// by NOTIFY, and B re-checked the session in the database); a disable
// through A closes another agent's socket on B.
func TestSignOutEndsSocketsOnEveryInstance(t *testing.T) {
	clock := testclock.At(testenv.ChatHours)
	url := storetest.PostgresURL(t)
	a, b := consoleApp(t, url, clock), consoleApp(t, url, clock)
	runFanouts(t, a, b)
	srvB := httptest.NewServer(b.Handler)
	defer srvB.Close()
	agent, _, convID, id := sharingChat(t, a, clock)
	chatSock, viewer := staffSockets(t, srvB, agent.cookies[staff.CookieName], convID, id)
	received := b.Fanout.Stats().Received
	agent.want("DELETE", "/api/console/v1/session", "", 204, "")
	if code := closeCode(t, chatSock, "queue", "state", "message"); code != chatapi.CloseSignedOut {
		t.Fatalf("chat socket on B after the sign-out on A: close %d, want 4401", code)
	}
	if code := closeCode(t, viewer, "state", "event"); code != cobrowse.CloseSignedOut {
		t.Fatalf("viewer on B after the sign-out on A: close %d, want 4401", code)
	}
	if b.Fanout.Stats().Received == received {
		t.Fatal("B received no notification: what closed its sockets?")
	}

	disableClosesSocket(t, a, b, srvB, clock)
}

// disableClosesSocket: Paul, an agent signed in through a, holds a chat
// on the socket he opened through srv (b's); his disable through a closes
// it with 4401.
func disableClosesSocket(t *testing.T, a, b *App, srv *httptest.Server, clock *testclock.Clock) {
	t.Helper()
	paul := signedInStaff(t, a, clock, "paul@example.com", staff.RoleAgent, []string{"belair"})
	_, convID := acceptedChat(t, a, paul)
	ps, _ := staffSockets(t, srv, paul.cookies[staff.CookieName], convID, "")
	if err := a.Staff.Disable(context.Background(), "paul@example.com", "cli"); err != nil {
		t.Fatal(err)
	}
	if code := closeCode(t, ps, "queue", "state", "message"); code != chatapi.CloseSignedOut {
		t.Fatalf("chat socket (same instance: %v) after the disable: close %d, want 4401", a == b, code)
	}
}
