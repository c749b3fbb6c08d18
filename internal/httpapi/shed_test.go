package httpapi

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/recovery"
	"guichet/internal/registration"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// TestHashingRoutesAreInTheTable: every route shedFirst admits is one of
// the route table's, so a renamed route cannot silently lose its shedding.
func TestHashingRoutesAreInTheTable(t *testing.T) {
	srv, _ := newServer(t, Config{Dev: true}, Deps{Account: &account.Handler{}, Recovery: &recovery.Handler{},
		Registration: &registration.Handler{}})
	patterns := map[string]bool{}
	for _, r := range srv.(*Server).Routes() {
		patterns[r.Pattern] = true
	}
	for _, p := range hashingRoutes {
		if !patterns[p] {
			t.Errorf("shed.go's hashingRoutes names %q, which the route table does not serve", p)
		}
	}
}

// Issue 34: with one address holding its share of the hashers' places, its
// next sign-in is refused in the first middleware (429 BUSY, Retry-After,
// the service's bytes): no request line logged, nothing of the handler
// run (no decoding, no database, no hash), nothing counted; a sign-in from
// another address at the same moment goes through to the service.
func TestOneAddressIsShedBeforeAnythingRuns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		h, b, accounts := signInServerOf(t, db, Config{Dev: true})
		hasher := accounts.Hasher
		const flooder, visitor = "203.0.113.7", "198.51.100.9"
		var held []func()
		defer func() {
			for _, release := range held {
				release()
			}
		}()
		for {
			_, release, err := hasher.AdmitClient(context.Background(), flooder)
			if err != nil {
				break
			}
			held = append(held, release)
			if len(held) > 1_000_000 {
				t.Fatal("one address was never refused its places")
			}
		}
		logs := testenv.CaptureLog(t)
		before := storetest.Snapshot(t, db, "rate_limits", "login_failures", "audit_events")
		signIn := func(ip string) testenv.Answer {
			return testenv.Do(t, h, testenv.Request{Method: "POST", Path: "/api/v1/accounts/AAAAAAAAAAAAAAAAAAAAAA/authentication",
				Host: "belair.localhost", IP: ip, Body: `{"password":"Wrong-Password-1!"}`,
				Headers: map[string]string{"api-key": b.APIKey, "Content-Type": "application/json"}})
		}
		shed := signIn(flooder)
		if shed.Status != http.StatusTooManyRequests || shed.Header.Get("Retry-After") == "" ||
			strings.TrimSpace(string(shed.Body)) != `{"errorCode":"BUSY","messageKey":"error.busy"}` {
			t.Fatalf("the flooding address: %d, Retry-After %q, %s; want 429 BUSY", shed.Status, shed.Header.Get("Retry-After"), shed.Body)
		}
		if shed.Header.Get("X-Request-Id") != "" || logs.String() != "" {
			t.Fatalf("a refusal went past the first middleware: request id %q, log %q", shed.Header.Get("X-Request-Id"), logs.String())
		}
		if after := storetest.Snapshot(t, db, "rate_limits", "login_failures", "audit_events"); after != before {
			t.Fatalf("a refusal counted:\nbefore %s\nafter  %s", before, after)
		}
		signIn(visitor).Expect(t, http.StatusBadRequest, "")
		if n := strings.Count(logs.String(), `"msg":"request"`); n != 1 {
			t.Fatalf("%d request lines for the visitor's admitted sign-in, want 1: %s", n, logs)
		}
		if after := storetest.Snapshot(t, db, "audit_events"); after == before {
			t.Fatal("the visitor's sign-in reached no service")
		}
	})
}

