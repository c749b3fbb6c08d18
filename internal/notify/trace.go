package notify

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// deliverySpan starts the trace of one outbox delivery (WorkerOptions.
// Tracer; none when unset): its message's id, channel, template, brand and
// attempt, never its recipient or data. The database statements of the
// delivery are its children.
func (w *Worker) deliverySpan(ctx context.Context, r outboxRow) (context.Context, trace.Span) {
	if w.opts.Tracer == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	return w.opts.Tracer.Tracer("guichet/internal/notify").Start(ctx, "outbox delivery",
		trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(
			attribute.String("guichet.outbox.id", r.id), attribute.String("guichet.outbox.channel", r.channel),
			attribute.String("guichet.outbox.template", r.template), attribute.String("guichet.outbox.brand", r.brand),
			attribute.Int("guichet.outbox.attempt", r.attempts)))
}

// traceOutcome records the state a delivery left its message in on the
// delivery's span.
func traceOutcome(ctx context.Context, state string) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.String("guichet.outbox.outcome", state))
	if state == stateFailed {
		span.SetStatus(codes.Error, "notification failed")
	}
}
