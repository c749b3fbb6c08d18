package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/brand"
	"guichet/internal/recovery"
	"guichet/internal/registration"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

func mustProxies(t *testing.T, list string) Proxies {
	t.Helper()
	p, err := ParseProxies(list)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestClientIPWalksForwardedForFromTheRight(t *testing.T) {
	proxies := mustProxies(t, "10.0.0.0/8, 192.0.2.10, 2001:db8:ffff::/48")
	cases := []struct {
		name, peer string
		xff        []string // header lines
		want       string
	}{
		{"no header: the peer", "198.51.100.1:4000", nil, "198.51.100.1"},
		{"untrusted peer: its header is ignored", "198.51.100.1:4000", []string{"203.0.113.9"}, "198.51.100.1"},
		{"one trusted proxy", "10.1.2.3:4000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"forged first entry is not the client", "10.1.2.3:4000", []string{"6.6.6.6, 203.0.113.9"}, "203.0.113.9"},
		{"two trusted hops are skipped", "10.1.2.3:4000", []string{"6.6.6.6, 203.0.113.9, 192.0.2.10"}, "203.0.113.9"},
		{"an untrusted hop inside the chain stops the walk", "10.1.2.3:4000", []string{"203.0.113.9, 198.51.100.7, 10.9.9.9"}, "198.51.100.7"},
		{"several header lines are one list", "10.1.2.3:4000", []string{"6.6.6.6", "203.0.113.9"}, "203.0.113.9"},
		{"trusted peer, no header: the peer", "10.1.2.3:4000", nil, "10.1.2.3"},
		{"every hop trusted: the leftmost", "10.1.2.3:4000", []string{"10.0.0.5, 192.0.2.10"}, "10.0.0.5"},
		{"garbage stops at the proxy that passed it", "10.1.2.3:4000", []string{"203.0.113.9, <script>"}, "10.1.2.3"},
		{"garbage left of the client is not read", "10.1.2.3:4000", []string{"not-an-ip, 203.0.113.9"}, "203.0.113.9"},
		{"entries with ports", "10.1.2.3:4000", []string{"203.0.113.9:5555, [2001:db8:ffff::1]:443"}, "203.0.113.9"},
		{"IPv6 client through an IPv6 proxy", "[2001:db8:ffff::2]:443", []string{"2001:db8:1:2::77"}, "2001:db8:1:2::77"},
		{"IPv4-mapped peer is IPv4", "[::ffff:10.1.2.3]:4000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"empty entries are skipped", "10.1.2.3:4000", []string{"203.0.113.9, , "}, "203.0.113.9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = c.peer
			for _, v := range c.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := proxies.clientIP(r); got != c.want {
				t.Fatalf("clientIP = %q, want %q", got, c.want)
			}
		})
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.1.2.3:4000"
	r.Header.Set("X-Forwarded-For", "203.0.113.9")
	if got := Proxies(nil).clientIP(r); got != "10.1.2.3" {
		t.Fatalf("no trusted proxies: clientIP = %q, want the peer", got)
	}
}

func TestParseProxies(t *testing.T) {
	good := []struct{ in, want string }{
		{"", "[]"},
		{"10.0.0.0/8", "[10.0.0.0/8]"},
		{" 192.0.2.10 , 2001:db8::1 ", "[192.0.2.10/32 2001:db8::1/128]"},
		{"10.1.2.3/8", "[10.0.0.0/8]"},
		{"::ffff:10.0.0.0/104", "[10.0.0.0/8]"},
	}
	for _, c := range good {
		p, err := ParseProxies(c.in)
		if err != nil || fmt.Sprint([]any{p}) != "["+c.want+"]" {
			t.Errorf("ParseProxies(%q) = %v, %v; want %s", c.in, p, err, c.want)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "lb.example", "10.0.0.1:80", "::ffff:0:0/90", "1"} {
		if _, err := ParseProxies(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseProxies(%q) = %v, want an error naming it", bad, err)
		}
	}
}

func TestHSTSOnlyFromATrustedProxy(t *testing.T) {
	h, _ := testServer(t, Config{Dev: true, TrustedProxies: mustProxies(t, "10.0.0.0/8")})
	for _, c := range []struct {
		peer, proto string
		want        bool
	}{
		{"10.0.0.1:1", "https", true},
		{"10.0.0.1:1", "http", false},
		{"10.0.0.1:1", "http, https", true},
		{"198.51.100.1:1", "https", false},
	} {
		rec := testenv.Do(t, h, testenv.Request{Path: "/", Host: "belair.localhost", Peer: c.peer,
			Headers: map[string]string{"X-Forwarded-Proto": c.proto}})
		if got := rec.Header.Get("Strict-Transport-Security") != ""; got != c.want {
			t.Errorf("peer %s proto %q: HSTS %v, want %v", c.peer, c.proto, got, c.want)
		}
	}
}

// signInServer is the HTTP layer with the sign-in routes on db (cheap hash
// parameters), to count the per-client limits end to end.
func signInServer(t *testing.T, db *store.DB, cfg Config) (http.Handler, *brand.Brand) {
	t.Helper()
	h, b, _ := signInServerOf(t, db, cfg)
	return h, b
}

// signInServerOf is signInServer with its account service (its hasher).
func signInServerOf(t *testing.T, db *store.DB, cfg Config) (http.Handler, *brand.Brand, *account.Service) {
	t.Helper()
	accounts := account.NewService(db, accounttest.Hasher(), time.Now)
	h, brands := newServer(t, cfg, Deps{DB: db, Account: &account.Handler{Service: accounts}})
	return h, testenv.Brand(t, brands, "belair"), accounts
}

// authenticate posts a wrong password for an unknown account from peer
// with the given X-Forwarded-For, and returns the status.
func authenticate(t testing.TB, h http.Handler, b *brand.Brand, peer, xff string) int {
	t.Helper()
	header := map[string]string{"api-key": b.APIKey, "Content-Type": "application/json"}
	if xff != "" {
		header["X-Forwarded-For"] = xff
	}
	return testenv.Do(t, h, testenv.Request{Method: "POST", Path: "/api/v1/accounts/AAAAAAAAAAAAAAAAAAAAAA/authentication",
		Host: "belair.localhost", Peer: peer, Headers: header, Body: `{"password":"Wrong-Password-1!"}`}).Status
}

// TestForgedForwardedForDoesNotEscapeTheLimit: a client behind the trusted
// load balancer writes a new first X-Forwarded-For entry on every try; the
// limit (20 a minute) still counts its real address.
func TestForgedForwardedForDoesNotEscapeTheLimit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		h, b := signInServer(t, db, Config{Dev: true, TrustedProxies: mustProxies(t, "10.0.0.0/8")})
		statuses := map[int]int{}
		for i := range 30 {
			statuses[authenticate(t, h, b, "10.0.0.2:5000", fmt.Sprintf("198.18.%d.%d, 203.0.113.9", i/250, i%250+1))]++
		}
		if statuses[http.StatusTooManyRequests] != 10 {
			t.Fatalf("statuses %v, want the last 10 of 30 refused with 429", statuses)
		}
		ips := storetest.Strings(t, db, "SELECT DISTINCT ip FROM audit_events")
		if fmt.Sprint(ips) != "[203.0.113.9]" {
			t.Fatalf("audited IPs %v, want the real client only", ips)
		}
	})
}

