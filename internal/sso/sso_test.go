package sso_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/policy"
	"guichet/internal/sso"
	"guichet/internal/store"
	"guichet/internal/testenv"
	"guichet/internal/throttle"
)

const (
	password = "Correct-Horse-9!"
	ip       = "198.51.100.7"
)

var (
	belair = &brand.Brand{ID: "belair", DefaultProvince: "on"}
	intact = &brand.Brand{ID: "intact", DefaultProvince: "on"}
)

type env struct {
	*testenv.Env
	t        *testing.T
	accounts *account.Service
	handler  http.Handler
	dev      bool
}

// newEnv builds the sign-in routes the lead registers, behind a stand-in for
// the brand middleware (the site from the host's first label).
func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	te := testenv.New(db)
	accounts := account.NewService(db, accounttest.Hasher(), te.Clock.Now)
	ah := &account.Handler{Service: accounts}
	sh := &sso.Handler{Service: sso.NewService(accounts)}
	mux := testenv.Mux(map[string]api.Handler{
		"POST /api/v1/accounts/find":                ah.Find,
		"POST /api/v1/accounts/{id}/authentication": ah.Authentication,
		"POST /pkmslogin.form":                      sh.LoginForm,
		"GET /api/v1/me":                            sh.Me,
		"POST /api/v1/logout":                       sh.Logout,
	})
	e := &env{Env: te, t: t, accounts: accounts}
	e.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := belair
		if strings.HasPrefix(r.Host, "intact.") {
			b = intact
		}
		r = r.WithContext(api.WithSite(r.Context(), api.Site{Brand: b, Province: "on", Language: "en", Dev: e.dev}))
		mux.ServeHTTP(w, r)
	})
	return e
}

// each runs fn on a fresh env on every database (testenv.EachEnv).
func each(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	testenv.EachEnv(t, newEnv, fn)
}

