package telemetry

import (
	"context"
	"io"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// JSONLogger is the process's logger (`guichet serve` and the tests that
// read its lines): JSON lines on w at level and up, each written with the
// context of a traced request carrying its trace_id and span_id.
func JSONLogger(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(LogHandler(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})))
}

// LogHandler wraps next so that a record logged with a context holding a
// valid span context (slog.InfoContext(r.Context(), ...) under a traced
// request) gets trace_id and span_id attributes.
func LogHandler(next slog.Handler) slog.Handler { return traceIDs{next} }

type traceIDs struct{ next slog.Handler }

func (h traceIDs) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h traceIDs) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.next.Handle(ctx, r)
}

func (h traceIDs) WithAttrs(as []slog.Attr) slog.Handler { return traceIDs{h.next.WithAttrs(as)} }

func (h traceIDs) WithGroup(name string) slog.Handler { return traceIDs{h.next.WithGroup(name)} }