// With a handler that counts: a refused request never reaches it, an
// admitted one reaches it with its place in the context, and a request to
// a route that does not hash is never held.
func TestShedFirstRunsNothingOfARefusal(t *testing.T) {
	accounts := account.NewService(storetest.Open(t), accounttest.Hasher(), time.Now)
	accounts.Hasher.WaitBudget = time.Nanosecond // every expected wait passes it
	s := &server{cfg: Config{Dev: true}, deps: Deps{Account: &account.Handler{Service: accounts}}}
	var mu sync.Mutex
	reached := map[string]int{}
	gate := s.shedFirst(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached[r.URL.Path]++
		mu.Unlock()
	}))
	for _, c := range []struct {
		method, path string
		reach        bool
	}{
		{"POST", "/api/v1/accounts/AAAAAAAAAAAAAAAAAAAAAA/authentication", false},
		{"POST", "/api/v1/accounts/AAAAAAAAAAAAAAAAAAAAAA/temporary", false},
		{"POST", "/api/v1/me/password", false},
		{"POST", "/api/v1/accounts/find", true},
		{"GET", "/api/v1/accounts/AAAAAAAAAAAAAAAAAAAAAA/authentication", true},
		{"POST", "/pkmslogin.form", true},
	} {
		a := testenv.Do(t, gate, testenv.Request{Method: c.method, Path: c.path, Host: "belair.localhost", Body: "{}"})
		mu.Lock()
		got := reached[c.path]
		mu.Unlock()
		if c.reach != (got == 1) || !c.reach && a.Status != http.StatusTooManyRequests {
			t.Errorf("%s %s: reached the handler %d times, answered %d; want reached %v", c.method, c.path, got, a.Status, c.reach)
		}
	}
}

// TestInFlightIsBounded: past MaxInFlight requests under way, the next is
// answered 503 OVERLOADED with Retry-After at once, the load balancer's
// checks and WebSocket upgrades excepted; requests done free their places.
func TestInFlightIsBounded(t *testing.T) {
	const bound = 3
	s := &server{cfg: Config{MaxInFlight: bound}}
	entered, hold := make(chan struct{}), make(chan struct{})
	var served sync.WaitGroup
	gate := s.inFlight(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			entered <- struct{}{}
			<-hold
		}
	}))
	for range bound {
		served.Go(func() { testenv.Do(t, gate, testenv.Request{Path: "/slow"}) })
		<-entered
	}
	over := testenv.Do(t, gate, testenv.Request{Path: "/api/v1/welcome"})
	over.Expect(t, http.StatusServiceUnavailable, "OVERLOADED")
	if over.Header.Get("Retry-After") != "1" || over.JSON(t)["messageKey"] != "error.busy" {
		t.Fatalf("Retry-After %q, body %s", over.Header.Get("Retry-After"), over.Body)
	}
	if page := testenv.Do(t, gate, testenv.Request{Path: "/forgot"}); page.Status != http.StatusServiceUnavailable ||
		!strings.Contains(string(page.Body), "503") {
		t.Fatalf("a page past the bound: %d %s", page.Status, page.Body)
	}
	upgrade := map[string]string{"Upgrade": "websocket", "Connection": "Upgrade"}
	for _, r := range []testenv.Request{{Path: "/healthz"}, {Path: "/readyz"},
		{Path: "/api/v1/chat/socket", Headers: upgrade}, {Path: "/api/console/v1/cobrowse/sessions/AAAAAAAAAAAAAAAAAAAAAA/socket", Headers: upgrade}} {
		if a := testenv.Do(t, gate, r); a.Status != http.StatusOK {
			t.Errorf("%s past the bound: %d, want it served", r.Path, a.Status)
		}
	}
	// Saying Upgrade elsewhere escapes nothing.
	for _, r := range []testenv.Request{{Path: "/api/v1/welcome", Headers: upgrade},
		{Method: "POST", Path: "/api/v1/chat/socket", Headers: upgrade}, {Path: "/api/v1/chat/socket", Headers: map[string]string{"Upgrade": "h2c"}}} {
		if a := testenv.Do(t, gate, r); a.Status != http.StatusServiceUnavailable {
			t.Errorf("%s %s with Upgrade %s past the bound: %d, want 503", r.Method, r.Path, r.Headers["Upgrade"], a.Status)
		}
	}
	close(hold) // the slow requests end and free their places
	served.Wait()
	for range 2 * bound {
		testenv.Do(t, gate, testenv.Request{Path: "/api/v1/welcome"}).Expect(t, http.StatusOK, "")
	}
}