func (e *env) create(b *brand.Brand, email string, mutate func(ctx context.Context, tx *store.Tx, a account.Account) error) account.Account {
	e.t.Helper()
	ctx := e.t.Context()
	hash := accounttest.Hash(e.t, password)
	var a account.Account
	err := e.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		a, err = account.Insert(ctx, tx, account.Account{Brand: b.ID, Email: email, FirstName: "Alex", LastName: "Martin", Language: "en"}, hash, e.Clock.Now())
		if err == nil && mutate != nil {
			err = mutate(ctx, tx, a)
		}
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

// call sends the request from ip through the stand-in brand middleware
// (its Path an absolute URL: the host names the brand).
func (e *env) call(req testenv.Request) testenv.Answer {
	e.t.Helper()
	req.IP = ip
	return testenv.Do(e.t, e.handler, req)
}

// origin is the scheme and host of a brand's site: plain http in --dev.
func (e *env) origin(host string) string {
	if e.dev {
		return "http://" + host
	}
	return "https://" + host
}

func (e *env) ticket(host, id string) string {
	e.t.Helper()
	a := e.call(testenv.Request{Method: http.MethodPost, Path: "https://" + host + "/api/v1/accounts/" + id + "/authentication",
		Body: map[string]string{"password": password}}).Expect(e.t, 200, "")
	return a.Str(e.t, "loginTicket")
}

// login posts the SSO form.
func (e *env) login(host string, form url.Values, cookies ...*http.Cookie) testenv.Answer {
	e.t.Helper()
	return e.call(testenv.Request{Method: http.MethodPost, Path: e.origin(host) + "/pkmslogin.form", Body: form.Encode(),
		Headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, Cookies: cookies})
}

func form(username, pw, ticket string) url.Values {
	v := url.Values{"login-form-type": {"pwd"}, "username": {username}, "password": {pw}}
	if ticket != "" {
		v.Set("ticket", ticket)
	}
	return v
}

// sessionCookie is the session cookie the answer sets, of either name.
func sessionCookie(t *testing.T, a testenv.Answer) *http.Cookie {
	t.Helper()
	if c := a.Cookie(sso.CookieName); c != nil {
		return c
	}
	if c := a.Cookie(sso.DevCookieName); c != nil {
		return c
	}
	t.Fatalf("no session cookie in %v", a.Header["Set-Cookie"])
	return nil
}

func (e *env) me(host string, c *http.Cookie) (int, map[string]any) {
	e.t.Helper()
	a := e.call(testenv.Request{Path: e.origin(host) + "/api/v1/me", Cookies: []*http.Cookie{c}})
	var m map[string]any
	_ = json.Unmarshal(a.Body, &m)
	return a.Status, m
}

func TestLoginForm(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create(belair, "alex@example.com", nil)
		e.create(belair, "locked@example.com", func(ctx context.Context, tx *store.Tx, a account.Account) error {
			return account.Lock(ctx, tx, a.ID, time.Time{}, e.Clock.Now())
		})
		tempHash := accounttest.Hash(t, "Temp-Pass-1")
		e.create(belair, "temp@example.com", func(ctx context.Context, tx *store.Tx, a account.Account) error {
			return account.SetTemporaryPassword(ctx, tx, a.ID, tempHash, e.Clock.Now().Add(time.Hour), e.Clock.Now())
		})
		used := e.ticket("belair.example", a.ID)
		if res := e.login("belair.example", form("alex@example.com", "", used)); res.Header.Get("Location") != "/my-account" {
			t.Fatalf("first use of a ticket: %s", res.Header.Get("Location"))
		}
		cases := []struct {
			name   string
			host   string
			form   func() url.Values
			wantTo string
		}{
			{"ticket, no password needed", "belair.example", func() url.Values { return form("alex@example.com", "", e.ticket("belair.example", a.ID)) }, "/my-account"},
			{"ticket, username in any case", "belair.example", func() url.Values { return form(" ALEX@example.com", password, e.ticket("belair.example", a.ID)) }, "/my-account"},
			{"no ticket, right password", "belair.example", func() url.Values { return form("alex@example.com", password, "") }, "/my-account"},
			{"used ticket, right password", "belair.example", func() url.Values { return form("alex@example.com", password, used) }, "/webseal.do?error=0x132120c8"},
			{"used ticket, no password", "belair.example", func() url.Values { return form("alex@example.com", "", used) }, "/webseal.do?error=0x132120c8"},
			{"another username's ticket, wrong password", "belair.example", func() url.Values {
				return form("temp@example.com", "nope", e.ticket("belair.example", a.ID))
			}, "/webseal.do?error=0x132120c8"},
			{"expired ticket, wrong password", "belair.example", func() url.Values {
				tk := e.ticket("belair.example", a.ID)
				e.Clock.Advance(account.TicketTTL)
				return form("alex@example.com", "nope", tk)
			}, "/webseal.do?error=0x132120c8"},
			{"wrong password", "belair.example", func() url.Values { return form("alex@example.com", "Wrong-Horse-9!", "") }, "/webseal.do?error=0x132120c8"},
			{"unknown account", "belair.example", func() url.Values { return form("nobody@example.com", password, "") }, "/webseal.do?error=0x132120c8"},
			{"other brand", "intact.example", func() url.Values { return form("alex@example.com", password, "") }, "/webseal.do?error=0x132120c8"},
			{"locked account", "belair.example", func() url.Values { return form("locked@example.com", password, "") }, "/webseal.do?error=0x132120c8"},
			{"temporary password", "belair.example", func() url.Values { return form("temp@example.com", "Temp-Pass-1", "") }, "/webseal.do?error=0x13212132"},
			{"wrong temporary password", "belair.example", func() url.Values { return form("temp@example.com", "Temp-Pass-2", "") }, "/webseal.do?error=0x132120c8"},
			{"missing username", "belair.example", func() url.Values { return form("", password, "") }, "/webseal.do?error=0x132120c8"},
			{"missing password", "belair.example", func() url.Values { return form("alex@example.com", "", "") }, "/webseal.do?error=0x132120c8"},
			{"other login-form-type", "belair.example", func() url.Values {
				f := form("alex@example.com", password, "")
				f.Set("login-form-type", "cert")
				return f
			}, "/webseal.do?error=0x38cf04d7"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res := e.login(c.host, c.form())
				if res.Status != http.StatusSeeOther || res.Header.Get("Location") != c.wantTo {
					t.Fatalf("%d to %q, want 303 to %q", res.Status, res.Header.Get("Location"), c.wantTo)
				}
				hasCookie := false
				for _, ck := range res.Cookies() {
					hasCookie = hasCookie || ck.Name == sso.CookieName
				}
				if hasCookie != (c.wantTo == "/my-account") {
					t.Fatalf("session cookie set: %v", hasCookie)
				}
			})
		}
		t.Run("rate limited", func(t *testing.T) {
			e.accounts.Limits.Authenticate = throttle.Rule{Scope: "login.password", Limit: 2, Window: time.Minute}
			defer func() { e.accounts.Limits = account.DefaultLimits() }()
			e.Clock.Advance(2 * time.Minute)
			var last string
			for range 3 {
				last = e.login("belair.example", form("alex@example.com", "Wrong-Horse-9!", "")).Header.Get("Location")
			}
			if last != "/webseal.do?error=0x132120ea" {
				t.Fatalf("third attempt went to %q", last)
			}
		})
		t.Run("audited", func(t *testing.T) {
			if n := e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE event = 'sso.login' AND outcome = 'ok' AND account_id = ? AND ip = ?", a.ID, ip); n < 4 {
				t.Fatalf("%d successful SSO sign-ins audited", n)
			}
		})
	})
}

