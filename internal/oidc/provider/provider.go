// Package provider is the HTTP side of Guichet's OpenID Connect provider
// (issue 30): zitadel/oidc's op package serves the protocol's endpoints on
// every brand's host, over internal/oidc's tables through storage.go; the
// portal's own screens do the sign-in (login.go hands the visitor to them
// and takes them back). docs/design.md "OpenID Connect provider" gives the
// decisions.
package provider

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/url"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/oidc"
	"guichet/internal/policy"
	"guichet/internal/sso"
	"guichet/internal/throttle"
)

// Paths of the protocol's endpoints on each brand's host; the issuer is the
// host itself, so discovery is at /.well-known/openid-configuration.
const (
	AuthorizePath  = "/oidc/authorize"
	CallbackPath   = AuthorizePath + "/callback"
	TokenPath      = "/oidc/token"
	UserinfoPath   = "/oidc/userinfo"
	RevokePath     = "/oidc/revoke"
	EndSessionPath = "/oidc/end_session"
	KeysPath       = "/oidc/keys"
	IntrospectPath = "/oidc/introspect"
	DiscoveryPath  = "/.well-known/openid-configuration"
)

// Provider serves the protocol (ServeHTTP) and the sign-in hand-off.
type Provider struct {
	OIDC *oidc.Service
	// Account reads a customer's account of a brand; Policies their linked
	// policies (the "policies" scope).
	Account  func(ctx context.Context, brand, id string) (account.Account, error)
	Policies func(ctx context.Context, accountID string) ([]policy.Linked, error)
	// Sessions is the portal's own sign-in session (internal/sso).
	Sessions *sso.Handler
	// Limiter counts the token endpoint's calls per client (TokenPerClient)
	// and per address (TokenPerAddress); New fills zero rules with the
	// defaults below.
	Limiter         *throttle.Limiter
	TokenPerClient  throttle.Rule
	TokenPerAddress throttle.Rule
	// LogoutTransport, when set, carries back-channel logouts (tests);
	// http.DefaultTransport otherwise.
	LogoutTransport http.RoundTripper
	op              *op.Provider
}

// The token endpoint's default limits: 500 calls a second per client, far
// above what its customers sign in and refresh at (a code is traded once
// per sign-in, a refresh every access token's hour) and about what one
// instance answers (make bench), so a looping client cannot take the
// endpoint from the others; an address may carry several clients (an
// insurer's applications behind one NAT), so twice that.
var (
	DefaultTokenPerClient  = throttle.Rule{Scope: "oidc.token.client", Limit: 30000, Window: time.Minute}
	DefaultTokenPerAddress = throttle.Rule{Scope: "oidc.token.address", Limit: 60000, Window: time.Minute}
)

// New builds the provider; dev serves its issuer over plain http (the
// brands' *.localhost hosts in --dev).
func New(p *Provider, dev bool) (*Provider, error) {
	if p.TokenPerClient.Limit == 0 {
		p.TokenPerClient = DefaultTokenPerClient
	}
	if p.TokenPerAddress.Limit == 0 {
		p.TokenPerAddress = DefaultTokenPerAddress
	}
	config := &op.Config{
		// An RP-initiated logout without a registered post-logout URI ends
		// on the portal's login page.
		DefaultLogoutRedirectURI: "/",
		CodeMethodS256:           true,
		GrantTypeRefreshToken:    true,
		// Back-channel logout (logout.go); no "sid": a logout names the
		// subject, and ends all of its grants at the client.
		BackChannelLogoutSupported: true,
		SupportedUILocales:         []language.Tag{language.CanadianFrench, language.Make("en-CA"), language.French, language.English},
		SupportedScopes:            []string{"openid", "profile", "email", "offline_access", ScopePolicies},
		SupportedClaims: []string{"sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "acr", "amr", "at_hash", "c_hash",
			"name", "given_name", "family_name", "locale", "email", "email_verified", "brand", "policies"},
		// Clients with registered keys sign an assertion (assertion.go).
		AuthMethodPrivateKeyJWT: true,
	}
	// The key of opaque access tokens, which no client gets (they are
	// JWTs): random, never stored.
	if _, err := rand.Read(config.CryptoKey[:]); err != nil {
		return nil, err
	}
	opts := []op.Option{
		op.WithCustomEndpoints(op.NewEndpoint(AuthorizePath), op.NewEndpoint(TokenPath), op.NewEndpoint(UserinfoPath),
			op.NewEndpoint(RevokePath), op.NewEndpoint(EndSessionPath), op.NewEndpoint(KeysPath)),
		op.WithCustomIntrospectionEndpoint(op.NewEndpoint(IntrospectPath)),
		op.WithCustomDeviceAuthorizationEndpoint(op.NewEndpoint("/oidc/device_authorization")),
		op.WithHttpInterceptors(p.clientAssertions),
	}
	if dev {
		opts = append(opts, op.WithAllowInsecure())
	}
	o, err := op.NewProvider(config, storage{p}, issuer, opts...)
	if err != nil {
		return nil, fmt.Errorf("oidc provider: %w", err)
	}
	p.op = o
	return p, nil
}

