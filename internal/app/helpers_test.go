package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/coder/websocket"
)

// goServe runs a.Serve(ctx) in the background: addr gets the public address
// once it listens, served what Serve returns.
func goServe(ctx context.Context, a *App) (addr <-chan string, served <-chan error) {
	addrc, servedc := make(chan string, 1), make(chan error, 1)
	go func() { servedc <- a.Serve(ctx, func(s string) { addrc <- s }) }()
	return addrc, servedc
}

// dialed opens a socket through srv as dialVia does, failing the test if it
// cannot; the socket closes when the test ends.
func dialed(t *testing.T, srv *httptest.Server, host, path string, h http.Header) *websocket.Conn {
	t.Helper()
	c, _, err := dialVia(srv, host, path, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// readType reads conn's frames until one of type typ, and returns it.
func readType(ctx context.Context, conn *websocket.Conn, typ string) (map[string]any, error) {
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return nil, err
		}
		var f map[string]any
		_ = json.Unmarshal(data, &f)
		if f["type"] == typ {
			return f, nil
		}
	}
}

// sendJSON sends req with client and returns the response (its body read
// and closed) and the body decoded as a JSON object (nil when it is not
// one); a request that cannot be sent fails the test.
func sendJSON(t testing.TB, client *http.Client, req *http.Request) (*http.Response, map[string]any) {
	t.Helper()
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res, out
}

// withHeader sets a header on every request a browser sends (its
// User-Agent, a caller's traceparent).
type withHeader struct {
	next        http.RoundTripper
	name, value string
}

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return h.next.RoundTrip(r)
}
