package fanouttest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/testenv"
)

// Site is what the tests of a hub's routes (chat, co-browse) share: a fresh
// environment (testenv.Env, its clock at testenv.ChatHours), the Front on
// the sample brands and, once served, the routes behind the front, served
// to testenv.Do (H) and, for the sockets, by an HTTP server (Srv). A
// package's env embeds it and adds its services.
type Site struct {
	*testenv.Env
	T      *testing.T
	Brands *brand.Registry
	Front  *Front
	H      http.Handler
	Srv    *httptest.Server
}

// NewSite is the site of a test on db, not served yet (Serve).
func NewSite(t *testing.T, db *store.DB) *Site {
	t.Helper()
	front := NewFront(t)
	return &Site{Env: testenv.NewInChatHours(db), T: t, Brands: front.Brands, Front: front}
}

// Routes is the routes (method patterns, as testenv.Mux) behind the front.
func (s *Site) Routes(routes map[string]api.Handler) http.Handler {
	return s.Front.Handler(testenv.Mux(routes))
}

// Serve makes h the site's handler (H) and serves it over HTTP (Srv,
// closed when the test ends).
func (s *Site) Serve(h http.Handler) {
	s.H = h
	s.Srv = httptest.NewServer(h)
	s.T.Cleanup(s.Srv.Close)
}

// AddStaff creates a staff member (role, brands served; none = all) whom
// the front signs in.
func (s *Site) AddStaff(id, name string, role staff.Role, brands ...string) staff.Principal {
	s.T.Helper()
	return s.Front.AddStaff(s.T, s.DB, id, name, role, brands...)
}
