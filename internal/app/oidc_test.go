package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"

	"guichet/internal/oidc"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
	"guichet/internal/throttle"
)

// The OpenID provider (issue 30) driven by relying-party libraries nobody
// here wrote: coreos/go-oidc (discovery, JWKS, ID token checks) with
// golang.org/x/oauth2 (the code flow, PKCE, the token endpoint), against the
// whole application as `guichet serve --dev` builds it, on SQLite and
// PostgreSQL. The visitor signs in with the portal's own calls and SSO form
// post, as the SPA does.

// rpWorld is one application and a relying party's view of one brand.
type rpWorld struct {
	t        *testing.T
	a        *App
	addr     string // the application's address
	port     string
	browser  *http.Client // a visitor's browser: cookies, no redirects followed
	ctx      context.Context
	provider *gooidc.Provider
	conf     oauth2.Config
	clientID string
	account  string // the demo's account id, once signed in
	// loggedIn says whether the latest authorize went through the login
	// page (false: the portal session answered).
	loggedIn bool
}

// oidcDevApp is the application as `guichet serve --dev` runs it (its
// workers too: the outbox delivers back-channel logouts) on a database URL
// ("" for SQLite); it returns its address.
func oidcDevApp(t *testing.T, databaseURL string) (*App, string) {
	t.Helper()
	a, addr, _ := servedDevApp(t, databaseURL)
	return a, addr
}

// servedDevApp is oidcDevApp with stop, which ends Serve (its shutdown, the
// last spans' export included) and returns what it returned; the test's
// end stops it too.
func servedDevApp(t *testing.T, databaseURL string) (*App, string, func() error) {
	t.Helper()
	a, err := newApp(context.Background(), Config{Dev: true, DataDir: t.TempDir(), BrandsDir: "../../config/brands", DatabaseURL: databaseURL,
		Addr: "127.0.0.1:0", AdminAddr: "off"})
	if err != nil {
		t.Fatal(err)
	}
	a.drainFor = 0
	ctx, cancel := context.WithCancel(context.Background())
	addrc, served := goServe(ctx, a)
	stop := sync.OnceValue(func() error {
		cancel()
		err := <-served
		a.DB.Close()
		return err
	})
	t.Cleanup(func() { _ = stop() })
	select {
	case addr := <-addrc:
		return a, addr, stop
	case err := <-served:
		t.Fatalf("serve: %v", err)
	}
	return nil, "", nil
}

// loopbackClient reaches every host (belair.localhost, ...) at the
// application's address: Go's resolver knows no *.localhost.
func loopbackClient(addr string, follow bool) *http.Client {
	dialer := &net.Dialer{}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return dialer.DialContext(ctx, network, addr)
	}}}
	if !follow {
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return c
}

func newRPWorld(t *testing.T, databaseURL, brand string, kind oidc.Kind, options ...func(*oidc.NewClient)) *rpWorld {
	t.Helper()
	a, addr := oidcDevApp(t, databaseURL)
	w := &rpWorld{t: t, a: a, addr: addr, port: addr[strings.LastIndex(addr, ":"):], browser: loopbackClient(addr, false)}
	w.ctx = gooidc.ClientContext(t.Context(), loopbackClient(addr, true))
	in := oidc.NewClient{Brand: brand, Name: "Claims centre", Kind: kind, RedirectURIs: []string{"http://127.0.0.1:9/callback"}}
	for _, o := range options {
		o(&in)
	}
	c, secret := addClient(t, a, in)
	w.clientID = c.ID
	var err error
	if w.provider, err = gooidc.NewProvider(w.ctx, w.issuer(brand)); err != nil {
		t.Fatalf("discovery: %v", err)
	}
	w.conf = oauth2.Config{ClientID: c.ID, ClientSecret: secret, Endpoint: w.provider.Endpoint(), RedirectURL: "http://127.0.0.1:9/callback",
		Scopes: []string{gooidc.ScopeOpenID, "profile", "email", gooidc.ScopeOfflineAccess, "policies"}}
	return w
}

