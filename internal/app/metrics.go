package app

import (
	"context"
	"crypto/tls"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/account"
	"guichet/internal/chat"
	"guichet/internal/sockets"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// observe gives the services their metrics on reg (issue 33; the list is
// docs/architecture.md "Observability"), each made by the package that
// owns what it measures: the database's errors, the rate limits'
// refusals, the sign-ins and the hashers, the chat queue, the open
// sockets, readiness, and the expiry of the certificate Guichet serves
// when it terminates TLS itself. The outbox's, the fan-out's and
// co-browse's are given where those are built.
func (a *App) observe(reg *prometheus.Registry, chats *chat.Service) {
	a.DB.Metrics = store.NewMetrics(reg)
	throttle.Register(reg)
	accounts := account.NewMetrics(reg)
	a.Accounts.Metrics, a.Accounts.Hasher.Metrics = accounts, accounts
	chats.Metrics = chat.NewMetrics(reg, chats, func() []string {
		var ids []string
		for _, b := range a.Brands.All() {
			ids = append(ids, b.ID)
		}
		return ids
	})
	socks := sockets.NewMetrics(reg)
	a.ChatHub.Registry().Metrics, a.CobrowseHub.Registry().Metrics = socks, socks
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "guichet", Name: "ready",
		Help: "1 when /readyz would answer 200 at the scrape (the database answers, the instance is not draining), else 0."},
		func() float64 {
			if a.draining.Load() || a.DB.Ping(context.Background()) != nil {
				return 0
			}
			return 1
		}))
	a.observeCertificate(reg)
}

// observeCertificate exposes the expiry of GUICHET_TLS_CERT's leaf, read
// once as Serve does (a new certificate takes a restart). Without one (TLS
// ends at the load balancer) the alert reads the blackbox exporter's probe
// of the public endpoint instead (deploy/prometheus/guichet-rules.yaml).
func (a *App) observeCertificate(reg prometheus.Registerer) {
	if a.cfg.TLSCert == "" {
		return
	}
	pair, err := tls.LoadX509KeyPair(a.cfg.TLSCert, a.cfg.TLSKey)
	if err != nil || pair.Leaf == nil {
		slog.Warn("TLS certificate expiry metric", "err", err)
		return
	}
	expiry := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "guichet", Subsystem: "tls", Name: "certificate_expiry_timestamp_seconds",
		Help: "When the certificate served (GUICHET_TLS_CERT) expires, in Unix seconds."})
	expiry.Set(float64(pair.Leaf.NotAfter.Unix()))
	reg.MustRegister(expiry)
}
