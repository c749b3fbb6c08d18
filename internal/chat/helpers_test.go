package chat

import (
	"context"
	"testing"
	"time"

	"guichet/internal/brand"
	"guichet/internal/fanout/fanouttest"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/testclock"
	"guichet/internal/throttle"
)

// tuesday10 is a Tuesday at 10:00 in Toronto: every brand with hours is
// open in on and qc.
var tuesday10 = time.Date(2026, 11, 24, 15, 0, 0, 0, time.UTC)

// env is one chat service on a fresh database, without HTTP (chatapi's
// tests put the API and the sockets in front of one).
type env struct {
	t      *testing.T
	db     *store.DB
	clock  *testclock.Clock
	brands *brand.Registry
	svc    *Service
	front  *fanouttest.Front
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	front := fanouttest.NewFront(t)
	clock := testclock.At(tuesday10)
	svc := &Service{DB: db, Brands: front.Brands.ByID, Now: clock.Now, Limiter: throttle.New(db, clock.Now), Notifier: &LocalNotifier{}}
	return &env{t: t, db: db, clock: clock, brands: front.Brands, svc: svc, front: front}
}

// addStaff creates a staff member (role, brands served; none = all).
func (e *env) addStaff(id, name string, role staff.Role, brands ...string) staff.Principal {
	e.t.Helper()
	return e.front.AddStaff(e.t, e.db, id, name, role, brands...)
}

// available makes an agent available in languages (a heartbeat now).
func (e *env) available(p staff.Principal, languages ...string) {
	e.t.Helper()
	if err := e.svc.SetAvailability(context.Background(), p.ID, AgentAvailable, languages); err != nil {
		e.t.Fatal(err)
	}
}