// oidcService is the application's OpenID provider service, through which
// the console registers and disables clients.
func oidcService(t *testing.T, a *App) *oidc.Service {
	t.Helper()
	svc, err := OIDCService(t.Context(), a.cfg, a.DB, a.Brands)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// addClient registers a client as staff do and returns it with its secret
// ("" for a public client).
func addClient(t *testing.T, a *App, in oidc.NewClient) (oidc.Client, string) {
	t.Helper()
	c, secret, err := oidcService(t, a).AddClient(t.Context(), in, "test")
	if err != nil {
		t.Fatal(err)
	}
	return c, secret
}

func (w *rpWorld) issuer(brand string) string { return "http://" + brand + ".localhost" + w.port }

// get is the browser's GET; it returns the status and the redirect.
func (w *rpWorld) get(rawURL string) (int, *url.URL) {
	w.t.Helper()
	res, err := w.browser.Get(rawURL)
	if err != nil {
		w.t.Fatal(err)
	}
	res.Body.Close()
	loc, _ := res.Location()
	return res.StatusCode, loc
}

// signIn signs the demo policyholder in as the SPA does (find,
// authentication, the SSO form post) and returns where the form post sent
// the browser.
func (w *rpWorld) signIn(brand, email, password string) *url.URL {
	w.t.Helper()
	host := brand + ".localhost" + w.port
	call := func(path, body string) map[string]any {
		status, out := w.api(brand, "POST", path, body)
		if status != 200 {
			w.t.Fatalf("%s: %d %v", path, status, out)
		}
		return out
	}
	found := call("/api/v1/accounts/find", `{"email":"`+email+`"}`)
	w.account = found["id"].(string)
	auth := call("/api/v1/accounts/"+found["id"].(string)+"/authentication", `{"password":"`+password+`"}`)
	form := url.Values{"login-form-type": {"pwd"}, "username": {email}, "password": {password}, "ticket": {auth["loginTicket"].(string)}}
	res, err := w.browser.PostForm("http://"+host+"/pkmslogin.form", form)
	if err != nil {
		w.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		w.t.Fatalf("SSO form post: %d", res.StatusCode)
	}
	loc, _ := res.Location()
	return loc
}

// api calls the brand's API as the SPA does (its api key, the browser's
// cookies) and returns the status and the decoded JSON answer.
func (w *rpWorld) api(brand, method, path, body string) (int, map[string]any) {
	w.t.Helper()
	b, _ := w.a.Brands.ByID(brand)
	req, _ := http.NewRequest(method, w.issuer(brand)+path, strings.NewReader(body))
	req.Header.Set("api-key", b.APIKey)
	req.Header.Set("Content-Type", "application/json")
	return w.do(req)
}

// do sends a request from the browser and returns the status and the JSON
// answer.
func (w *rpWorld) do(req *http.Request) (int, map[string]any) {
	w.t.Helper()
	res, out := sendJSON(w.t, w.browser, req)
	return res.StatusCode, out
}

func pkce(t *testing.T) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

const demoEmail, demoPassword = "demo@belair.example", "Guichet-Demo-2026!"

// authorize starts a code flow and follows it to the client's redirect:
// through the login page unless the browser's portal session answers.
func (w *rpWorld) authorize(verifier, wantLang string, opts ...oauth2.AuthCodeOption) url.Values {
	w.t.Helper()
	opts = append(opts, gooidc.Nonce("n-0S6_WzA2Mj"), oauth2.S256ChallengeOption(verifier))
	status, loc := w.get(w.conf.AuthCodeURL("st-af0ifjsldkj", opts...))
	if status != http.StatusFound || loc.Path != "/oidc/login" {
		w.t.Fatalf("authorize: %d to %v", status, loc)
	}
	status, loc = w.get(loc.String())
	w.loggedIn = status == http.StatusSeeOther && loc.Path == "/"
	if w.loggedIn {
		if got := loc.Query().Get("lang"); got != wantLang {
			w.t.Fatalf("login page %v, want lang=%s", loc, wantLang)
		}
		loc = w.signIn("belair", demoEmail, demoPassword)
		if loc.Path != "/oidc/authorize/callback" {
			w.t.Fatalf("the SSO form post went to %v, not the provider's callback", loc)
		}
		status, loc = w.get(loc.String())
	} else if loc.Path == "/oidc/authorize/callback" {
		status, loc = w.get(loc.String())
	}
	if status != http.StatusFound && status != http.StatusSeeOther || loc.Host != "127.0.0.1:9" {
		w.t.Fatalf("callback: %d to %v", status, loc)
	}
	return loc.Query()
}

func TestOIDCCodeFlowWithGoOIDC(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		verifier := pkce(t)
		q := w.authorize(verifier, "fr", oauth2.SetAuthURLParam("ui_locales", "fr-CA"))
		if q.Get("state") != "st-af0ifjsldkj" || q.Get("iss") != w.issuer("belair") || q.Get("code") == "" {
			t.Fatalf("authorization response %v: want the state, the code and iss (RFC 9207)", q)
		}
		code := q.Get("code")
		tok, err := w.conf.Exchange(w.ctx, code, oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatalf("exchange: %v", err)
		}
		raw, _ := tok.Extra("id_token").(string)
		idt, err := w.provider.Verifier(&gooidc.Config{ClientID: w.clientID}).Verify(w.ctx, raw)
		if err != nil {
			t.Fatalf("ID token: %v", err)
		}
		var claims struct {
			Email         string                          `json:"email"`
			EmailVerified bool                            `json:"email_verified"`
			Name          string                          `json:"name"`
			Locale        string                          `json:"locale"`
			Brand         string                          `json:"brand"`
			AMR           []string                        `json:"amr"`
			ACR           string                          `json:"acr"`
			AuthTime      int64                           `json:"auth_time"`
			Policies      []struct{ Number, Kind string } `json:"policies"`
		}
		if err := idt.Claims(&claims); err != nil {
			t.Fatal(err)
		}
		if idt.Nonce != "n-0S6_WzA2Mj" || claims.Email != demoEmail || !claims.EmailVerified || claims.Brand != "belair" ||
			claims.Name == "" || claims.Locale == "" || claims.AuthTime == 0 || len(claims.AMR) == 0 || claims.ACR == "" || len(claims.Policies) == 0 {
			t.Fatalf("ID token claims %+v (nonce %q)", claims, idt.Nonce)
		}
		if len(claims.Policies) != 2 || claims.Policies[0].Number != "BEL1000" || claims.Policies[0].Kind != "home" {
			t.Fatalf("policies claim %+v, want the demo's two policies", claims.Policies)
		}
		if idt.Subject == w.account || strings.Contains(raw, w.account) || len(idt.Subject) != 24 {
			t.Fatalf("subject %q: want 24 characters of an HMAC, not the account id", idt.Subject)
		}
		info, err := w.provider.UserInfo(w.ctx, oauth2.StaticTokenSource(tok))
		if err != nil || info.Email != demoEmail || info.Subject != idt.Subject {
			t.Fatalf("userinfo: %+v %v", info, err)
		}

		// The code again: refused, and the grant it gave is revoked.
		if _, err := w.conf.Exchange(w.ctx, code, oauth2.VerifierOption(verifier)); !isInvalidGrant(err) {
			t.Fatalf("second exchange of a code: %v, want invalid_grant", err)
		}
		if _, err := w.provider.UserInfo(w.ctx, oauth2.StaticTokenSource(tok)); err == nil {
			t.Fatal("userinfo answers the access token of a grant revoked by a code's reuse")
		}

		// A new sign-in: single sign-on (the portal session answers, no
		// login page), then the refresh token rotates and a reused one
		// revokes the family.
		verifier = pkce(t)
		q = w.authorize(verifier, "", oauth2.SetAuthURLParam("prompt", "none"))
		tok, err = w.conf.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(verifier))
		if err != nil || tok.RefreshToken == "" {
			t.Fatalf("exchange after SSO: %v (refresh token %t)", err, tok != nil && tok.RefreshToken != "")
		}
		if w.loggedIn {
			t.Fatal("prompt=none with a portal session went through the login page")
		}
		// prompt=login, and a max_age the session is older than, ask for the
		// password again whatever the session.
		w.authorize(pkce(t), "en", oauth2.SetAuthURLParam("prompt", "login"))
		if !w.loggedIn {
			t.Fatal("prompt=login was answered by the portal session")
		}
		w.authorize(pkce(t), "en", oauth2.SetAuthURLParam("max_age", "0"))
		if !w.loggedIn {
			t.Fatal("max_age=0 was answered by the portal session")
		}
		w.authorize(pkce(t), "", oauth2.SetAuthURLParam("max_age", "3600"))
		if w.loggedIn {
			t.Fatal("max_age=3600 sent a session of a few seconds to the login page")
		}
		first := tok.RefreshToken
		next, err := w.refresh(first)
		if err != nil || next.RefreshToken == "" || next.RefreshToken == first {
			t.Fatalf("refresh: %v", err)
		}
		if _, err := w.refresh(first); !isInvalidGrant(err) {
			t.Fatalf("a used refresh token: %v, want invalid_grant", err)
		}
		if _, err := w.refresh(next.RefreshToken); !isInvalidGrant(err) {
			t.Fatalf("the family of a reused refresh token still refreshes: %v", err)
		}
	})
}

