// Package telemetry is Guichet's OpenTelemetry tracing (docs/architecture.md
// "Tracing"): the tracer provider the standard OTEL_* variables configure
// (none unless an OTLP endpoint is set), the child spans the domains start
// under a traced request, and the log handler that writes the trace and
// span ids into every log line of one.
//
// Only the HTTP server (internal/httpapi) and the outbox worker
// (internal/notify) start traces, from the provider they are handed; every
// other span is a child found through its context (Child), so a process or
// a test without tracing runs no exporter and records nothing, and no
// global provider is set.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// ServiceName is the service.name of Guichet's spans unless
// OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says otherwise.
const ServiceName = "guichet"

// Tracing is the process's tracer provider: the SDK's, exporting over
// OTLP/HTTP in batches, or a no-op one when tracing is off.
type Tracing struct {
	// Provider starts the traces (never nil).
	Provider trace.TracerProvider
	sdk      *sdktrace.TracerProvider
}

// On reports whether spans are recorded and exported.
func (t *Tracing) On() bool { return t != nil && t.sdk != nil }

// Shutdown exports the spans still queued and stops the exporter; a no-op
// when tracing is off.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if !t.On() {
		return nil
	}
	return t.sdk.Shutdown(ctx)
}

// Off is the tracing of a process that exports nothing.
func Off() *Tracing { return &Tracing{Provider: noop.NewTracerProvider()} }

// Enabled reads the variables that turn tracing on or off (getenv is
// os.Getenv): on when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
// OTEL_EXPORTER_OTLP_ENDPOINT is set, unless OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none. An exporter or protocol Guichet does not have
// (it exports OTLP over HTTP with protobuf only) is an error, rather than
// spans silently sent where nothing reads them.
func Enabled(getenv func(string) string) (bool, error) {
	switch e := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))); e {
	case "", "otlp":
	case "none":
		return false, nil
	default:
		return false, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: Guichet exports traces with otlp (or none)", e)
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := strings.TrimSpace(getenv(name)); p != "" {
			if p != "http/protobuf" {
				return false, fmt.Errorf("%s=%q: Guichet exports traces over OTLP/HTTP only (http/protobuf)", name, p)
			}
			break // the traces' own setting wins
		}
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	return getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "", nil
}

// Start builds the process's tracing from the environment (Enabled): when
// on, an OTLP/HTTP exporter, which reads its own variables (endpoint,
// headers, timeout, compression, certificates), behind the batch span
// processor (OTEL_BSP_*), with the sampler of OTEL_TRACES_SAMPLER (default
// parentbased_always_on) and the resource of OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. Nothing connects before the first batch.
func Start(ctx context.Context) (*Tracing, error) {
	on, err := Enabled(os.Getenv)
	if err != nil || !on {
		return Off(), err
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName(ServiceName)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if errors.Is(err, resource.ErrPartialResource) {
		slog.Warn("OTEL_RESOURCE_ATTRIBUTES: some attributes were not understood", "err", err)
	} else if err != nil {
		_ = exp.Shutdown(ctx)
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Tracing{Provider: tp, sdk: tp}, nil
}

// noSpan is what Child returns outside a recorded span.
var noSpan trace.Span = noop.Span{}

// Child starts a span named name under the span of ctx, on the same
// provider (scope names the instrumenting package), and returns ctx
// carrying it; outside a recorded span it records nothing and costs no
// allocation, so the database and the hashers pay nothing when tracing is
// off or their caller was not traced (background work). Names and
// attributes are the caller's constants: never a value from a request.
func Child(ctx context.Context, scope, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, noSpan
	}
	return parent.TracerProvider().Tracer(scope).Start(ctx, name, opts...)
}
