package store

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics count the database's errors by operation (begin, commit, exec,
// query, ping) and class (unavailable: an outage, Unavailable; other: a
// bug, bad data, a conflict past its retries). Not counted: a statement
// whose context ended (a client gone, a deadline: the caller's story), a
// unique violation (flows insert and take the violation as an answer), and
// QueryRow, whose error surfaces at Scan, in the caller (an outage shows
// in the other operations). A nil *Metrics counts nothing.
type Metrics struct {
	errors *prometheus.CounterVec
}

// NewMetrics creates the counter and registers it with reg (when not nil).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{errors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "guichet", Subsystem: "db",
		Name: "errors_total", Help: "Database errors by operation (begin, commit, exec, query, ping) and class (unavailable, other)."},
		[]string{"op", "class"})}
	for _, op := range []string{"begin", "commit", "exec", "query", "ping"} {
		m.errors.WithLabelValues(op, "unavailable")
	}
	if reg != nil {
		reg.MustRegister(m.errors)
	}
	return m
}

// failed counts err (when it is one to count) of op on db.
func (db *DB) failed(ctx context.Context, op string, err error) {
	m := db.Metrics
	if m == nil || err == nil || ctx.Err() != nil || IsUniqueViolation(err) {
		return
	}
	class := "other"
	if Unavailable(err) {
		class = "unavailable"
	}
	m.errors.WithLabelValues(op, class).Inc()
}
