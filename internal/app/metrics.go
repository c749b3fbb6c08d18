package app

import (
	"context"

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
// sockets, and readiness. The outbox's, the fan-out's and co-browse's are
// given where those are built.
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
}