// TestReplayedTicketsLeaveTheLockoutAlone re-posts a used login ticket (and
// posts unknown ones), with no password and with a wrong one, as many times
// as the lockout allows failures: each is refused as a login error, none
// counts as a failed password, and the right password still signs in.
func TestReplayedTicketsLeaveTheLockoutAlone(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create(belair, "alex@example.com", nil)
		used := e.ticket("belair.example", a.ID)
		if res := e.login("belair.example", form("alex@example.com", password, used)); res.Header.Get("Location") != "/my-account" {
			t.Fatalf("first use of the ticket: %s", res.Header.Get("Location"))
		}
		unknown := strings.Repeat("A", 22)
		for i := range account.DefaultLockout.MaxFailures + 1 {
			tk, pw := used, ""
			if i%2 == 1 {
				tk, pw = unknown, "Wrong-Horse-9!"
			}
			if to := e.login("belair.example", form("alex@example.com", pw, tk)).Header.Get("Location"); to != "/webseal.do?error="+sso.CodeLoginError {
				t.Fatalf("re-post %d went to %q", i+1, to)
			}
		}
		ctx := t.Context()
		var failures, lockLevel int
		var lockedUntil int64
		if err := e.DB.QueryRow(ctx, "SELECT COUNT(*) FROM login_failures WHERE account_id = ?", a.ID).Scan(&failures); err != nil {
			t.Fatal(err)
		}
		if err := e.DB.QueryRow(ctx, "SELECT lock_level, locked_until FROM accounts WHERE id = ?", a.ID).Scan(&lockLevel, &lockedUntil); err != nil {
			t.Fatal(err)
		}
		if failures != 0 || lockLevel != 0 || lockedUntil != 0 {
			t.Fatalf("after the re-posts: %d failures, lock level %d, locked until %d", failures, lockLevel, lockedUntil)
		}
		if to := e.login("belair.example", form("alex@example.com", password, "")).Header.Get("Location"); to != "/my-account" {
			t.Fatalf("the right password after the re-posts went to %q", to)
		}
	})
}