// tokens signs in through a code flow (authorize, wantLang as there) and
// trades the code for the client's tokens.
func (w *rpWorld) tokens(wantLang string) *oauth2.Token {
	w.t.Helper()
	verifier := pkce(w.t)
	q := w.authorize(verifier, wantLang)
	tok, err := w.conf.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		w.t.Fatalf("exchange: %v", err)
	}
	return tok
}

func (w *rpWorld) refresh(token string) (*oauth2.Token, error) {
	return w.conf.TokenSource(w.ctx, &oauth2.Token{RefreshToken: token}).Token()
}

func isInvalidGrant(err error) bool { return isOAuthError(err, "invalid_grant") }

// isOAuthError reports whether err is the token endpoint's refusal with
// that error code.
func isOAuthError(err error, code string) bool {
	var re *oauth2.RetrieveError
	return errors.As(err, &re) && re.ErrorCode == code
}

// postForm sends a form to one of belair's protocol endpoints as the
// client (HTTP Basic with id and secret) and returns the status and the
// protocol error code of the answer.
func (w *rpWorld) postForm(path string, form url.Values, id, secret string) (int, string) {
	w.t.Helper()
	status, out := w.post("belair", path, form, "", url.QueryEscape(id), url.QueryEscape(secret))
	e, _ := out["error"].(string)
	return status, e
}

