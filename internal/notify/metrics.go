package notify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/store"
)

// Metrics are the outbox's Prometheus metrics. The gauges are refreshed
// from the database by the worker every few seconds, so every instance
// reports the shared queue. A nil *Metrics counts nothing.
type Metrics struct {
	queueDepth prometheus.Gauge
	oldestAge  prometheus.Gauge
	sentC      *prometheus.CounterVec
	retriedC   *prometheus.CounterVec
	failedC    *prometheus.CounterVec
	abandonedC *prometheus.CounterVec
}

// NewMetrics creates the metrics and registers them with reg (when not
// nil). Registering twice with one registry reuses the first collectors.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "guichet", Subsystem: "outbox", Name: name, Help: help,
		}, []string{"channel"})
	}
	m := &Metrics{
		queueDepth: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "guichet", Subsystem: "outbox",
			Name: "queue_depth", Help: "Messages waiting for delivery (queued or being sent)."}),
		oldestAge: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "guichet", Subsystem: "outbox",
			Name: "oldest_queued_age_seconds", Help: "Age of the oldest message waiting for delivery; 0 when none."}),
		sentC:      counter("sent_total", "Messages delivered."),
		retriedC:   counter("retried_total", "Temporary delivery failures scheduled for a retry."),
		failedC:    counter("failed_total", "Messages given up: permanent failure or too many attempts."),
		abandonedC: counter("abandoned_total", "Messages abandoned because their content expired first."),
	}
	if reg == nil {
		return m
	}
	m.queueDepth = register(reg, m.queueDepth)
	m.oldestAge = register(reg, m.oldestAge)
	m.sentC = register(reg, m.sentC)
	m.retriedC = register(reg, m.retriedC)
	m.failedC = register(reg, m.failedC)
	m.abandonedC = register(reg, m.abandonedC)
	return m
}

// register registers c, or returns the collector already registered under
// its name.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
	}
	return c
}

func (m *Metrics) sent(ch string) {
	if m != nil {
		m.sentC.WithLabelValues(ch).Inc()
	}
}

func (m *Metrics) retried(ch string) {
	if m != nil {
		m.retriedC.WithLabelValues(ch).Inc()
	}
}

func (m *Metrics) failed(ch string) {
	if m != nil {
		m.failedC.WithLabelValues(ch).Inc()
	}
}

func (m *Metrics) abandoned(ch string) {
	if m != nil {
		m.abandonedC.WithLabelValues(ch).Inc()
	}
}

// refresh reads the queue depth and the oldest waiting message.
func (m *Metrics) refresh(ctx context.Context, db *store.DB, now time.Time) error {
	var depth, oldest int64
	err := db.QueryRow(ctx, `SELECT COUNT(*), COALESCE(MIN(created_at), 0) FROM outbox
		WHERE state IN ('queued', 'sending')`).Scan(&depth, &oldest)
	if err != nil {
		return fmt.Errorf("notify: queue gauges: %w", err)
	}
	m.queueDepth.Set(float64(depth))
	age := 0.0
	if depth > 0 {
		age = max(0, now.Sub(time.UnixMilli(oldest)).Seconds())
	}
	m.oldestAge.Set(age)
	return nil
}