// TestDisabledAccountSignsNothingIn: once staff disable an account its
// sessions stop working and the form post refuses its right password (a
// login error: §8.5 has no block code); enabled again, the session works.
func TestDisabledAccountSignsNothingIn(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create(belair, "alex@example.com", nil)
		session := sessionCookie(t, e.login("belair.example", form("alex@example.com", password, "")))
		ctx := t.Context()
		if err := e.accounts.Disable(ctx, belair.ID, a.ID, "staff:jdoe", ""); err != nil {
			t.Fatal(err)
		}
		if status, _ := e.me("belair.example", session); status != http.StatusUnauthorized {
			t.Fatalf("me of a disabled account: %d", status)
		}
		if to := e.login("belair.example", form("alex@example.com", password, "")).Header.Get("Location"); to != "/webseal.do?error="+sso.CodeLoginError {
			t.Fatalf("form post of a disabled account went to %q", to)
		}
		if err := e.accounts.Enable(ctx, belair.ID, a.ID, "staff:jdoe", ""); err != nil {
			t.Fatal(err)
		}
		if status, _ := e.me("belair.example", session); status != http.StatusOK {
			t.Fatalf("me once enabled: %d", status)
		}
	})
}

func TestSessionCookie(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.create(belair, "alex@example.com", nil)
		cases := []struct {
			name       string
			dev        bool
			wantName   string
			wantSecure bool
		}{
			{"https", false, "__Host-guichet_session", true},
			{"plain http in --dev", true, "guichet_session", false},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				e.dev = c.dev
				ck := sessionCookie(t, e.login("belair.example", form("alex@example.com", password, "")))
				if ck.Name != c.wantName || ck.Secure != c.wantSecure || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode ||
					ck.Path != "/" || ck.Domain != "" || ck.MaxAge != 0 {
					t.Fatalf("cookie %+v", ck)
				}
				if len(ck.Value) < 22 {
					t.Fatalf("session token %q holds fewer than 128 bits", ck.Value)
				}
				if status, _ := e.me("belair.example", ck); status != 200 {
					t.Fatalf("/me with the cookie: %d", status)
				}
				var stored int
				if err := e.DB.QueryRow(t.Context(), "SELECT COUNT(*) FROM sessions WHERE token_hash = ?", ck.Value).Scan(&stored); err != nil || stored != 0 {
					t.Fatalf("the session token is stored in clear (%d, %v)", stored, err)
				}
			})
		}
	})
}

func TestMe(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.create(belair, "alex@example.com", func(ctx context.Context, tx *store.Tx, a account.Account) error {
			for _, p := range []policy.Policy{
				{Brand: "belair", Number: "abc-1234", Kind: policy.Home, Province: "ON"},
				{Brand: "belair", Number: "ABC5678", Kind: policy.Auto, Province: "qc"},
			} {
				created, err := policy.Create(ctx, tx, p, e.Clock.Now())
				if err != nil {
					return err
				}
				if err := policy.Link(ctx, tx, a.ID, created.ID, policy.Holder); err != nil {
					return err
				}
			}
			return nil
		})
		ck := sessionCookie(t, e.login("belair.example", form("alex@example.com", password, "")))
		status, me := e.me("belair.example", ck)
		if status != 200 {
			t.Fatalf("/me: %d %v", status, me)
		}
		want := `{"brand":"belair","email":"alex@example.com","firstName":"Alex","language":"en","lastName":"Martin",` +
			`"policies":[{"kind":"home","number":"ABC1234","province":"on","role":"holder"},` +
			`{"kind":"auto","number":"ABC5678","province":"qc","role":"holder"}],"ubiDriver":false}`
		if got, _ := json.Marshal(me); string(got) != want {
			t.Fatalf("/me\n got %s\nwant %s", got, want)
		}
		cases := []struct {
			name   string
			host   string
			cookie *http.Cookie
		}{
			{"no cookie", "belair.example", nil},
			{"made-up token", "belair.example", &http.Cookie{Name: sso.CookieName, Value: "made-up"}},
			{"another brand's host", "intact.example", ck},
			{"the dev cookie name over https", "belair.example", &http.Cookie{Name: sso.DevCookieName, Value: ck.Value}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				var cookies []*http.Cookie
				if c.cookie != nil {
					cookies = append(cookies, c.cookie)
				}
				res := e.call(testenv.Request{Path: "https://" + c.host + "/api/v1/me", Cookies: cookies})
				if res.Status != 401 || !bytes.Contains(res.Body, []byte(`"errorCode":"UNAUTHENTICATED"`)) {
					t.Fatalf("%d %s, want 401 UNAUTHENTICATED", res.Status, res.Body)
				}
			})
		}
	})
}

