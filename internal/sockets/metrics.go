package sockets

import "github.com/prometheus/client_golang/prometheus"

// Kinds of socket, the label of the open sockets gauge.
const (
	KindChatVisitor     = "chat_visitor"
	KindChatAgent       = "chat_agent"
	KindCobrowseVisitor = "cobrowse_visitor"
	KindCobrowseViewer  = "cobrowse_viewer"
)

// Metrics count the open WebSockets of the hubs given them, by kind
// (issue 33). A nil *Metrics counts nothing.
type Metrics struct {
	open *prometheus.GaugeVec
}

// NewMetrics creates the gauge and registers it with reg (when not nil);
// every kind starts at 0.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{open: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "guichet", Name: "websockets_open",
		Help: "WebSockets open on this instance, by kind (chat_visitor, chat_agent, cobrowse_visitor, cobrowse_viewer)."},
		[]string{"kind"})}
	for _, k := range []string{KindChatVisitor, KindChatAgent, KindCobrowseVisitor, KindCobrowseViewer} {
		m.open.WithLabelValues(k)
	}
	if reg != nil {
		reg.MustRegister(m.open)
	}
	return m
}

func (m *Metrics) add(kind string, n float64) {
	if m != nil {
		m.open.WithLabelValues(kind).Add(n)
	}
}