// TestOIDCRefusals: what the provider refuses, each with the protocol's
// answer, on both databases.
func TestOIDCRefusals(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Public)

		// A public client without PKCE: sent back with invalid_request.
		status, loc := w.get(w.conf.AuthCodeURL("st"))
		if status != http.StatusFound || loc.Host != "127.0.0.1:9" || loc.Query().Get("error") != "invalid_request" || loc.Query().Get("iss") != w.issuer("belair") {
			t.Fatalf("public client without PKCE: %d to %v", status, loc)
		}
		// The answer comes in the query, with iss; form_post and fragment
		// are refused.
		for _, mode := range []string{"form_post", "fragment"} {
			status, loc := w.get(w.conf.AuthCodeURL("st", oauth2.S256ChallengeOption(pkce(t)), oauth2.SetAuthURLParam("response_mode", mode)))
			answer := loc.Query() // the refusal itself comes as the client asked
			if mode == "fragment" {
				answer, _ = url.ParseQuery(loc.Fragment)
			}
			if status != http.StatusFound || loc.Host != "127.0.0.1:9" || answer.Get("error") != "invalid_request" {
				t.Fatalf("response_mode=%s: %d to %v, want invalid_request", mode, status, loc)
			}
		}
		// prompt=none without a portal session: login_required.
		status, loc = w.get(w.conf.AuthCodeURL("st", oauth2.S256ChallengeOption(pkce(t)), oauth2.SetAuthURLParam("prompt", "none")))
		if status == http.StatusFound && loc.Path == "/oidc/login" {
			status, loc = w.get(loc.String())
		}
		if loc == nil || loc.Query().Get("error") != "login_required" || loc.Query().Get("state") != "st" {
			t.Fatalf("prompt=none without a session: %d to %v", status, loc)
		}
		// A redirect URI not registered to the letter: no redirect at all.
		bad := w.conf
		bad.RedirectURL = "http://127.0.0.1:9/callback/"
		if status, loc := w.get(bad.AuthCodeURL("st", oauth2.S256ChallengeOption(pkce(t)))); status < 400 || loc != nil {
			t.Fatalf("unregistered redirect URI: %d to %v", status, loc)
		}
		// The client is belair's: another brand's host knows it not, and a
		// code of belair is nothing at intact.
		other, err := gooidc.NewProvider(w.ctx, w.issuer("intact"))
		if err != nil {
			t.Fatal(err)
		}
		elsewhere := w.conf
		elsewhere.Endpoint = other.Endpoint()
		if status, loc := w.get(elsewhere.AuthCodeURL("st", oauth2.S256ChallengeOption(pkce(t)))); status < 400 || loc != nil {
			t.Fatalf("belair's client at intact's /authorize: %d to %v", status, loc)
		}
		verifier := pkce(t)
		q := w.authorize(verifier, "en")
		if _, err := elsewhere.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(verifier)); !isInvalidGrant(err) {
			t.Fatalf("intact's token endpoint on belair's code: %v, want invalid_grant", err)
		}
		// A wrong verifier: refused (and the code, presented, is spent).
		verifier = pkce(t)
		q = w.authorize(verifier, "")
		if _, err := w.conf.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(pkce(t))); !isInvalidGrant(err) {
			t.Fatalf("a wrong PKCE verifier: %v, want invalid_grant", err)
		}
		if _, err := w.conf.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(verifier)); !isInvalidGrant(err) {
			t.Fatalf("the right verifier after a wrong one: %v, want invalid_grant (the code is spent)", err)
		}
		// belair's ID token does not verify with intact's keys.
		verifier = pkce(t)
		q = w.authorize(verifier, "")
		tok, err := w.conf.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := tok.Extra("id_token").(string)
		if _, err := other.Verifier(&gooidc.Config{ClientID: w.clientID}).Verify(w.ctx, raw); err == nil {
			t.Fatal("intact verified belair's ID token")
		}
		if _, err := w.provider.Verifier(&gooidc.Config{ClientID: w.clientID}).Verify(w.ctx, raw); err != nil {
			t.Fatalf("belair's own ID token: %v", err)
		}

		// A code older than its 60 seconds (the server's --dev clock moved):
		// invalid_grant.
		verifier = pkce(t)
		q = w.authorize(verifier, "")
		if status, out := w.api("belair", "POST", "/_dev/clock", `{"advance":"61s"}`); status != http.StatusOK {
			t.Fatalf("advance the clock: %d %v", status, out)
		}
		if _, err := w.conf.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(verifier)); !isInvalidGrant(err) {
			t.Fatalf("an expired code: %v, want invalid_grant", err)
		}

		// A disabled client: its code and its refresh token are refused, and
		// its /authorize sends nobody back to it.
		verifier = pkce(t)
		q = w.authorize(verifier, "")
		if err := oidcService(t, w.a).DisableClient(t.Context(), w.clientID, "test"); err != nil {
			t.Fatal(err)
		}
		if _, err := w.conf.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(verifier)); !isOAuthError(err, "invalid_client") {
			t.Fatalf("a disabled client's code: %v, want invalid_client", err)
		}
		if _, err := w.refresh(tok.RefreshToken); !isOAuthError(err, "invalid_client") {
			t.Fatalf("a disabled client's refresh: %v, want invalid_client", err)
		}
		if status, loc := w.get(w.conf.AuthCodeURL("st", oauth2.S256ChallengeOption(pkce(t)))); status < 400 || loc != nil {
			t.Fatalf("a disabled client's /authorize: %d to %v, want an error page", status, loc)
		}
	})
}

// TestOIDCTokenEndpointIsRateLimited: per client and per address, answered
// 429 before any work, counted in the database (so on every instance).
func TestOIDCTokenEndpointIsRateLimited(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		w.a.OIDC.TokenPerClient = throttle.Rule{Scope: "oidc.token.client", Limit: 3, Window: time.Minute}
		w.a.OIDC.TokenPerAddress = throttle.Rule{Scope: "oidc.token.address", Limit: 9, Window: time.Minute}
		// A refresh: zitadel/oidc authenticates the client before it reads
		// the token (a code it reads first, so a client is counted after
		// its code was found).
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"not-a-token"}}
		token := func(clientID string) (int, string) {
			return w.postForm("/oidc/token", form, clientID, w.conf.ClientSecret)
		}
		// Calls claiming the client without its secret: refused, and they do
		// not spend its count (anyone could otherwise), only the address's.
		for i := range 3 {
			if status, e := w.postForm("/oidc/token", form, w.clientID, "not-the-secret"); status != http.StatusUnauthorized || e != "invalid_client" {
				t.Fatalf("call %d with a wrong secret: %d %q, want 401 invalid_client", i+1, status, e)
			}
		}
		for i := range 3 {
			if status, e := token(w.clientID); status != http.StatusBadRequest || e != "invalid_grant" {
				t.Fatalf("call %d: %d %q, want 400 invalid_grant", i+1, status, e)
			}
		}
		if status, e := token(w.clientID); status != http.StatusTooManyRequests || e != "rate_limited" {
			t.Fatalf("the client's fourth call: %d %q, want 429 rate_limited", status, e)
		}
		// Another client from the same address: its own count, until the
		// address's (nine calls) is spent.
		for i := range 2 {
			if status, _ := token("other-client"); status == http.StatusTooManyRequests {
				t.Fatalf("another client's call %d was refused", i+1)
			}
		}
		if status, _ := token("third-client"); status != http.StatusTooManyRequests {
			t.Fatalf("the address's tenth call: %d, want 429", status)
		}
	})
}