func TestSessionTimeouts(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.create(belair, "alex@example.com", nil)
		newSession := func() *http.Cookie {
			return sessionCookie(t, e.login("belair.example", form("alex@example.com", password, "")))
		}
		type step struct {
			advance time.Duration
			want    int
		}
		cases := []struct {
			name  string
			steps []step
		}{
			{"idle less than 30 minutes keeps it", []step{{29 * time.Minute, 200}, {29 * time.Minute, 200}, {29 * time.Minute, 200}}},
			{"idle 30 minutes ends it", []step{{10 * time.Minute, 200}, {30 * time.Minute, 401}, {0, 401}}},
			{"12 hours end it however busy", func() []step {
				var s []step
				for range 35 { // 35 x 20 min = 11 h 40
					s = append(s, step{20 * time.Minute, 200})
				}
				return append(s, step{19 * time.Minute, 200}, step{time.Minute, 401})
			}()},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ck := newSession()
				for i, s := range c.steps {
					e.Clock.Advance(s.advance)
					if status, _ := e.me("belair.example", ck); status != s.want {
						t.Fatalf("step %d (+%v): %d, want %d", i+1, s.advance, status, s.want)
					}
				}
			})
		}
	})
}

func TestLogoutAndRevocation(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create(belair, "alex@example.com", nil)
		login := func(cookies ...*http.Cookie) *http.Cookie {
			return sessionCookie(t, e.login("belair.example", form("alex@example.com", password, ""), cookies...))
		}
		t.Run("logout revokes server-side and clears the cookie", func(t *testing.T) {
			ck := login()
			logout := testenv.Request{Method: http.MethodPost, Path: "https://belair.example/api/v1/logout", Cookies: []*http.Cookie{ck}}
			res := e.call(logout).Expect(t, 204, "")
			cleared := sessionCookie(t, res)
			if cleared.Value != "" || cleared.MaxAge >= 0 {
				t.Fatalf("cookie not cleared: %+v", cleared)
			}
			if status, _ := e.me("belair.example", ck); status != 401 {
				t.Fatalf("the old cookie still works: %d", status)
			}
			e.call(logout).Expect(t, 204, "") // a second logout
			if n := e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE event = 'sso.logout' AND account_id = ?", a.ID); n != 1 {
				t.Fatalf("%d logouts audited, want 1", n)
			}
		})
		t.Run("a new sign-in replaces the browser's session", func(t *testing.T) {
			old := login()
			fresh := login(old)
			if fresh.Value == old.Value {
				t.Fatal("the session id was kept across sign-in")
			}
			if status, _ := e.me("belair.example", old); status != 401 {
				t.Fatalf("the replaced session still works: %d", status)
			}
			if status, _ := e.me("belair.example", fresh); status != 200 {
				t.Fatalf("the new session does not work: %d", status)
			}
		})
		t.Run("RevokeAll ends every session of the account", func(t *testing.T) {
			first, second := login(), login()
			other := e.create(belair, "bob@example.com", nil)
			bob := sessionCookie(t, e.login("belair.example", form("bob@example.com", password, "")))
			if err := e.DB.InTx(t.Context(), func(tx *store.Tx) error { return sso.RevokeAll(t.Context(), tx, a.ID) }); err != nil {
				t.Fatal(err)
			}
			for _, ck := range []*http.Cookie{first, second} {
				if status, _ := e.me("belair.example", ck); status != 401 {
					t.Fatalf("a session survived RevokeAll: %d", status)
				}
			}
			if status, _ := e.me("belair.example", bob); status != 200 {
				t.Fatalf("another account's session (%s) was revoked: %d", other.ID, status)
			}
		})
		t.Run("Prune deletes expired sessions", func(t *testing.T) {
			login()
			e.Clock.Advance(sso.IdleTimeout)
			n, err := sso.Prune(t.Context(), e.DB, e.Clock.Now())
			if err != nil || n == 0 {
				t.Fatalf("Prune = %d, %v", n, err)
			}
		})
	})
}
