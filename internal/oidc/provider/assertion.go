package provider

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	zoidc "github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"guichet/internal/oidc"
)

// Client assertions (private_key_jwt: RFC 7523 §2.2, OpenID Connect Core
// §9). zitadel/oidc verifies an assertion's signature, issuer, subject,
// audience (the issuer only), expiry and age (an hour), but keeps no jti and
// bounds no lifetime. So before it, for the endpoints that authenticate
// clients (token, revocation, introspection), clientAssertions checks the
// assertion Guichet's way and spends its jti; zitadel/oidc then runs with
// the audience the assertion was checked for.

// assertionAlgs are the algorithms a client may sign its assertions with
// (those of the keys oidc.ParseJWKS accepts).
var assertionAlgs = []jose.SignatureAlgorithm{jose.ES256, jose.RS256}

// assertionLeeway is the clock skew allowed on exp, nbf and iat: the
// second zitadel/oidc allows on its own checks.
const assertionLeeway = time.Second

// clientAssertions is an interceptor of zitadel/oidc's router (the issuer
// is in the context): it checks the client assertion of a request to an
// endpoint that authenticates clients, and serves discovery with the
// algorithms assertions may be signed with.
func (p *Provider) clientAssertions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case DiscoveryPath:
			p.discovery(w, r)
			return
		case TokenPath, RevokePath, IntrospectPath:
		default:
			next.ServeHTTP(w, r)
			return
		}
		// r.Form, as zitadel/oidc reads it: the body and the query string.
		r.Body = http.MaxBytesReader(w, r.Body, maxTokenForm)
		if r.ParseForm() != nil {
			next.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == TokenPath && r.Form.Get("grant_type") == string(zoidc.GrantTypeBearer) {
			// An assertion as the grant itself (RFC 7523 §2.1), which
			// zitadel/oidc offers whenever private_key_jwt is on: not here.
			op.RequestError(w, r, zoidc.ErrUnsupportedGrantType(), slog.Default())
			return
		}
		if !r.Form.Has("client_assertion") && !r.Form.Has("client_assertion_type") {
			next.ServeHTTP(w, r)
			return
		}
		clientID, audience, err := p.checkAssertion(r)
		if err == nil {
			// The client proved who it is: its own token limit counts now
			// (limits.go; over it, limitWriter answers 429).
			err = p.admitClient(r.Context(), clientID)
		}
		if err != nil {
			op.RequestError(w, r, err, slog.Default())
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), assertedKey{}, clientID))
		checked := asserted{Provider: p.op, audience: audience}
		switch r.URL.Path {
		case TokenPath:
			op.Exchange(w, r, checked)
		case RevokePath:
			op.Revoke(w, r, checked)
		default:
			op.Introspect(w, r, checked)
		}
	})
}

// discovery is zitadel/oidc's, with the algorithms client assertions may
// be signed with (it names RS256 alone).
func (p *Provider) discovery(w http.ResponseWriter, r *http.Request) {
	config := op.CreateDiscoveryConfig(r.Context(), p.op, p.op.Storage())
	algs := make([]string, 0, len(assertionAlgs))
	for _, a := range assertionAlgs {
		algs = append(algs, string(a))
	}
	config.TokenEndpointAuthSigningAlgValuesSupported = algs
	config.RevocationEndpointAuthSigningAlgValuesSupported = algs
	config.IntrospectionEndpointAuthSigningAlgValuesSupported = algs
	op.Discover(w, config)
}

// asserted is zitadel/oidc's provider for a request whose client assertion
// checkAssertion accepted: its verifier expects the audience the assertion
// names (the issuer, or the token endpoint, which zitadel/oidc alone would
// refuse).
type asserted struct {
	*op.Provider
	audience string
}

func (a asserted) JWTProfileVerifier(context.Context) *op.JWTProfileVerifier {
	return op.NewJWTProfileVerifier(a.Storage(), a.audience, time.Hour, assertionLeeway)
}

// invalidAssertion is the answer to any fault of a client assertion:
// invalid_client, 401 (RFC 7521 §4.2).
func invalidAssertion(why string) error { return zoidc.ErrInvalidClient().WithDescription("%s", why) }

