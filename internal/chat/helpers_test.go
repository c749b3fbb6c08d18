package chat

import (
	"context"
	"testing"

	"guichet/internal/fanout/fanouttest"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
	"guichet/internal/throttle"
)

// env is one chat service on a fresh database (testenv.Env), without HTTP
// (chatapi's tests put the API and the sockets in front of one), its clock
// at testenv.ChatHours; the front gives the brands (Brands) and the staff
// members.
type env struct {
	*testenv.Env
	*fanouttest.Front
	t   *testing.T
	svc *Service
}

// each runs fn on a fresh env on SQLite and PostgreSQL (testenv.Each).
func each(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	testenv.Each(t, func(t *testing.T, te *testenv.Env) { fn(t, newEnv(t, te.DB)) })
}

// unthrottled is an env on SQLite without the visitors' rate limit, for
// the tests that open many conversations.
func unthrottled(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, storetest.Open(t))
	e.svc.Limiter = nil
	return e
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	e := &env{Env: testenv.NewInChatHours(db), Front: fanouttest.NewFront(t), t: t}
	e.svc = &Service{DB: db, Brands: e.Brands.ByID, Now: e.Clock.Now, Limiter: throttle.New(db, e.Clock.Now), Notifier: &LocalNotifier{}}
	return e
}

// addStaff creates a staff member (role, brands served; none = all).
func (e *env) addStaff(id, name string, role staff.Role, brands ...string) staff.Principal {
	e.t.Helper()
	return e.AddStaff(e.t, e.DB, id, name, role, brands...)
}

// available makes an agent available in languages (a heartbeat now).
func (e *env) available(p staff.Principal, languages ...string) {
	e.t.Helper()
	if err := e.svc.SetAvailability(context.Background(), p.ID, AgentAvailable, languages); err != nil {
		e.t.Fatal(err)
	}
}
