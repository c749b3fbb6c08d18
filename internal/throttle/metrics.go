package throttle

import "github.com/prometheus/client_golang/prometheus"

// refusals counts the refusals of every Limiter of the process by rule
// scope (a constant of the rule's owner, so a closed set): a dozen
// services make their own limiter on the one database, and the count is
// the process's, as the counters in the database are every instance's.
var refusals = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "guichet", Subsystem: "throttle",
	Name: "refused_total", Help: "Hits over a rate limit (429 RATE_LIMITED or the flow's own refusal), by rule scope."},
	[]string{"scope"})

// Register exposes the refusals on reg (guichet_throttle_refused_total).
func Register(reg prometheus.Registerer) { reg.MustRegister(refusals) }