// issuer is the brand's host the request came to: https, or http for a
// plain-http request in --dev.
func issuer(bool) (op.IssuerFromRequest, error) {
	return func(r *http.Request) string { return Issuer(r) }, nil
}

// Issuer is the issuer of the brand whose host r came to.
func Issuer(r *http.Request) string {
	scheme := "https"
	if r.TLS == nil && api.SiteOf(r).Dev {
		scheme = "http"
	}
	return scheme + "://" + r.Host
}

// ServeHTTP serves the protocol's endpoints (the route table lists them).
// The portal session of the browser, if any, rides in the context for an
// RP-initiated logout; redirects back to a client carry the issuer
// (RFC 9207).
func (p *Provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := &caller{}
	var rw http.ResponseWriter = &issWriter{ResponseWriter: w, iss: Issuer(r)}
	if r.URL.Path == TokenPath {
		if !p.admitAddress(w, r) {
			return
		}
		// The client's own count comes once it has authenticated
		// (limits.go); over it, its answer is the 429.
		c.counted = true
		rw = &limitWriter{ResponseWriter: rw, c: c}
	}
	if r.URL.Path == CallbackPath {
		// The route table serves the callback to GET only, so the id
		// zitadel/oidc reads (r.Form: no body) is the query's read here.
		a, ok := p.sameBrowser(r)
		if !ok {
			p.expired(w, r, oidc.ErrRequestNotFound)
			return
		}
		if p.askConsent(w, r, a) {
			return
		}
	}
	ctx := context.WithValue(r.Context(), browserKey{}, browser{token: p.Sessions.Token(r), ip: api.ClientIP(r)})
	ctx = context.WithValue(ctx, callerKey{}, c)
	if c.counted {
		if err := p.admitSecret(ctx, r); err != nil {
			if c.limited != nil {
				rateLimited(w, *c.limited)
			} else {
				api.WriteError(w, r, err)
			}
			return
		}
	}
	p.op.ServeHTTP(rw, r.WithContext(ctx))
}

// issWriter adds the "iss" parameter (RFC 9207) to an authorization
// response: a redirect to a client's URI carrying a code or an error.
type issWriter struct {
	http.ResponseWriter
	iss string
}

func (w *issWriter) WriteHeader(status int) {
	if status == http.StatusFound || status == http.StatusSeeOther {
		if loc, err := url.Parse(w.Header().Get("Location")); err == nil && loc.IsAbs() {
			q := loc.Query()
			if (q.Has("code") || q.Has("error")) && !q.Has("iss") {
				q.Set("iss", w.iss)
				loc.RawQuery = q.Encode()
				w.Header().Set("Location", loc.String())
			}
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

// caller is the client a protocol request authenticated as, once storage
// has loaded it: its tokens are signed with its algorithm (SigningKey has no
// other way to know whose tokens it signs). On the token endpoint (counted)
// an authenticated client is counted against its limit; limited is the
// rule it went over.
type caller struct {
	alg     jose.SignatureAlgorithm
	counted bool
	limited *throttle.Rule
}

type callerKey struct{}

// browser is the portal session cookie a protocol request came with.
type browser struct{ token, ip string }

type browserKey struct{}

// endPortalSession signs the browser out of the portal when its session is
// the subject's (an RP-initiated logout): the session is revoked in the
// database, so its cookie opens nothing any more.
func (p *Provider) endPortalSession(ctx context.Context, brand, subject string) error {
	b, _ := ctx.Value(browserKey{}).(browser)
	if b.token == "" || subject == "" {
		return nil
	}
	s, err := p.Sessions.Service.Lookup(ctx, brand, b.token)
	if err != nil || p.OIDC.Subject(s.Brand, s.AccountID) != subject {
		return nil // no live session, or someone else's: nothing to end
	}
	return p.Sessions.Service.Logout(ctx, brand, b.token, b.ip)
}

// sameBrowser returns the callback's request when it comes from the
// browser that completed it: its portal session is the request's
// customer's. The request's id alone (it shows in /oidc/login's URL) gives
// nothing.
func (p *Provider) sameBrowser(r *http.Request) (oidc.AuthRequest, bool) {
	a, err := p.OIDC.AuthRequest(r.Context(), r.URL.Query().Get("id"))
	if err != nil || !a.Done() || a.Answered() {
		// Not signed in yet, or its code was issued (a second visit, the
		// back button): the visitor sees the page that says so, and the
		// client hears nothing more.
		return oidc.AuthRequest{}, false
	}
	s, err := p.Sessions.Current(r)
	return a, err == nil && s.AccountID == a.AccountID && s.Brand == a.Brand
}
