package telemetry

import (
	"strings"
	"testing"
)

// TestEnabled: an OTLP endpoint turns tracing on, OTEL_SDK_DISABLED and
// OTEL_TRACES_EXPORTER=none keep it off, and an exporter or a protocol
// Guichet does not have is refused (the traces' protocol before the
// general one).
func TestEnabled(t *testing.T) {
	endpoint := "OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318"
	for _, c := range []struct {
		env  []string
		on   bool
		fail string
	}{
		{nil, false, ""},
		{[]string{"OTEL_SERVICE_NAME=guichet", "OTEL_TRACES_SAMPLER=always_on"}, false, ""},
		{[]string{endpoint}, true, ""},
		{[]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://collector:4318/v1/traces"}, true, ""},
		{[]string{endpoint, "OTEL_SDK_DISABLED=TRUE"}, false, ""},
		{[]string{endpoint, "OTEL_SDK_DISABLED=false"}, true, ""},
		{[]string{endpoint, "OTEL_TRACES_EXPORTER=none"}, false, ""},
		{[]string{endpoint, "OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"}, true, ""},
		{[]string{endpoint, "OTEL_TRACES_EXPORTER=zipkin"}, false, "OTEL_TRACES_EXPORTER"},
		{[]string{endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"}, false, "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{[]string{endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf"}, true, ""},
		{[]string{endpoint, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json"}, false, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"},
	} {
		env := map[string]string{}
		for _, kv := range c.env {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		on, err := Enabled(func(k string) string { return env[k] })
		if on != c.on || (c.fail == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.fail) {
			t.Errorf("%v: on %v, %v; want on %v, error %q", c.env, on, err, c.on, c.fail)
		}
	}
}
