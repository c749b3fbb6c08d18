package sockets

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"guichet/internal/telemetry"
)

// TestLogContext: a session's log lines carry its upgrade request's trace
// and span ids (issue 33), and the context outlives the request, which ends
// when its handler hands the socket to a goroutine of its own.
func TestLogContext(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled})
	ctx, cancel := context.WithCancel(trace.ContextWithSpanContext(context.Background(), sc))
	r := httptest.NewRequest("GET", "/api/v1/chat/socket", nil).WithContext(ctx)
	s := &Socket{Log: LogContext(r)}
	cancel()
	if err := s.LogCtx().Err(); err != nil {
		t.Fatalf("the session's log context ended with its request: %v", err)
	}
	var lines bytes.Buffer
	telemetry.JSONLogger(&lines, slog.LevelInfo).WarnContext(s.LogCtx(), "chat typing")
	if !strings.Contains(lines.String(), `"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"`) ||
		!strings.Contains(lines.String(), `"span_id":"00f067aa0ba902b7"`) {
		t.Fatalf("a session's line lacks its request's ids: %s", lines.String())
	}
	if (&Socket{}).LogCtx() == nil {
		t.Fatal("a socket without Log has no context to log with")
	}
}