// TestIPv6ClientsShareALimitPerSlash64: a client rotating through the
// addresses of its /64 is one client for the limits; the audit trail keeps
// each full address, and another /64 has a limit of its own.
func TestIPv6ClientsShareALimitPerSlash64(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		h, b := signInServer(t, db, Config{Dev: true})
		statuses := map[int]int{}
		for i := range 25 {
			statuses[authenticate(t, h, b, fmt.Sprintf("[2001:db8:1:2:%x::1]:443", i+1), "")]++
		}
		if statuses[http.StatusTooManyRequests] != 5 {
			t.Fatalf("statuses %v, want the last 5 of 25 refused with 429", statuses)
		}
		if got := authenticate(t, h, b, "[2001:db8:1:3::1]:443", ""); got == http.StatusTooManyRequests {
			t.Fatal("the next /64 is limited too")
		}
		var n int
		if err := db.QueryRow(context.Background(), "SELECT COUNT(DISTINCT ip) FROM audit_events WHERE ip LIKE '2001:db8:1:2:%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 25 {
			t.Fatalf("%d distinct audited addresses, want the 25 full ones", n)
		}
	})
}

// Refusing before doing work (shed.go, issue 34): with the sign-in routes
// above, the hashers' admission and the bound on requests under way.

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

// With a handler that counts: a refused request to a hashing route never
// reaches it, and a request to a route that does not hash is never held.
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

