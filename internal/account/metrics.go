package account

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/audit"
)

// Metrics are the sign-ins' and the hashers' Prometheus metrics (issue
// 33). Labels are closed sets written in this package: a sign-in's method
// and its audit outcome, never an account, an email or an address. A nil
// *Metrics counts nothing.
type Metrics struct {
	signIns  *prometheus.CounterVec
	shed     prometheus.Counter
	admits   [lanes]prometheus.Counter
	hashWait prometheus.Histogram
}

// signInMethods are the audit events that are a sign-in attempt, by the
// method label they count under. A passkey counts here once its assertion
// is checked (settle); a ceremony refused before that is passkey's own.
var signInMethods = map[audit.Name]string{
	audit.LoginAuthentication: "password",
	audit.SSOLogin:            "password",
	audit.LoginTemporary:      "temporary",
	audit.PasskeySignIn:       "passkey",
}

// NewMetrics creates the metrics and registers them with reg (when not
// nil). The common outcomes start at 0, so a dashboard's rate has a series
// before the first failure.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		signIns: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "guichet", Name: "sign_ins_total",
			Help: "Sign-in attempts by method (password, temporary, passkey) and audit outcome (ok, wrong_password, locked, disabled, rate_limited...)."},
			[]string{"method", "outcome"}),
		shed: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "guichet", Subsystem: "hash", Name: "shed_total",
			Help: "Password checks refused before they started (429 BUSY): the expected wait for a hasher passed the budget."}),
		hashWait: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "guichet", Subsystem: "hash", Name: "wait_seconds",
			Help:    "Time from asking for a hasher to one taking the hash.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2, 5}}),
	}
	admits := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "guichet", Subsystem: "hash", Name: "admitted_total",
		Help: "Password checks admitted to the hashers' queue, by lane: returning (a browser with the account's pass, ahead of the others) or other."},
		[]string{"lane"})
	for l, name := range laneNames {
		m.admits[l] = admits.WithLabelValues(name)
	}
	for _, outcome := range []string{"ok", "wrong_password", "locked", "disabled", "rate_limited"} {
		m.signIns.WithLabelValues("password", outcome)
	}
	if reg != nil {
		reg.MustRegister(m.signIns, m.shed, admits, m.hashWait)
	}
	return m
}

// signIn counts e, in tx's commit, when it is a sign-in attempt.
func (m *Metrics) signIn(e audit.Event) func() {
	method, ok := signInMethods[e.Event]
	if m == nil || !ok || e.Outcome == "" {
		return nil
	}
	return func() { m.signIns.WithLabelValues(method, e.Outcome).Inc() }
}

func (m *Metrics) refused() {
	if m != nil {
		m.shed.Inc()
	}
}

// laneNames are the lanes' label values.
var laneNames = [lanes]string{laneOther: "other", laneReturning: "returning"}

func (m *Metrics) admitted(l lane) {
	if m != nil {
		m.admits[l].Inc()
	}
}

func (m *Metrics) waited(d time.Duration) {
	if m != nil {
		m.hashWait.Observe(d.Seconds())
	}
}
