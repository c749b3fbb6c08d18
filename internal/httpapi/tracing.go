package httpapi

import (
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// traced is the outermost middleware when tracing is on (Deps.Tracing): a
// server span per request, the child of the caller's W3C traceparent when
// it sent one (HAProxy passes it through), ended with the status. The span
// is named by the matched route's pattern (routeSpan), never by the raw
// path, which may hold a token; no header, query or path value is recorded.
func traced(tp trace.TracerProvider, next http.Handler) http.Handler {
	if tp == nil {
		return next
	}
	tracer := tp.Tracer("guichet/internal/httpapi")
	w3c := propagation.TraceContext{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := w3c.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		method := spanMethod(r.Method)
		ctx, span := tracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(method)))
		defer span.End()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r.WithContext(ctx))
		span.SetAttributes(semconv.HTTPResponseStatusCode(rec.status))
		if rec.status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(rec.status))
		}
	})
}

// routeSpan names the request's span after rt's pattern (inside the mux,
// where the route is known): "POST /api/v1/accounts/{id}/authentication",
// with http.route; a request no route matched keeps the method alone.
func routeSpan(pattern string, next http.Handler) http.Handler {
	method, path, found := strings.Cut(pattern, " ")
	if !found {
		method, path = "", pattern
	}
	route := semconv.HTTPRoute(path)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if span := trace.SpanFromContext(r.Context()); span.IsRecording() {
			name := pattern
			if method == "" {
				name = spanMethod(r.Method) + " " + path
			}
			span.SetName(name)
			span.SetAttributes(route)
		}
		next.ServeHTTP(w, r)
	})
}

// spanMethod is the request's method when it is a known one, "_OTHER"
// otherwise (the client writes it).
func spanMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "_OTHER"
}