// TestShedFirstHoldsItsRefusals: a refusal waits ShedHold before its 429
// (so a client that sends again as soon as it hears costs one refusal a
// hold, not thousands), ends when its client goes, and past 2 ×
// MaxInFlight held at once the next is answered at once; a request that
// passes is never held. The hold is an hour: nothing here waits for it.
func TestShedFirstHoldsItsRefusals(t *testing.T) {
	accounts := account.NewService(storetest.Open(t), accounttest.Hasher(), time.Now)
	accounts.Hasher.WaitBudget = time.Nanosecond // every expected wait passes it
	reg := prometheus.NewRegistry()
	s := &server{cfg: Config{Dev: true, MaxInFlight: 1, ShedHold: time.Hour}, deps: Deps{Account: &account.Handler{Service: accounts}},
		metrics: newHTTPMetrics(reg)}
	gate := s.shedFirst(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	cancels := make(chan context.CancelFunc, 3)
	send := func(path string) <-chan testenv.Answer {
		answered := make(chan testenv.Answer, 1)
		go func() {
			answered <- testenv.Do(t, gate, testenv.Request{Method: "POST", Path: path, Host: "belair.localhost", Body: "{}",
				Context: func(ctx context.Context) context.Context {
					ctx, cancel := context.WithCancel(ctx)
					cancels <- cancel
					return ctx
				}})
		}()
		return answered
	}
	// within is the answer of a request that is not held (a hang bound).
	within := func(what string, answered <-chan testenv.Answer) testenv.Answer {
		select {
		case a := <-answered:
			return a
		case <-time.After(time.Minute):
			t.Fatalf("%s: no answer, held", what)
			return testenv.Answer{}
		}
	}
	const refused = "/api/v1/accounts/AAAAAAAAAAAAAAAAAAAAAA/authentication"
	first := send(refused)
	stopFirst := <-cancels
	defer stopFirst()
	second := send(refused)
	stopSecond := <-cancels
	defer stopSecond()
	// heldNow waits until n refusals are held (a hang bound, not a timing).
	heldNow := func(n int) {
		for deadline := time.Now().Add(time.Minute); len(s.held) != n; runtime.Gosched() {
			if time.Now().After(deadline) {
				t.Fatalf("%d refusals held, want %d", len(s.held), n)
			}
		}
	}
	heldNow(2)
	within("a refusal past the bound", send(refused)).Expect(t, http.StatusTooManyRequests, "BUSY")
	<-cancels
	within("a request that is not refused", send("/api/v1/accounts/find")).Expect(t, http.StatusOK, "")
	<-cancels
	select {
	case a := <-first:
		t.Fatalf("a held refusal was answered before its hold: %d", a.Status)
	default:
	}
	stopFirst() // the client goes: the refusal is answered, its place freed
	within("a held refusal whose client went", first).Expect(t, http.StatusTooManyRequests, "BUSY")
	heldNow(1)
	stopSecond()
	within("the second held refusal", second).Expect(t, http.StatusTooManyRequests, "BUSY")
	// Counted apart, so operators see the bound reached.
	for answered, want := range map[string]float64{"held": 2, "at_once": 1} {
		if got := testenv.Metric(t, reg, "guichet_http_shed_refusals_total", "answered", answered); got != want {
			t.Errorf("refusals answered %s: %v, want %v", answered, got, want)
		}
	}
}

// A held refusal ends by itself once ShedHold has passed, and its
// Retry-After counts the time held as spent (at least 1).
func TestShedFirstAnswersOnceHeld(t *testing.T) {
	accounts := account.NewService(storetest.Open(t), accounttest.Hasher(), time.Now)
	accounts.Hasher.WaitBudget = time.Nanosecond
	s := &server{cfg: Config{Dev: true, ShedHold: time.Millisecond}, deps: Deps{Account: &account.Handler{Service: accounts}}}
	gate := s.shedFirst(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	answered := make(chan testenv.Answer, 1)
	go func() {
		answered <- testenv.Do(t, gate, testenv.Request{Method: "POST", Path: "/api/v1/accounts/AAAAAAAAAAAAAAAAAAAAAA/authentication",
			Host: "belair.localhost", Body: "{}"})
	}()
	select {
	case a := <-answered:
		a.Expect(t, http.StatusTooManyRequests, "BUSY")
		if a.Header.Get("Retry-After") != "1" {
			t.Fatalf("Retry-After %q, want 1", a.Header.Get("Retry-After"))
		}
	case <-time.After(time.Minute): // a hang bound
		t.Fatal("a refusal held a millisecond was never answered")
	}
}

// Held refusals sit before inFlight in the middleware: with one place
// under way allowed and a refusal held, another request still gets it.
func TestHeldRefusalsTakeNoPlaceInFlight(t *testing.T) {
	accounts := account.NewService(storetest.Open(t), accounttest.Hasher(), time.Now)
	accounts.Hasher.WaitBudget = time.Nanosecond
	s := &server{cfg: Config{Dev: true, MaxInFlight: 1, ShedHold: time.Hour}, deps: Deps{Account: &account.Handler{Service: accounts}},
		metrics: newHTTPMetrics(prometheus.NewRegistry())}
	h := s.middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := make(chan testenv.Answer, 1)
	go func() {
		held <- testenv.Do(t, h, testenv.Request{Method: "POST", Path: "/api/v1/accounts/AAAAAAAAAAAAAAAAAAAAAA/authentication",
			Host: "belair.localhost", Body: "{}", Context: func(context.Context) context.Context { return ctx }})
	}()
	for deadline := time.Now().Add(time.Minute); len(s.held) != 1; runtime.Gosched() { // a hang bound
		if time.Now().After(deadline) {
			t.Fatal("the refusal was never held")
		}
	}
	if a := testenv.Do(t, h, testenv.Request{Method: "POST", Path: "/api/v1/accounts/find", Host: "belair.localhost", Body: "{}"}); a.Status == http.StatusServiceUnavailable {
		t.Fatalf("a request while a refusal is held: %d %s, want the place under way", a.Status, a.Body)
	}
	cancel()
	(<-held).Expect(t, http.StatusTooManyRequests, "BUSY")
}

// TestInFlightIsBounded: past MaxInFlight requests under way, the next is
// answered 503 OVERLOADED with Retry-After at once, the load balancer's
// checks and WebSocket upgrades excepted; requests done free their places.
func TestInFlightIsBounded(t *testing.T) {
	const bound = 3
	reg := prometheus.NewRegistry()
	s := &server{cfg: Config{MaxInFlight: bound}, metrics: newHTTPMetrics(reg)}
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
	// Each refusal counted as a 503 of route "overloaded" (the 5xx alert's series).
	for method, want := range map[string]float64{"GET": 4, "POST": 1} {
		if got := testenv.Metric(t, reg, "guichet_http_requests_total", "route", "overloaded", "method", method, "status", "503"); got != want {
			t.Errorf("overloaded %s counted %v, want %v", method, got, want)
		}
	}
	close(hold) // the slow requests end and free their places
	served.Wait()
	for range 2 * bound {
		testenv.Do(t, gate, testenv.Request{Path: "/api/v1/welcome"}).Expect(t, http.StatusOK, "")
	}
}

// Issue 34: with the hashers' queue at its budget, a sign-in from a
// browser holding the account's pass passes shedFirst and is admitted in
// the returning lane by its service; a pass for another account, a
// changed or an expired one, or none, is refused as before.
func TestShedFirstLetsAReturningBrowserThrough(t *testing.T) {
	db := storetest.Open(t)
	clock := testclock.New()
	accounts := account.NewService(db, accounttest.Hasher().Alone(), clock.Now)
	accounts.Hasher.Now, accounts.Hasher.ClientShare = clock.Now, 0
	passes, err := account.NewPasses(t.Context(), db, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	accounts.Passes = passes
	// The queue at its budget: places taken by other addresses until the
	// next one would be refused.
	for i := 0; accounts.Hasher.Check("198.51.100.1", "") == nil; i++ {
		if i == 100_000 {
			t.Fatal("the queue never filled")
		}
		if _, _, err := accounts.Hasher.AdmitClient(t.Context(), fmt.Sprintf("10.0.%d.%d", i/256, i%256)); err != nil {
			t.Fatal(err)
		}
	}
	s := &server{cfg: Config{Dev: true}, deps: Deps{Account: &account.Handler{Service: accounts}}}
	admitted := 0
	gate := s.shedFirst(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// What the sign-in's service does first: admission, here in the
		// returning lane or refused.
		_, release, err := accounts.Hasher.AdmitClient(r.Context(), "198.51.100.1")
		if err != nil {
			t.Errorf("shedFirst let through a request its service refused: %v", err)
			return
		}
		release()
		admitted++
	}))
	const id, other = "AAAAAAAAAAAAAAAAAAAAAA", "BBBBBBBBBBBBBBBBBBBBBB"
	valid := passes.Issue(id)
	expired := valid
	clock.Advance(account.PassAge)
	valid = passes.Issue(id)
	tampered := strings.Replace(valid, id, other, 1)
	for _, c := range []struct {
		name    string
		path    string
		cookies []*http.Cookie
		through bool
	}{
		{"the account's pass", "/api/v1/accounts/" + id + "/authentication", []*http.Cookie{{Name: account.PassCookie, Value: valid}}, true},
		{"the --dev name", "/api/v1/accounts/" + id + "/authentication", []*http.Cookie{{Name: account.DevPassCookie, Value: valid}}, true},
		{"no pass", "/api/v1/accounts/" + id + "/authentication", nil, false},
		{"another account's pass", "/api/v1/accounts/" + other + "/authentication", []*http.Cookie{{Name: account.PassCookie, Value: valid}}, false},
		{"a changed pass", "/api/v1/accounts/" + other + "/authentication", []*http.Cookie{{Name: account.PassCookie, Value: tampered}}, false},
		{"an expired pass", "/api/v1/accounts/" + id + "/authentication", []*http.Cookie{{Name: account.PassCookie, Value: expired}}, false},
		{"another hashing route", "/api/v1/accounts/" + id + "/temporary", []*http.Cookie{{Name: account.PassCookie, Value: valid}}, false},
	} {
		before := admitted
		a := testenv.Do(t, gate, testenv.Request{Method: "POST", Path: c.path, Host: "belair.localhost", Body: "{}", Cookies: c.cookies})
		if through := admitted > before; through != c.through || !through && a.Status != http.StatusTooManyRequests {
			t.Errorf("%s: through %v (answered %d), want %v", c.name, through, a.Status, c.through)
		}
	}
}

// The returning lane's path is the authentication route's, which
// TestHashingRoutesAreInTheTable keeps to the route table.
func TestTheReturningLanesRouteIsAHashingRoute(t *testing.T) {
	if p := "POST " + signInPrefix + "{id}" + signInSuffix; !slices.Contains(hashingRoutes, p) {
		t.Fatalf("%q is not one of hashingRoutes %v", p, hashingRoutes)
	}
}