// checkAssertion checks a request's client assertion: a JWT signed (ES256
// or RS256) with a registered key of an enabled private_key_jwt client of
// the request's brand, whose iss and sub are that client, whose aud is
// this brand's issuer or token endpoint (every value of it: an assertion
// also meant for someone else is refused), which expires within
// oidc.MaxAssertionLifetime, and whose jti the client has not used before.
// It spends the jti, and returns the client and the audience to verify
// against.
func (p *Provider) checkAssertion(r *http.Request) (clientID, audience string, err error) {
	ctx, form := r.Context(), r.Form
	if len(form["client_assertion"]) > 1 || len(form["client_assertion_type"]) > 1 || len(form["client_id"]) > 1 {
		return "", "", zoidc.ErrInvalidRequest().WithDescription("a parameter is given twice")
	}
	if form.Get("client_assertion_type") != zoidc.ClientAssertionTypeJWTAssertion {
		return "", "", invalidAssertion("client_assertion_type must be " + zoidc.ClientAssertionTypeJWTAssertion)
	}
	if _, _, basic := r.BasicAuth(); basic || form.Has("client_secret") {
		return "", "", zoidc.ErrInvalidRequest().WithDescription("a client authenticates one way only: a secret or an assertion")
	}
	tok, err := jwt.ParseSigned(form.Get("client_assertion"), assertionAlgs)
	if err != nil || len(tok.Headers) != 1 {
		return "", "", invalidAssertion("client_assertion is not a JWT signed with ES256 or RS256")
	}
	var unverified jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return "", "", invalidAssertion("client_assertion is not a JWT signed with ES256 or RS256")
	}
	clientID = unverified.Issuer
	if id := form.Get("client_id"); id != "" && id != clientID {
		return "", "", invalidAssertion("client_id is not the assertion's issuer")
	}
	c, err := storage{p}.client(ctx, clientID)
	var known *zoidc.Error
	if errors.As(err, &known) && known.ErrorType == zoidc.InvalidClient {
		return "", "", invalidAssertion("the assertion's issuer is no enabled client of this brand")
	}
	if err != nil {
		return "", "", err
	}
	if c.AuthMethod != oidc.AuthPrivateKeyJWT {
		return "", "", invalidAssertion("this client does not authenticate with private_key_jwt")
	}
	key, ok := c.Key(tok.Headers[0].KeyID)
	var claims jwt.Claims
	if !ok || tok.Headers[0].Algorithm != key.Algorithm || tok.Claims(key.Key, &claims) != nil {
		return "", "", invalidAssertion("the assertion is not signed with a key of the client")
	}
	now := p.OIDC.Now()
	if err := claims.ValidateWithLeeway(jwt.Expected{Issuer: c.ID, Subject: c.ID, Time: now}, assertionLeeway); err != nil {
		return "", "", invalidAssertion("the assertion is not valid: " + err.Error())
	}
	switch {
	case claims.Expiry == nil || claims.IssuedAt == nil:
		return "", "", invalidAssertion("the assertion needs exp and iat")
	case claims.Expiry.Time().After(now.Add(oidc.MaxAssertionLifetime + assertionLeeway)):
		return "", "", invalidAssertion("the assertion must expire within 5 minutes")
	}
	issuer := op.IssuerFromContext(ctx)
	ours := []string{issuer, issuer + TokenPath}
	if len(claims.Audience) == 0 || slices.ContainsFunc(claims.Audience, func(aud string) bool { return !slices.Contains(ours, aud) }) {
		return "", "", invalidAssertion("the assertion's audience must be " + issuer + " or " + issuer + TokenPath + ", alone")
	}
	err = p.OIDC.UseAssertion(ctx, c.ID, claims.ID, claims.Expiry.Time())
	var inv *oidc.InvalidError
	switch {
	case errors.Is(err, oidc.ErrAssertionReplayed):
		return "", "", invalidAssertion("the assertion was used already: make a new one for each request")
	case errors.As(err, &inv):
		return "", "", invalidAssertion(inv.Reason)
	case err != nil:
		return "", "", zoidc.ErrServerError().WithParent(err)
	}
	return c.ID, claims.Audience[0], nil
}

// assertedKey is the client whose assertion checkAssertion accepted, in the
// request's context.
type assertedKey struct{}

// GetKeyByIDAndClientID is the registered public key zitadel/oidc checks a
// client assertion's signature with: a key of an enabled private_key_jwt
// client of the request's brand, and only for the assertion checkAssertion
// accepted (an assertion that reached zitadel/oidc some other way verifies
// with no key).
func (s storage) GetKeyByIDAndClientID(ctx context.Context, keyID, clientID string) (*jose.JSONWebKey, error) {
	if checked, _ := ctx.Value(assertedKey{}).(string); checked != clientID {
		return nil, zoidc.ErrInvalidClient().WithDescription("the client assertion was not checked")
	}
	c, err := s.client(ctx, clientID)
	if err != nil {
		return nil, err
	}
	k, ok := c.Key(keyID)
	if !ok || c.AuthMethod != oidc.AuthPrivateKeyJWT {
		return nil, errNotFound
	}
	return &k, nil
}
