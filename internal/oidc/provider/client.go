package provider

import (
	"net/url"
	"strings"
	"time"

	zoidc "github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"guichet/internal/oidc"
)

// Lifetimes of the tokens the endpoints sign (refresh tokens and grants:
// internal/oidc).
const (
	IDTokenLifetime     = time.Hour
	AccessTokenLifetime = time.Hour
)

// ScopePolicies asks for the "policies" claim: the customer's linked
// policies (number and kind).
const ScopePolicies = "policies"

// LoginPath is where /authorize sends the visitor to sign in (login.go).
const LoginPath = "/oidc/login"

// client is a registered client as zitadel/oidc sees it.
type client struct{ oidc.Client }

var _ op.Client = client{}

func (c client) GetID() string          { return c.ID }
func (c client) RedirectURIs() []string { return c.Client.RedirectURIs }

// PostLogoutRedirectURIs: an RP-initiated logout may return to any of the
// client's redirect URIs (no separate list is registered).
func (c client) PostLogoutRedirectURIs() []string { return c.Client.RedirectURIs }

// ApplicationType: a public client is an app on a device (RFC 8252: a
// loopback or reverse-domain redirect); a confidential one a web server.
func (c client) ApplicationType() op.ApplicationType {
	if c.Kind == oidc.Public {
		return op.ApplicationTypeNative
	}
	return op.ApplicationTypeWeb
}

// AuthMethod: a confidential client proves itself with its secret in the
// Authorization header, or with an assertion signed with its key
// (assertion.go); a public one with PKCE alone.
func (c client) AuthMethod() zoidc.AuthMethod {
	switch c.Client.AuthMethod {
	case oidc.AuthNone:
		return zoidc.AuthMethodNone
	case oidc.AuthPrivateKeyJWT:
		return zoidc.AuthMethodPrivateKeyJWT
	}
	return zoidc.AuthMethodBasic
}

func (c client) ResponseTypes() []zoidc.ResponseType {
	return []zoidc.ResponseType{zoidc.ResponseTypeCode}
}
func (c client) GrantTypes() []zoidc.GrantType {
	return []zoidc.GrantType{zoidc.GrantTypeCode, zoidc.GrantTypeRefreshToken}
}

func (c client) LoginURL(id string) string           { return LoginPath + "?id=" + url.QueryEscape(id) }
func (c client) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }
func (c client) IDTokenLifetime() time.Duration      { return IDTokenLifetime }
func (c client) DevMode() bool                       { return false }
func (c client) ClockSkew() time.Duration            { return 0 }

func (c client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(scopes []string) []string { return scopes }
}

func (c client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(scopes []string) []string { return scopes }
}

// IsScopeAllowed: beyond OpenID's own scopes, only "policies".
func (c client) IsScopeAllowed(scope string) bool { return scope == ScopePolicies }

// IDTokenUserinfoClaimsAssertion: the ID token carries the profile and
// email claims itself (relying parties such as oauth2-proxy read the email
// from it), not only the userinfo endpoint.
func (c client) IDTokenUserinfoClaimsAssertion() bool { return true }

// locale is the OpenID locale of an account's language.
func locale(language string) string {
	if strings.EqualFold(language, "fr") {
		return "fr-CA"
	}
	return "en-CA"
}