// TestOIDCRateLimitKeepsTheCode: a client over its token limit is refused
// before its code is read (with its secret as HTTP Basic or in the form:
// x/oauth2 tries both), so the code is not spent: once the window has
// passed (the --dev clock moved, the code younger than its 60 seconds), it
// is traded as if nothing happened, with no reuse alarm.
func TestOIDCRateLimitKeepsTheCode(t *testing.T) {
	w := newRPWorld(t, "", "belair", oidc.Confidential)
	w.a.OIDC.TokenPerClient = throttle.Rule{Scope: "oidc.token.client", Limit: 2, Window: 20 * time.Second}
	verifier := pkce(t)
	q := w.authorize(verifier, "en")
	spend := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"not-a-token"}}
	for range 2 {
		if status, e := w.postForm("/oidc/token", spend, w.clientID, w.conf.ClientSecret); status != http.StatusBadRequest {
			t.Fatalf("spending the client's count: %d %q", status, e)
		}
	}
	if _, err := w.conf.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(verifier)); !isOAuthError(err, "rate_limited") {
		t.Fatalf("the code over the limit: %v, want rate_limited", err)
	}
	// Two windows later (the count slides over two fixed windows, and
	// refusals count too), the code is still younger than its 60 seconds.
	if status, out := w.api("belair", "POST", "/_dev/clock", `{"advance":"41s"}`); status != http.StatusOK {
		t.Fatalf("advance the clock: %d %v", status, out)
	}
	if _, err := w.conf.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(verifier)); err != nil {
		t.Fatalf("the code after the window: %v", err)
	}
	if got := storetest.Strings(t, w.a.DB, "SELECT event FROM audit_events WHERE event = 'oidc.code_reuse'"); len(got) != 0 {
		t.Fatalf("a reuse alarm: %v", got)
	}
}

// TestOIDCGrantsEndWithTheSignIn: signing out of the portal, and staff
// disabling the account, end what the customer's sign-ins gave the
// insurer's applications: their refresh tokens and access tokens, and the
// client hears of it by back-channel logout (a logout token it verifies
// with go-oidc against the brand's keys).
func TestOIDCGrantsEndWithTheSignIn(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		logouts := make(chan string, 4)
		var subject string // of the latest sign-in
		rp := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			logouts <- r.PostFormValue("logout_token")
		}))
		t.Cleanup(rp.Close)
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential, func(c *oidc.NewClient) { c.BackchannelLogoutURI = rp.URL + "/backchannel-logout" })
		heard := func(what string) {
			t.Helper()
			var raw string
			select {
			case raw = <-logouts:
			case <-time.After(time.Minute): // a hang bound, not a speed limit
				t.Fatalf("no back-channel logout after %s", what)
			}
			tok, err := w.provider.Verifier(&gooidc.Config{ClientID: w.clientID}).Verify(w.ctx, raw)
			if err != nil {
				t.Fatalf("logout token after %s: %v", what, err)
			}
			var claims struct {
				Events map[string]any `json:"events"`
				Nonce  *string        `json:"nonce"`
			}
			if err := tok.Claims(&claims); err != nil || claims.Events["http://schemas.openid.net/event/backchannel-logout"] == nil ||
				claims.Nonce != nil || tok.Subject != subject {
				t.Fatalf("logout token claims %+v (sub %q): %v", claims, tok.Subject, err)
			}
		}
		signedIn := func() *oauth2.Token {
			tok := w.tokens("en")
			raw, _ := tok.Extra("id_token").(string)
			idt, err := w.provider.Verifier(&gooidc.Config{ClientID: w.clientID}).Verify(w.ctx, raw)
			if err != nil {
				t.Fatal(err)
			}
			subject = idt.Subject
			return tok
		}
		ended := func(what string, tok *oauth2.Token) {
			t.Helper()
			if _, err := w.refresh(tok.RefreshToken); !isInvalidGrant(err) {
				t.Fatalf("after %s the refresh token answers %v, want invalid_grant", what, err)
			}
			if _, err := w.provider.UserInfo(w.ctx, oauth2.StaticTokenSource(tok)); err == nil {
				t.Fatalf("after %s userinfo still answers the access token", what)
			}
		}
		tok := signedIn()
		b, _ := w.a.Brands.ByID("belair")
		req, _ := http.NewRequest("POST", w.issuer("belair")+"/api/v1/logout", nil)
		req.Header.Set("api-key", b.APIKey)
		res, err := w.browser.Do(req)
		if err != nil || res.StatusCode != http.StatusNoContent {
			t.Fatalf("sign-out: %v %v", res, err)
		}
		res.Body.Close()
		ended("a sign-out", tok)
		heard("a sign-out")

		tok = signedIn() // the login page again: the portal session ended
		if err := w.a.Accounts.Disable(t.Context(), "belair", w.account, "staff:test", "192.0.2.1"); err != nil {
			t.Fatal(err)
		}
		ended("a disable", tok)
		heard("a disable")
	})
}

