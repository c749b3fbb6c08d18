package chat

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/store"
)

// Metrics are the chat's Prometheus metrics (issue 33): the live
// conversations waiting for an agent, read from the database at each
// scrape (every instance reports the shared queue), and how long each
// waited until an agent took it. A nil *Metrics counts nothing.
type Metrics struct {
	wait prometheus.Histogram
}

// NewMetrics creates the metrics of svc's queue and registers them with
// reg (when not nil). brands lists the brands served: each has its queue's
// series, 0 while nobody waits.
func NewMetrics(reg prometheus.Registerer, svc *Service, brands func() []string) *Metrics {
	m := &Metrics{wait: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "guichet", Subsystem: "chat",
		Name: "wait_for_agent_seconds", Help: "Time a live conversation waited in the queue until an agent took it (accepted or auto-assigned).",
		Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600}})}
	if reg != nil {
		reg.MustRegister(m.wait, &queueCollector{svc: svc, brands: brands,
			length: prometheus.NewDesc("guichet_chat_queue_length", "Live conversations waiting for an agent, by brand.", []string{"brand"}, nil),
			oldest: prometheus.NewDesc("guichet_chat_queue_oldest_wait_seconds", "How long the oldest live conversation waiting has waited, by brand.", []string{"brand"}, nil),
		})
	}
	return m
}

// took counts, once tx commits, the wait of conversation id that an
// agent takes at now (unix ms) out of the queue.
func (m *Metrics) took(ctx context.Context, tx *store.Tx, id string, now int64) error {
	if m == nil {
		return nil
	}
	var since int64
	if err := tx.QueryRow(ctx, "SELECT waiting_since FROM chat_conversations WHERE id = ?", id).Scan(&since); err != nil {
		return err
	}
	if since > 0 {
		tx.AfterCommit(func() { m.wait.Observe(max(0, time.Duration(now-since)*time.Millisecond).Seconds()) })
	}
	return nil
}

// queueCollector reads the queue at each scrape. A failed read is logged
// and reports nothing (the database errors and readiness say why), so
// /metrics still answers during an outage.
type queueCollector struct {
	svc            *Service
	brands         func() []string
	length, oldest *prometheus.Desc
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.length; ch <- c.oldest }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	rows, err := c.svc.DB.Query(ctx, `SELECT brand, COUNT(*), MIN(waiting_since) FROM chat_conversations
		WHERE status = 'waiting' AND kind = 'live' GROUP BY brand`)
	if err != nil {
		slog.Warn("chat queue metrics", "err", err)
		return
	}
	type queue struct{ n, since int64 }
	queues := map[string]queue{}
	for _, b := range c.brands() {
		queues[b] = queue{}
	}
	defer rows.Close()
	for rows.Next() {
		var brand string
		var q queue
		if err := rows.Scan(&brand, &q.n, &q.since); err != nil {
			slog.Warn("chat queue metrics", "err", err)
			return
		}
		queues[brand] = q
	}
	if err := rows.Err(); err != nil {
		slog.Warn("chat queue metrics", "err", err)
		return
	}
	now := c.svc.now().UnixMilli()
	for brand, q := range queues {
		age := 0.0
		if q.n > 0 {
			age = max(0, float64(now-q.since)/1000)
		}
		ch <- prometheus.MustNewConstMetric(c.length, prometheus.GaugeValue, float64(q.n), brand)
		ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age, brand)
	}
}
