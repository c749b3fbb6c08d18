package httpapi

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/throttle"
)

// Refusing before doing work (issue 34). Under a sustained flood of sign-ins
// the hashers' queue stays at its bound, and the refusals are most of the
// requests: each one that was decoded, logged and read from the database
// before the service refused it took the cores the hashers and the admitted
// requests needed. So the two refusals come first, in this order, before
// the access log, the security headers, the brand, the api key, decoding
// or any database read:
//
//   - shedFirst: a request to a route that hashes a password is answered
//     429 BUSY, as its service would answer it, when the hashers would
//     refuse it now (account.Hasher.Check: the wait budget, and the client
//     address holding its share of the places). A sign-in from a browser
//     holding the account's pass is asked for in the returning browsers'
//     lane, and marked so that its service admits it there
//     (account/returning.go): a flood cannot keep a customer's known
//     browser out. It reserves nothing: a
//     place held from here would be held while the body arrives, which a
//     client sending slowly gets for free; the service admits the request
//     once it is read, as before. The refusal is held Config.ShedHold
//     (DefaultShedHold) before it is answered: a flooding client that sends
//     again as soon as it hears (most do) then costs one cheap refusal a
//     second a connection instead of thousands, which left the hashers and
//     the admitted requests no core (their p99 was 9 s with 1,000 such
//     clients against the 2 s budget). Held refusals wait on a timer, not a
//     core, and are bounded (2 × MaxInFlight at once, 2 × DefaultMaxInFlight
//     when MaxInFlight is 0; past it they are answered at once); they are
//     outside inFlight's count, so a flood's held refusals never fill the
//     places other requests need (behind HAProxy, deploy/haproxy.cfg's
//     server maxconn leaves room for both). The refusals the services make
//     themselves (a queue that filled after this check, the routes below
//     that are not hashingRoutes) are answered at once;
//   - inFlight: past Config.MaxInFlight requests under way, 503 OVERLOADED
//     with Retry-After.
//
// Neither writes a log line: at thousands a second the lines would cost
// what the refusal saves. The metrics count them: shedFirst's in
// guichet_hash_shed_total (Hasher.Check) and, held or answered at once, in
// guichet_http_shed_refusals_total; inFlight's in
// guichet_http_requests_total{route="overloaded",status="503"}.

// hashingRoutes are the routes of which every request past its checks
// hashes a password, so its refusal is the same as the service's (429
// BUSY, error.busy, Retry-After) whatever the body says. The SSO form post
// is not one (with a ticket it checks no password, and it answers pages),
// nor smart registration's create (its answers carry the session header),
// nor the re-authentication proof (a code proves without a hash): their
// services admit as before. TestHashingRoutesAreInTheTable keeps the list
// to the route table's patterns.
var hashingRoutes = []string{
	"POST /api/v1/accounts/{id}/authentication",
	"POST /api/v1/accounts/{id}/temporary",
	"POST /api/v1/accounts/{id}/password",
	"POST /api/v1/accounts/{id}/create",
	"POST /api/v1/me/password",
}

// shedFirst refuses a request to one of hashingRoutes that the hashers
// would refuse, before anything else of it runs (see above); other
// requests pass.
func (s *server) shedFirst(next http.Handler) http.Handler {
	if s.deps.Account == nil || s.deps.Account.Service == nil {
		return next
	}
	hasher := s.deps.Account.Service.Hasher
	match := http.NewServeMux()
	for _, p := range hashingRoutes {
		match.Handle(p, next) // only the pattern found counts
	}
	s.held = make(chan struct{}, 2*cmp.Or(s.cfg.MaxInFlight, DefaultMaxInFlight))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/api/v1/") || s.isConsoleHost(r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		if _, pattern := match.Handler(r); pattern == "" {
			next.ServeHTTP(w, r)
			return
		}
		returning := s.returningBrowser(r)
		if err := hasher.Check(throttle.ClientKey(s.cfg.TrustedProxies.clientIP(r)), returning); err != nil {
			var busy *account.BusyError
			held := s.holdRefusal(r)
			if held > 0 && errors.As(err, &busy) {
				busy.Wait -= held // Retry-After counts from the answer: the hold is spent
			}
			s.metrics.shedRefusal(held > 0)
			w.Header().Set("X-Content-Type-Options", "nosniff")
			api.WriteError(w, r, account.BusyAnswer(err))
			return
		}
		if returning != "" {
			r = r.WithContext(account.Returning(r.Context(), returning))
		}
		next.ServeHTTP(w, r)
	})
}

