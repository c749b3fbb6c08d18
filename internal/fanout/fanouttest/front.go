package fanouttest

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"guichet/config"
	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/staff"
	"guichet/internal/store"
)

// Front is what a hub's test server puts before its routes in place of
// internal/httpapi's middleware (internal/app's tests run the real one):
// the brand site from the host's first label ("<brand>.test"; province and
// language from the headers of those names, on and en when absent) and the
// staff member the X-Test-Staff header names.
type Front struct {
	// Brands is the embedded sample brands.
	Brands *brand.Registry
	mu     sync.Mutex
	staff  map[string]staff.Principal
}

// NewFront is a front on the embedded sample brands.
func NewFront(t testing.TB) *Front {
	t.Helper()
	reg, err := brand.LoadFS(config.Brands(), "embedded")
	if err != nil {
		t.Fatal(err)
	}
	return &Front{Brands: reg, staff: map[string]staff.Principal{}}
}

// Handler serves next behind the front.
func (f *Front) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := strings.Cut(r.Host, ":")
		if b, ok := f.Brands.ByID(strings.Split(host, ".")[0]); ok {
			lang := r.Header.Get("language")
			if lang == "" {
				lang = "en"
			}
			province := r.Header.Get("province")
			if province == "" {
				province = "on"
			}
			r = r.WithContext(api.WithSite(r.Context(), api.Site{Brand: b, Province: province, Language: lang, Dev: true}))
		}
		f.mu.Lock()
		p, ok := f.staff[r.Header.Get("X-Test-Staff")]
		f.mu.Unlock()
		if ok {
			r = r.WithContext(staff.WithPrincipal(r.Context(), p))
		}
		next.ServeHTTP(w, r)
	})
}

// AddStaff creates a staff member in db (role, brands served; none = all)
// whom the front signs in.
func (f *Front) AddStaff(t testing.TB, db *store.DB, id, name string, role staff.Role, brands ...string) staff.Principal {
	t.Helper()
	_, err := db.Exec(context.Background(), `INSERT INTO staff_accounts (id, email, name, role, brands, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, id, id+"@example.com", name, string(role), strings.Join(brands, ","), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := staff.Principal{ID: id, Name: name, Email: id + "@example.com", Role: role, Brands: brands}
	f.Knows(p)
	return p
}

// Knows lets the front sign p in (a staff member another instance's
// front added).
func (f *Front) Knows(p staff.Principal) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.staff[p.ID] = p
}