// TestOIDCConsent: a third-party client gets a code only once the customer
// has allowed it on the consent page; the answer is kept (the next sign-in
// goes straight through), asked again for prompt=consent, and a no sends
// the client access_denied; prompt=none without it is consent_required.
// The customer lists what they allowed and takes it back, which ends the
// client's grants.
func TestOIDCConsent(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential, func(c *oidc.NewClient) { c.ThirdParty = true })
		// toConsent starts a request and follows it to the consent page's
		// request id ("" when the browser went straight to the client).
		toConsent := func(opts ...oauth2.AuthCodeOption) (string, *url.URL) {
			t.Helper()
			status, loc := w.get(w.conf.AuthCodeURL("st-c", append(opts, oauth2.S256ChallengeOption(pkce(t)))...))
			if status != http.StatusFound || loc.Path != "/oidc/login" {
				t.Fatalf("authorize: %d to %v", status, loc)
			}
			if status, loc = w.get(loc.String()); loc != nil && loc.Path == "/" {
				loc = w.signIn("belair", demoEmail, demoPassword)
			}
			if loc == nil || loc.Path != "/oidc/authorize/callback" {
				t.Fatalf("to the callback: %d to %v", status, loc)
			}
			_, loc = w.get(w.issuer("belair") + loc.RequestURI())
			if loc != nil && loc.Path == "/oidc/consent" {
				return loc.Query().Get("id"), loc
			}
			return "", loc
		}
		answer := func(id, decision string) (int, *url.URL) {
			t.Helper()
			req, _ := http.NewRequest("POST", w.issuer("belair")+"/oidc/consent", strings.NewReader(url.Values{"id": {id}, "decision": {decision}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", w.issuer("belair"))
			res, err := w.browser.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			loc, _ := res.Location()
			return res.StatusCode, loc
		}

		id, _ := toConsent()
		if id == "" {
			t.Fatal("a third-party client got a code without the customer's consent")
		}
		status, info := w.api("belair", "GET", "/api/v1/oidc/requests/"+id+"/consent", "")
		if status != http.StatusOK || info["client"] != "Claims centre" || !strings.Contains(fmt.Sprint(info["scopes"]), "policies") || info["account"] != demoEmail {
			t.Fatalf("consent info: %d %v", status, info)
		}
		// Another browser (no session, or another customer's) learns nothing
		// and answers nothing.
		thief := &rpWorld{t: t, a: w.a, port: w.port, browser: loopbackClient(w.addr, false)}
		if status, _ := thief.api("belair", "GET", "/api/v1/oidc/requests/"+id+"/consent", ""); status != http.StatusUnauthorized {
			t.Fatalf("consent info without a session: %d, want 401", status)
		}
		// Hostile ids from a signed-in browser: 404, never a 5xx.
		for _, bad := range []string{"%00", "AAAAAAAAAAA%00AAAAAAAAAA", "%FF%FE", strings.Repeat("A", 1000), w.clientID} {
			if status, _ := w.api("belair", "GET", "/api/v1/oidc/requests/"+bad+"/consent", ""); status != http.StatusNotFound {
				t.Fatalf("consent info of %.40q: %d, want 404", bad, status)
			}
			if status, _ := w.api("belair", "DELETE", "/api/v1/me/applications/"+bad, ""); status != http.StatusNotFound {
				t.Fatalf("withdraw %.40q: %d, want 404", bad, status)
			}
		}
		status, loc := answer(id, "allow")
		if status != http.StatusSeeOther || loc.Path != "/oidc/authorize/callback" {
			t.Fatalf("allow: %d to %v", status, loc)
		}
		status, loc = w.get(w.issuer("belair") + loc.RequestURI())
		if loc == nil || loc.Host != "127.0.0.1:9" || loc.Query().Get("code") == "" || loc.Query().Get("iss") != w.issuer("belair") {
			t.Fatalf("after allow: %d to %v", status, loc)
		}
		if status, _ := answer(id, "allow"); status != http.StatusBadRequest {
			t.Fatalf("an answered request answered again: %d, want 400", status)
		}

		// Kept: the next sign-in goes straight to the client.
		verifier := pkce(t)
		q := w.authorize(verifier, "")
		tok, err := w.conf.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatalf("exchange after consent: %v", err)
		}

		// A first-party client's request never asks: the page's API knows it
		// not, even between the sign-in and the callback.
		own, _ := addClient(t, w.a, oidc.NewClient{Brand: "belair", Name: "Billing", Kind: oidc.Public,
			RedirectURIs: []string{"http://127.0.0.1:9/billing"}})
		first := w.conf
		first.ClientID, first.ClientSecret, first.RedirectURL = own.ID, "", "http://127.0.0.1:9/billing"
		_, login := w.get(first.AuthCodeURL("st", oauth2.S256ChallengeOption(pkce(t))))
		if login == nil || login.Path != "/oidc/login" {
			t.Fatalf("a first-party client's authorize: %v", login)
		}
		if _, cb := w.get(login.String()); cb == nil || cb.Path != "/oidc/authorize/callback" {
			t.Fatalf("a first-party client's login: %v", cb)
		} else if status, _ := w.api("belair", "GET", "/api/v1/oidc/requests/"+cb.Query().Get("id")+"/consent", ""); status != http.StatusNotFound {
			t.Fatalf("a first-party request's consent info: %d, want 404", status)
		}

		// The customer's list.
		status, apps := w.api("belair", "GET", "/api/v1/me/applications", "")
		list, _ := apps["applications"].([]any)
		if status != http.StatusOK || len(list) != 1 || list[0].(map[string]any)["name"] != "Claims centre" || list[0].(map[string]any)["clientId"] != w.clientID {
			t.Fatalf("applications: %d %v", status, apps)
		}

		// prompt=consent asks again; a no sends access_denied and takes back
		// what was allowed before: the grant ends, the list empties.
		id, _ = toConsent(oauth2.SetAuthURLParam("prompt", "consent"))
		if id == "" {
			t.Fatal("prompt=consent did not ask")
		}
		if status, _ := answer(id, "maybe"); status != http.StatusBadRequest {
			t.Fatalf("an unknown decision: %d, want 400", status)
		}
		status, loc = answer(id, "deny")
		if status != http.StatusFound || loc.Host != "127.0.0.1:9" || loc.Query().Get("error") != "access_denied" ||
			loc.Query().Get("state") != "st-c" || loc.Query().Get("iss") != w.issuer("belair") {
			t.Fatalf("deny: %d to %v", status, loc)
		}
		if _, err := w.refresh(tok.RefreshToken); !isInvalidGrant(err) {
			t.Fatalf("a grant outlived the customer's no: %v", err)
		}
		if status, apps = w.api("belair", "GET", "/api/v1/me/applications", ""); status != http.StatusOK || len(apps["applications"].([]any)) != 0 {
			t.Fatalf("applications after the no: %d %v", status, apps)
		}

		// Allowed again, then taken back on My account: the grant ends, and so
		// does a code issued but not yet traded.
		id, _ = toConsent()
		if status, loc = answer(id, "allow"); status != http.StatusSeeOther {
			t.Fatalf("allow again: %d %v", status, loc)
		}
		w.get(w.issuer("belair") + loc.RequestURI())
		verifier = pkce(t)
		q = w.authorize(verifier, "")
		tok, err = w.conf.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatalf("exchange after the second yes: %v", err)
		}
		verifier = pkce(t)
		inFlight := w.authorize(verifier, "")
		if status, _ := w.api("belair", "DELETE", "/api/v1/me/applications/"+w.clientID, ""); status != http.StatusNoContent {
			t.Fatalf("withdraw: %d", status)
		}
		if _, err := w.refresh(tok.RefreshToken); !isInvalidGrant(err) {
			t.Fatalf("a grant outlived its consent: %v", err)
		}
		if _, err := w.conf.Exchange(w.ctx, inFlight.Get("code"), oauth2.VerifierOption(verifier)); !isInvalidGrant(err) {
			t.Fatalf("a code issued before the withdrawal: %v, want invalid_grant", err)
		}
		if status, apps = w.api("belair", "GET", "/api/v1/me/applications", ""); status != http.StatusOK || len(apps["applications"].([]any)) != 0 {
			t.Fatalf("applications after withdrawal: %d %v", status, apps)
		}
		if status, _ := w.api("belair", "DELETE", "/api/v1/me/applications/"+w.clientID, ""); status != http.StatusNotFound {
			t.Fatalf("withdraw again: %d, want 404", status)
		}
		// Without a consent, prompt=none cannot ask: consent_required.
		if id, loc = toConsent(oauth2.SetAuthURLParam("prompt", "none")); id != "" || loc == nil || loc.Query().Get("error") != "consent_required" {
			t.Fatalf("prompt=none without consent: %q %v", id, loc)
		}
		testenv.ExpectAudit(t, w.a.DB, w.account, "oidc.consent", "oidc.consent ok", "oidc.consent denied", "oidc.consent ok", "oidc.consent_withdraw ok")
	})
}

