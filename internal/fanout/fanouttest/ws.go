package fanouttest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// WS is a test's WebSocket client of a hub's socket (chat, co-browse). A
// frame that never comes fails the test after 10 s: a failure, not a
// timing.
type WS struct {
	T    testing.TB
	Conn *websocket.Conn
}

// Dial connects to path on the server at base (http://…) as host, with
// header; the socket is closed when the test ends.
func Dial(t testing.TB, base, path, host string, header http.Header) (*WS, *http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+path,
		&websocket.DialOptions{Host: host, HTTPHeader: header})
	if err != nil {
		return nil, res, err
	}
	conn.SetReadLimit(4 << 20)
	t.Cleanup(func() { conn.CloseNow() })
	return &WS{T: t, Conn: conn}, res, nil
}

// Read reads the next frame.
func (w *WS) Read() map[string]any {
	w.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, data, err := w.Conn.Read(ctx)
	if err != nil {
		w.T.Fatalf("read: %v", err)
	}
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		w.T.Fatal(err)
	}
	return f
}

// Next reads frames until one of type typ (skipping others).
func (w *WS) Next(typ string) map[string]any {
	w.T.Helper()
	for {
		if f := w.Read(); f["type"] == typ {
			return f
		}
	}
}

// NextState reads until a state frame of status.
func (w *WS) NextState(status string) map[string]any {
	w.T.Helper()
	for {
		if f := w.Next("state"); f["status"] == status {
			return f
		}
	}
}

// Send writes v as JSON.
func (w *WS) Send(v any) {
	w.T.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		w.T.Fatal(err)
	}
	w.SendRaw(b)
}

// SendRaw writes b as a text frame.
func (w *WS) SendRaw(b []byte) {
	w.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Conn.Write(ctx, websocket.MessageText, b); err != nil {
		w.T.Fatal(err)
	}
}

// ReadAll reads frames until the socket closes: the frames and the close
// code.
func (w *WS) ReadAll() ([]map[string]any, websocket.StatusCode) {
	w.T.Helper()
	var frames []map[string]any
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, data, err := w.Conn.Read(ctx)
		cancel()
		if err != nil {
			return frames, websocket.CloseStatus(err)
		}
		var f map[string]any
		if err := json.Unmarshal(data, &f); err != nil {
			w.T.Fatal(err)
		}
		frames = append(frames, f)
	}
}

// CloseStatus reads until the socket closes and returns its close code.
func (w *WS) CloseStatus() websocket.StatusCode {
	w.T.Helper()
	_, code := w.ReadAll()
	return code
}

// ExpectClose reads to the close (CloseStatus) and fails t unless its
// status is want; what names the socket in the failure.
func (w *WS) ExpectClose(t testing.TB, want websocket.StatusCode, what string) {
	t.Helper()
	if got := w.CloseStatus(); got != want {
		t.Fatalf("%s: closed with %d, want %d", what, got, want)
	}
}
