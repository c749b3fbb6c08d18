package sockets

import (
	"net"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"guichet/internal/telemetry"
)

// sessionSpan starts the span of a WebSocket session under the upgrade's
// request span (telemetry.Child: none when the request is not traced),
// named by the route ("websocket /api/v1/chat/socket").
func sessionSpan(r *http.Request) trace.Span {
	_, path, found := strings.Cut(r.Pattern, " ")
	if !found {
		path = r.Pattern
	}
	_, span := telemetry.Child(r.Context(), "guichet/internal/sockets", "websocket "+path,
		trace.WithSpanKind(trace.SpanKindServer))
	return span
}

// sessionConn ends the session's span when the hijacked connection closes,
// which the WebSocket library does whichever side ends the session.
type sessionConn struct {
	net.Conn
	span trace.Span
}

func (c sessionConn) Close() error {
	c.span.End()
	return c.Conn.Close()
}
