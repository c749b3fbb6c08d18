package testenv

import (
	"bytes"
	"log/slog"
	"os"
	"sync"
	"testing"

	"guichet/internal/telemetry"
)

// LogBuffer is a log sink many goroutines write to at once (a server's,
// a worker's): what a test reads back to check that no secret was logged.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String is everything written so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// CaptureLog sends the default logger, at debug level, as JSON, to a
// buffer until the test ends: the product's logger (telemetry.JSONLogger,
// trace ids included).
func CaptureLog(t testing.TB) *LogBuffer {
	t.Helper()
	buf := &LogBuffer{}
	prev := slog.Default()
	slog.SetDefault(telemetry.JSONLogger(buf, slog.LevelDebug))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return buf
}

// Bench skips a measurement unless GUICHET_BENCH is set (make bench): the
// benchmarks of docs/benchmarks.md are tests CI does not run.
func Bench(t testing.TB) {
	t.Helper()
	if os.Getenv("GUICHET_BENCH") == "" {
		t.Skip("benchmark: set GUICHET_BENCH=1 (make bench)")
	}
}