// signInPrefix and signInSuffix are the authentication route's path around its account id.
const signInPrefix, signInSuffix = "/api/v1/accounts/", "/authentication"

// returningBrowser is the account of a password sign-in (the
// authentication call) from a browser holding that account's pass, which
// takes the hashers' returning lane (account/returning.go), "" for any
// other request: checked from the cookie and the key alone, before
// anything of the request is read. The pass is the __Host- cookie or, over
// plain http in --dev, the other name; either is only a signed value, so
// both are read whatever the site.
func (s *server) returningBrowser(r *http.Request) string {
	passes := s.deps.Account.Service.Passes
	id, ok := strings.CutPrefix(r.URL.Path, signInPrefix)
	if passes == nil || !ok {
		return ""
	}
	if id, ok = strings.CutSuffix(id, signInSuffix); !ok || strings.Contains(id, "/") {
		return ""
	}
	for _, name := range []string{account.PassCookie, account.DevPassCookie} {
		if c, err := r.Cookie(name); err == nil && passes.Valid(c.Value, id) {
			return id
		}
	}
	return ""
}

// DefaultShedHold is Config.ShedHold in `guichet serve`: the least
// Retry-After a refusal asks for (account.BusyError.RetryAfter). The
// answer's Retry-After is the expected wait less the time held, so a
// client that honours it waits about as long as it would have been told
// at once (Retry-After is a whole number of seconds, at least 1).
const DefaultShedHold = time.Second

// holdRefusal waits Config.ShedHold (0: not at all) before shedFirst
// answers r, unless cap(s.held) refusals are held already (answered at
// once), or r's context ends first (an HTTP/2 stream reset, or the client
// of a request without a body going away: Go's HTTP/1.1 server notices a
// closed connection only once the body is read, and reading it here would
// hand a slow sender the time the hold saves). It returns the time held.
func (s *server) holdRefusal(r *http.Request) time.Duration {
	if s.cfg.ShedHold <= 0 {
		return 0
	}
	select {
	case s.held <- struct{}{}:
		defer func() { <-s.held }()
	default:
		return 0
	}
	start := time.Now()
	t := time.NewTimer(s.cfg.ShedHold)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
	return time.Since(start)
}

// DefaultMaxInFlight is Config.MaxInFlight's default
// (GUICHET_MAX_IN_FLIGHT): far above what 2 cores serve at the sign-in's
// p99 target, well below what exhausts memory (a request under way holds
// a goroutine, its buffers and, for a sign-in, its place in the queue).
const DefaultMaxInFlight = 1024

// ErrOverloaded answers a request past Config.MaxInFlight: 503 with
// Retry-After, the SPA's "try again in a few seconds" (error.busy); a page
// gets the short problem page.
var ErrOverloaded = &api.Error{Status: http.StatusServiceUnavailable, Code: "OVERLOADED", MessageKey: "error.busy",
	RetryAfter: 1}

// inFlight bounds the requests under way to Config.MaxInFlight (0: no
// bound); one past it is answered ErrOverloaded at once. The load
// balancer's checks (/healthz, /readyz) always pass, as do WebSocket
// upgrades: a socket lives for minutes and has bounds of its own (the
// chat's and co-browse's).
func (s *server) inFlight(next http.Handler) http.Handler {
	if s.cfg.MaxInFlight <= 0 {
		return next
	}
	slots := make(chan struct{}, s.cfg.MaxInFlight)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || socketUpgrade(r) {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case slots <- struct{}{}:
		default:
			s.metrics.overloaded(r)
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.Header().Set("Retry-After", strconv.Itoa(ErrOverloaded.RetryAfter))
			writeProblem(w, r, ErrOverloaded.Status, ErrOverloaded.Code, ErrOverloaded.MessageKey)
			return
		}
		defer func() { <-slots }()
		next.ServeHTTP(w, r)
	})
}

// socketUpgrade is a WebSocket opening: a GET of one of the socket routes
// (their paths end in /socket) asking for the upgrade. Any other request
// that says Upgrade is counted like the rest.
func socketUpgrade(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/socket") &&
		strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}
