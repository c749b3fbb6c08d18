package sockets

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"

	"github.com/coder/websocket"
	"go.opentelemetry.io/otel/trace"
)

// socketBuffer is the size of a socket's read and write buffers. net/http
// hands a hijacked connection over with 4 KB of each; frames are
// small and a bigger one goes past a buffer anyway, so an idle socket keeps
// 1 KB instead of 8.
const socketBuffer = 512

// smallBuffers is the ResponseWriter the library hijacks: the connection
// with small buffers (whatever net/http had buffered kept).
type smallBuffers struct {
	http.ResponseWriter
	session trace.Span // ended when the connection closes (trace.go)
}

func (s smallBuffers) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(s.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	conn = sessionConn{Conn: conn, span: s.session}
	// The 101 answer is in net/http's writer: out with it first.
	if err := rw.Writer.Flush(); err != nil {
		conn.Close()
		return nil, nil, err
	}
	n := rw.Reader.Buffered()
	var src io.Reader = conn
	if n > 0 {
		early, _ := rw.Reader.Peek(n)
		src = io.MultiReader(bytes.NewReader(bytes.Clone(early)), conn)
	}
	r := bufio.NewReaderSize(src, max(socketBuffer, n))
	if n > 0 {
		// Into the new buffer, where the library looks for them.
		if _, err := r.Peek(n); err != nil {
			conn.Close()
			return nil, nil, err
		}
	}
	return conn, bufio.NewReadWriter(r, bufio.NewWriterSize(conn, socketBuffer)), nil
}

// Accept upgrades a request to a WebSocket with small buffers, without
// compression (frames are short text) and with a read limit of readLimit
// bytes; under a traced request the session is a span until the socket
// closes.
func Accept(w http.ResponseWriter, r *http.Request, readLimit int64) (*websocket.Conn, error) {
	session := sessionSpan(r)
	conn, err := websocket.Accept(smallBuffers{w, session}, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		session.End()
		return nil, err
	}
	conn.SetReadLimit(readLimit)
	return conn, nil
}