// TestOIDCSigningAlgorithmPerClient: a client registered for RS256 gets its
// ID tokens signed RS256 (a relying party that accepts nothing else
// verifies them), another ES256; discovery and the key set offer both.
func TestOIDCSigningAlgorithmPerClient(t *testing.T) {
	for _, alg := range []string{"ES256", "RS256"} {
		t.Run(alg, func(t *testing.T) {
			w := newRPWorld(t, "", "belair", oidc.Confidential, func(c *oidc.NewClient) { c.SigningAlg = jose.SignatureAlgorithm(alg) })
			tok := w.tokens("en")
			raw, _ := tok.Extra("id_token").(string)
			only := func(a string) error {
				_, err := w.provider.Verifier(&gooidc.Config{ClientID: w.clientID, SupportedSigningAlgs: []string{a}}).Verify(w.ctx, raw)
				return err
			}
			other := map[string]string{"ES256": "RS256", "RS256": "ES256"}[alg]
			if err := only(alg); err != nil {
				t.Fatalf("a relying party accepting %s only: %v", alg, err)
			}
			if only(other) == nil {
				t.Fatalf("the ID token verified as %s too", other)
			}
			// The access token (a JWT) is signed the same way.
			if _, err := jose.ParseSignedCompact(tok.AccessToken, []jose.SignatureAlgorithm{jose.SignatureAlgorithm(alg)}); err != nil {
				t.Fatalf("access token not %s: %v", alg, err)
			}
		})
	}
}

// TestOIDCEndSession: an RP-initiated logout with the ID token as hint ends
// the client's grant and the browser's portal session, and returns to the
// client's URI (or to the portal's login page without one).
func TestOIDCEndSession(t *testing.T) {
	w := newRPWorld(t, "", "belair", oidc.Confidential)
	tok := w.tokens("en")
	raw, _ := tok.Extra("id_token").(string)
	end := w.issuer("belair") + "/oidc/end_session?" + url.Values{"id_token_hint": {raw}, "client_id": {w.clientID},
		"post_logout_redirect_uri": {w.conf.RedirectURL}, "state": {"bye"}}.Encode()
	status, loc := w.get(end)
	if status != http.StatusFound || loc == nil || !strings.HasPrefix(loc.String(), w.conf.RedirectURL) {
		t.Fatalf("end_session: %d to %v", status, loc)
	}
	if _, err := w.refresh(tok.RefreshToken); !isInvalidGrant(err) {
		t.Fatalf("the client's refresh token after its logout: %v", err)
	}
	// The portal session ended too: the next authorize shows the login page.
	w.authorize(pkce(t), "en")
	if !w.loggedIn {
		t.Fatal("the portal session outlived the RP-initiated logout")
	}
	// Without a hint or a URI: the portal's login page, nothing ended.
	if status, loc := w.get(w.issuer("belair") + "/oidc/end_session"); status != http.StatusFound || loc == nil || loc.Path != "/" {
		t.Fatalf("end_session without anything: %d to %v", status, loc)
	}
}

