package provider

import (
	"slices"
	"time"

	zoidc "github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"guichet/internal/oidc"
)

// What zitadel/oidc's handlers hold between storage calls: an authorization
// request (op.AuthRequest, and op.IDTokenRequest for the code's tokens) and
// a refresh (op.RefreshTokenRequest). Each carries the account it is of, so
// that the claims come from the account, never from the subject.

// ACR is the authentication context class of a Guichet sign-in: one factor
// (a password, or a ticket the password gave), so level 1.
const ACR = "1"

type authRequest struct {
	oidc.AuthRequest
	subject string
}

var _ op.AuthRequest = (*authRequest)(nil)

func (a *authRequest) GetID() string             { return a.ID }
func (a *authRequest) GetACR() string            { return acrOf(a.AMR) }
func (a *authRequest) GetAMR() []string          { return a.AMR }
func (a *authRequest) GetAudience() []string     { return []string{a.ClientID} }
func (a *authRequest) GetAuthTime() time.Time    { return a.AuthTime }
func (a *authRequest) GetClientID() string       { return a.ClientID }
func (a *authRequest) GetNonce() string          { return a.Nonce }
func (a *authRequest) GetRedirectURI() string    { return a.RedirectURI }
func (a *authRequest) GetScopes() []string       { return a.Scopes }
func (a *authRequest) GetState() string          { return a.State }
func (a *authRequest) GetSubject() string        { return a.subject }
func (a *authRequest) Done() bool                { return a.AuthRequest.Done() }
func (a *authRequest) account() (string, string) { return a.Brand, a.AccountID }

func (a *authRequest) GetResponseType() zoidc.ResponseType { return zoidc.ResponseTypeCode }
func (a *authRequest) GetResponseMode() zoidc.ResponseMode { return zoidc.ResponseMode(a.ResponseMode) }

func (a *authRequest) GetCodeChallenge() *zoidc.CodeChallenge {
	if a.CodeChallenge == "" {
		return nil
	}
	return &zoidc.CodeChallenge{Challenge: a.CodeChallenge, Method: zoidc.CodeChallengeMethod(a.CodeChallengeMethod)}
}

// refreshRequest is an unused refresh token of a live grant, read by
// TokenRequestByRefreshToken; CreateAccessAndRefreshTokens rotates it once
// zitadel/oidc has checked the client and the scopes.
type refreshRequest struct {
	grant  oidc.Grant
	token  string
	scopes []string
}

var _ op.RefreshTokenRequest = (*refreshRequest)(nil)

func (r *refreshRequest) GetAMR() []string                 { return r.grant.AMR }
func (r *refreshRequest) GetAudience() []string            { return []string{r.grant.ClientID} }
func (r *refreshRequest) GetAuthTime() time.Time           { return r.grant.AuthTime }
func (r *refreshRequest) GetClientID() string              { return r.grant.ClientID }
func (r *refreshRequest) GetScopes() []string              { return r.scopes }
func (r *refreshRequest) GetSubject() string               { return r.grant.Subject }
func (r *refreshRequest) SetCurrentScopes(scopes []string) { r.scopes = scopes }
func (r *refreshRequest) account() (string, string)        { return r.grant.Brand, r.grant.AccountID }

// ofAccount is what both requests say of whose they are.
type ofAccount interface {
	account() (brand, accountID string)
}

func acrOf(amr []string) string {
	if len(amr) == 0 {
		return ""
	}
	return ACR
}

func has(scopes []string, scope string) bool { return slices.Contains(scopes, scope) }
