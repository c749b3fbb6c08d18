package notify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

func counterValue(t testing.TB, vec *prometheus.CounterVec, channel string) float64 {
	t.Helper()
	return metricValue(t, vec.WithLabelValues(channel))
}

// metricValue reads a gauge or a counter.
func metricValue(t testing.TB, m prometheus.Metric) float64 {
	t.Helper()
	var out dto.Metric
	if err := m.Write(&out); err != nil {
		t.Fatal(err)
	}
	if out.Counter != nil {
		return out.Counter.GetValue()
	}
	return out.Gauge.GetValue()
}

func TestMetricsGaugesAndRegistration(t *testing.T) {
	db := storetest.Open(t)
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	if again := NewMetrics(reg); again.sentC != m.sentC || again.queueDepth != m.queueDepth {
		t.Fatal("registering twice made new collectors")
	}
	ctx := t.Context()
	now := time.Now()
	if err := m.refresh(ctx, db, now); err != nil {
		t.Fatal(err)
	}
	if metricValue(t, m.queueDepth) != 0 || metricValue(t, m.oldestAge) != 0 {
		t.Fatal("empty outbox has a depth or an age")
	}
	enqueue(t, db, resetCodeEmail("a@example.com", testCode))
	enqueue(t, db, resetCodeEmail("b@example.com", testCode))
	if err := m.refresh(ctx, db, time.Now().Add(90*time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := metricValue(t, m.queueDepth); got != 2 {
		t.Errorf("queue depth = %v", got)
	}
	if got := metricValue(t, m.oldestAge); got < 89 || got > 95 {
		t.Errorf("oldest age = %v, want about 90 s", got)
	}
	m.sent("email")
	m.retried("sms")
	var nilMetrics *Metrics
	nilMetrics.sent("email") // a worker without metrics counts nothing, without failing
	names, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, f := range names {
		all = append(all, f.GetName())
	}
	joined := strings.Join(all, " ")
	for _, want := range []string{"guichet_outbox_queue_depth", "guichet_outbox_oldest_queued_age_seconds",
		"guichet_outbox_sent_total", "guichet_outbox_retried_total"} {
		if !strings.Contains(joined, want) {
			t.Errorf("registry lacks %s (has %s)", want, joined)
		}
	}
}

func TestWorkerRefreshesGauges(t *testing.T) {
	db := storetest.Open(t)
	clock := testclock.New()
	opts := testWorkerOptions(clock, nil)
	opts.Metrics = NewMetrics(nil)
	w := NewWorker(db, testenv.Brands(t), nil, nil, opts)
	enqueue(t, db, resetCodeEmail("a@example.com", testCode))
	clock.Advance(time.Minute)
	w.housekeeping(context.Background())
	if got := metricValue(t, opts.Metrics.queueDepth); got != 1 {
		t.Fatalf("queue depth = %v", got)
	}
	if got := metricValue(t, opts.Metrics.oldestAge); got < 59 {
		t.Fatalf("oldest age = %v", got)
	}
}