// TestOIDCReviewFindings: the request's id alone gives no code (the
// callback wants the browser that signed in); revoking a refresh token
// (RFC 7009) ends its grant; a request completed before a disable gives
// nothing after it; an unknown client is invalid_client, never a 500.
func TestOIDCReviewFindings(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		w.authorize(pkce(t), "en") // the customer's browser holds a portal session

		// An attacker starts a request in their own browser and has the
		// customer open its login link; the attacker's callback gets nothing.
		thief := &rpWorld{t: t, a: w.a, port: w.port, browser: loopbackClient(w.addr, false)}
		status, loc := thief.get(w.conf.AuthCodeURL("st", oauth2.S256ChallengeOption(pkce(t))))
		if status != http.StatusFound || loc.Path != "/oidc/login" {
			t.Fatalf("attacker's authorize: %d %v", status, loc)
		}
		login := w.issuer("belair") + loc.RequestURI()
		if status, loc = w.get(login); loc == nil || loc.Path != "/oidc/authorize/callback" {
			t.Fatalf("the customer's browser on the attacker's link: %d %v", status, loc)
		}
		if status, loc := thief.get(w.issuer("belair") + loc.RequestURI()); status != http.StatusBadRequest || loc != nil {
			t.Fatalf("the attacker's callback with the id alone: %d to %v, want 400 and no code", status, loc)
		}

		// Revocation of a refresh token.
		tok := w.tokens("")
		form := url.Values{"token": {tok.RefreshToken}, "token_type_hint": {"refresh_token"}}
		if status, e := w.postForm("/oidc/revoke", form, w.clientID, w.conf.ClientSecret); status != http.StatusOK {
			t.Fatalf("revoke: %d %q", status, e)
		}
		if _, err := w.refresh(tok.RefreshToken); !isInvalidGrant(err) {
			t.Fatalf("a revoked refresh token: %v", err)
		}

		// A code given before a disable is traded for nothing after it.
		verifier := pkce(t)
		q := w.authorize(verifier, "")
		if err := w.a.Accounts.Disable(t.Context(), "belair", w.account, "staff:test", "192.0.2.1"); err != nil {
			t.Fatal(err)
		}
		if _, err := w.conf.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(verifier)); !isInvalidGrant(err) {
			t.Fatalf("a code of before the disable: %v, want invalid_grant", err)
		}

		// An unknown client at the token endpoint: 401 invalid_client.
		bad := w.conf
		bad.ClientID = "no-such-client"
		var re *oauth2.RetrieveError
		if _, err := bad.TokenSource(w.ctx, &oauth2.Token{RefreshToken: "x"}).Token(); !errors.As(err, &re) || re.Response.StatusCode != http.StatusUnauthorized && re.Response.StatusCode != http.StatusBadRequest || re.ErrorCode != "invalid_client" {
			t.Fatalf("unknown client: %v", err)
		}
	})
}

// TestOIDCSecondReviewFindings (session 16): a refused refresh (another
// client's, a scope wider than the grant's) leaves the holder's token
// usable; a second visit to the callback gives the client nothing and the
// visitor a page that says why.
func TestOIDCSecondReviewFindings(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential, func(c *oidc.NewClient) { c.Name = "Claims centre" })
		tok := w.tokens("en")

		// Another client of the brand, with its own secret, presents the
		// token: refused, and the token stays its holder's.
		thief, thiefSecret := addClient(t, w.a, oidc.NewClient{Brand: "belair", Name: "Billing", Kind: oidc.Confidential,
			RedirectURIs: []string{"http://127.0.0.1:9/billing"}})
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}}
		if status, e := w.postForm("/oidc/token", form, thief.ID, thiefSecret); status != http.StatusBadRequest || e != "invalid_grant" {
			t.Fatalf("another client's refresh: %d %q, want 400 invalid_grant", status, e)
		}
		// A scope the grant does not hold: invalid_scope, the token unspent.
		form.Set("scope", "openid admin")
		if status, e := w.postForm("/oidc/token", form, w.clientID, w.conf.ClientSecret); status != http.StatusBadRequest || e != "invalid_scope" {
			t.Fatalf("a wider scope: %d %q, want 400 invalid_scope", status, e)
		}
		next, err := w.refresh(tok.RefreshToken)
		if err != nil || next.RefreshToken == "" || next.RefreshToken == tok.RefreshToken {
			t.Fatalf("the holder's refresh after two refusals: %v", err)
		}
		// Used once, the token is spent: using it again ends the grant.
		if _, err := w.refresh(tok.RefreshToken); !isInvalidGrant(err) {
			t.Fatalf("a used refresh token: %v, want invalid_grant", err)
		}
		if _, err := w.refresh(next.RefreshToken); !isInvalidGrant(err) {
			t.Fatalf("the grant outlived its token's reuse: %v", err)
		}

		// The browser, signed in, starts a request; its callback answers
		// once, with the code; the second visit (the back button) tells the
		// visitor, and sends the client nothing.
		status, loc := w.get(w.conf.AuthCodeURL("st-2", oauth2.S256ChallengeOption(pkce(t))))
		if status != http.StatusFound || loc.Path != "/oidc/login" {
			t.Fatalf("authorize: %d to %v", status, loc)
		}
		if status, loc = w.get(loc.String()); loc == nil || loc.Path != "/oidc/authorize/callback" {
			t.Fatalf("login with a session: %d to %v", status, loc)
		}
		callback := w.issuer("belair") + loc.RequestURI()
		if status, loc := w.get(callback); loc == nil || loc.Host != "127.0.0.1:9" || loc.Query().Get("code") == "" {
			t.Fatalf("first callback: %d to %v", status, loc)
		}
		if status, loc := w.get(callback); status != http.StatusBadRequest || loc != nil {
			t.Fatalf("second callback: %d to %v, want 400 and no redirect to the client", status, loc)
		}
	})
}
