package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	zoidc "github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/oidc"
)

// storage is zitadel/oidc's op.Storage over internal/oidc's Service and the
// account's records. Every call is of the brand whose host the request came
// to (api.SiteFrom): a client, code, refresh token or access token of
// another brand is unknown here.
type storage struct{ p *Provider }

var (
	_ op.Storage                        = storage{}
	_ op.CanSetUserinfoFromRequest      = storage{}
	_ op.CanGetPrivateClaimsFromRequest = storage{}
	_ op.CanTerminateSessionFromRequest = storage{}
)

// errNotFound is what zitadel/oidc gets for an unknown client, request or
// token of this brand: a plain error, so that it answers invalid_client,
// invalid_grant or invalid_request, never server_error.
var errNotFound = errors.New("provider: not found")

func brandOf(ctx context.Context) string { return api.SiteFrom(ctx).Brand.ID }

// client returns an enabled client of the request's brand.
func (s storage) client(ctx context.Context, id string) (oidc.Client, error) {
	c, err := s.p.OIDC.Client(ctx, id)
	switch {
	case errors.Is(err, oidc.ErrUnknownClient):
		return oidc.Client{}, zoidc.ErrInvalidClient()
	case err != nil:
		return oidc.Client{}, zoidc.ErrServerError().WithParent(err)
	case c.Brand != brandOf(ctx) || c.Disabled():
		return oidc.Client{}, zoidc.ErrInvalidClient()
	}
	if k, ok := ctx.Value(callerKey{}).(*caller); ok {
		k.alg = c.SigningAlg
	}
	return c, nil
}

func (s storage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.client(ctx, id)
	if err != nil {
		return nil, err
	}
	return client{c}, nil
}

func (s storage) AuthorizeClientIDSecret(ctx context.Context, id, secret string) error {
	c, err := s.client(ctx, id)
	if err != nil {
		return err
	}
	if c.Kind != oidc.Confidential || !c.CheckSecret(secret) {
		return zoidc.ErrInvalidClient()
	}
	return nil // counted against its token limit already (limits.go admitSecret)
}

// CreateAuthRequest stores an /authorize request zitadel/oidc has checked
// (client, redirect URI, scopes). Guichet asks more: S256 whenever PKCE is
// used, PKCE always from a public client (issue 30), and the answer in the
// query: the one response mode that carries "iss" (RFC 9207, issWriter;
// zitadel/oidc's form_post page has no field for it, and its inline script
// would not run under the portal's CSP).
func (s storage) CreateAuthRequest(ctx context.Context, req *zoidc.AuthRequest, _ string) (op.AuthRequest, error) {
	c, err := s.client(ctx, req.ClientID)
	if err != nil {
		return nil, err
	}
	if req.CodeChallenge == "" && c.Kind == oidc.Public {
		return nil, zoidc.ErrInvalidRequest().WithDescription("PKCE (S256) is required of a public client")
	}
	if req.CodeChallenge != "" && req.CodeChallengeMethod != zoidc.CodeChallengeMethodS256 {
		return nil, zoidc.ErrInvalidRequest().WithDescription("code_challenge_method must be S256")
	}
	if req.ResponseMode != "" && req.ResponseMode != zoidc.ResponseModeQuery {
		return nil, zoidc.ErrInvalidRequest().WithDescription("response_mode must be query")
	}
	maxAge := time.Duration(-1)
	if req.MaxAge != nil {
		maxAge = time.Duration(*req.MaxAge) * time.Second
	}
	locales := make([]string, 0, len(req.UILocales))
	for _, tag := range req.UILocales {
		locales = append(locales, tag.String())
	}
	a, err := s.p.OIDC.CreateAuthRequest(ctx, oidc.AuthRequest{
		Brand: c.Brand, Issuer: op.IssuerFromContext(ctx), ClientID: c.ID, RedirectURI: req.RedirectURI, Scopes: req.Scopes, State: req.State, Nonce: req.Nonce,
		ResponseMode: string(req.ResponseMode), CodeChallenge: req.CodeChallenge, CodeChallengeMethod: string(req.CodeChallengeMethod),
		Prompt: req.Prompt, MaxAge: maxAge, LoginHint: req.LoginHint, UILocales: locales,
	})
	if err != nil {
		return nil, err
	}
	return s.wrap(a), nil
}

func (s storage) wrap(a oidc.AuthRequest) *authRequest {
	r := &authRequest{AuthRequest: a}
	if a.Done() {
		r.subject = s.p.OIDC.Subject(a.Brand, a.AccountID)
	}
	return r
}

func (s storage) AuthRequestByID(ctx context.Context, id string) (op.AuthRequest, error) {
	a, err := s.p.OIDC.AuthRequest(ctx, id)
	return s.ours(ctx, a, err, oidc.ErrRequestNotFound)
}

// AuthRequestByCode trades the code at once, before zitadel/oidc checks the
// PKCE verifier and the client: a code is presented once, whoever presents
// it (a second presentation revokes what the first gave).
func (s storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	a, err := s.p.OIDC.TradeCode(ctx, code)
	return s.ours(ctx, a, err, oidc.ErrInvalidGrant)
}

// ours hands zitadel/oidc a request read for this brand's host: unknown
// (the domain's notFound error) or another brand's is errNotFound.
func (s storage) ours(ctx context.Context, a oidc.AuthRequest, err, notFound error) (op.AuthRequest, error) {
	if errors.Is(err, notFound) || err == nil && a.Brand != brandOf(ctx) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, err
	}
	return s.wrap(a), nil
}

func (s storage) SaveAuthCode(ctx context.Context, id, code string) error {
	return s.p.OIDC.SaveCode(ctx, id, code)
}

// DeleteAuthRequest keeps the request: its traded code stays known so that
// a replay revokes the grant (the janitor prunes it, oidc.Service.Prune).
func (s storage) DeleteAuthRequest(context.Context, string) error { return nil }

// CreateAccessToken starts the grant of a traded code when the client gets
// no refresh token; the access token names it.
func (s storage) CreateAccessToken(ctx context.Context, req op.TokenRequest) (string, time.Time, error) {
	a, ok := req.(*authRequest)
	if !ok {
		return "", time.Time{}, zoidc.ErrUnsupportedGrantType()
	}
	g, _, err := s.p.OIDC.StartGrant(ctx, a.AuthRequest, false)
	if err != nil {
		return "", time.Time{}, grantError(err)
	}
	return s.accessToken(g.ID)
}

// CreateAccessAndRefreshTokens starts the grant of a traded code with its
// first refresh token, or rotates a refresh token (used once: a token used
// meanwhile, by a racing request, revokes its grant) for the next one.
func (s storage) CreateAccessAndRefreshTokens(ctx context.Context, req op.TokenRequest, _ string) (string, string, time.Time, error) {
	var grantID, refresh string
	switch r := req.(type) {
	case *authRequest:
		g, token, err := s.p.OIDC.StartGrant(ctx, r.AuthRequest, true)
		if err != nil {
			return "", "", time.Time{}, grantError(err)
		}
		grantID, refresh = g.ID, token
	case *refreshRequest:
		g, next, err := s.p.OIDC.RotateRefresh(ctx, r.token)
		if err != nil {
			return "", "", time.Time{}, grantError(err)
		}
		grantID, refresh = g.ID, next
	default:
		return "", "", time.Time{}, zoidc.ErrUnsupportedGrantType()
	}
	id, exp, err := s.accessToken(grantID)
	return id, refresh, exp, err
}

func (s storage) accessToken(grantID string) (string, time.Time, error) {
	id, err := oidc.AccessTokenID(grantID)
	return id, time.Now().UTC().Add(AccessTokenLifetime), err
}

func grantError(err error) error {
	if errors.Is(err, oidc.ErrInvalidGrant) {
		return zoidc.ErrInvalidGrant()
	}
	return err
}

// TokenRequestByRefreshToken reads the refresh token, after zitadel/oidc
// has authenticated the client and before it checks that the client is the
// grant's and the scopes the grant's: it is not used here, so a refusal
// (another client, a wider scope) leaves the holder's token as it was. A
// token used already revokes its grant here (RFC 9700 §4.14.2).
func (s storage) TokenRequestByRefreshToken(ctx context.Context, token string) (op.RefreshTokenRequest, error) {
	g, err := s.p.OIDC.UnusedRefresh(ctx, token)
	if errors.Is(err, oidc.ErrInvalidGrant) || err == nil && g.Brand != brandOf(ctx) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, err
	}
	return &refreshRequest{grant: g, token: token, scopes: g.Scopes}, nil
}

// TerminateSession is not called: TerminateSessionFromRequest is.
func (s storage) TerminateSession(ctx context.Context, subject, clientID string) error {
	_, err := s.p.OIDC.RevokeSubject(ctx, brandOf(ctx), clientID, subject)
	return err
}

// TerminateSessionFromRequest is an RP-initiated logout (its id_token_hint
// checked by zitadel/oidc): the client's grants of that subject end, and so
// does this browser's portal session when it is the same customer's
// (logout.go); the visitor goes to the client's post-logout URI.
func (s storage) TerminateSessionFromRequest(ctx context.Context, req *op.EndSessionRequest) (string, error) {
	brand := brandOf(ctx)
	if req.ClientID != "" && req.UserID != "" {
		if _, err := s.p.OIDC.RevokeSubject(ctx, brand, req.ClientID, req.UserID); err != nil {
			return "", err
		}
	}
	if err := s.p.endPortalSession(ctx, brand, req.UserID); err != nil {
		return "", err
	}
	return req.RedirectURI, nil
}

// RevokeToken is the revocation endpoint (RFC 7009): a refresh token, or an
// access token's id, ends its grant when the caller is the grant's client.
func (s storage) RevokeToken(ctx context.Context, tokenOrID, userID, clientID string) *zoidc.Error {
	var g oidc.Grant
	var err error
	switch {
	case userID == "":
		g, err = s.p.OIDC.RefreshGrant(ctx, tokenOrID)
	case oidc.GrantOfAccessToken(tokenOrID) != "":
		// An access token's id (jti): its grant's id, a dot, its own.
		g, err = s.p.OIDC.Grant(ctx, oidc.GrantOfAccessToken(tokenOrID))
	default:
		// A refresh token: GetRefreshTokenInfo gave its grant's id.
		g, err = s.p.OIDC.Grant(ctx, tokenOrID)
	}
	switch {
	case errors.Is(err, oidc.ErrInvalidGrant):
		return nil // RFC 7009 §2.2: an unknown token is answered 200 all the same
	case err != nil:
		return zoidc.ErrServerError().WithParent(err)
	case g.ClientID != clientID || g.Brand != brandOf(ctx):
		return zoidc.ErrInvalidClient().WithDescription("the token is not this client's")
	}
	if err := s.p.OIDC.RevokeGrant(ctx, g.ID); err != nil && !errors.Is(err, oidc.ErrInvalidGrant) {
		return zoidc.ErrServerError().WithParent(err)
	}
	return nil
}

func (s storage) GetRefreshTokenInfo(ctx context.Context, clientID, token string) (string, string, error) {
	g, err := s.p.OIDC.RefreshGrant(ctx, token)
	if errors.Is(err, oidc.ErrInvalidGrant) || err == nil && (g.ClientID != clientID || g.Brand != brandOf(ctx)) {
		return "", "", op.ErrInvalidRefreshToken
	}
	if err != nil {
		return "", "", err
	}
	return g.Subject, g.ID, nil
}

// signingKey is a brand's current key as zitadel/oidc signs with it.
type signingKey struct{ oidc.SigningKey }

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return k.Alg }
func (k signingKey) Key() any                                    { return k.Signer }
func (k signingKey) ID() string                                  { return k.SigningKey.ID }

// Alg is what the provider signs with unless the client asks for RS256.
const Alg = jose.ES256

// SigningKey is the brand's key of the algorithm of the client the request
// authenticated as (ES256 before one has).
func (s storage) SigningKey(ctx context.Context) (op.SigningKey, error) {
	alg := Alg
	if k, ok := ctx.Value(callerKey{}).(*caller); ok && k.alg != "" {
		alg = k.alg
	}
	k, err := s.p.OIDC.Signer(ctx, brandOf(ctx), alg)
	if err != nil {
		return nil, err
	}
	return signingKey{k}, nil
}

func (s storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return oidc.Algorithms, nil
}

// publicKey is one key of a brand's JWKS.
type publicKey struct{ jose.JSONWebKey }

func (k publicKey) ID() string { return k.KeyID }
func (k publicKey) Algorithm() jose.SignatureAlgorithm {
	return jose.SignatureAlgorithm(k.JSONWebKey.Algorithm)
}
func (k publicKey) Use() string { return "sig" }
func (k publicKey) Key() any    { return k.JSONWebKey.Key }

func (s storage) KeySet(ctx context.Context) ([]op.Key, error) {
	if _, err := s.p.OIDC.Signer(ctx, brandOf(ctx), Alg); err != nil {
		return nil, err
	}
	keys, err := s.p.OIDC.KeySet(ctx, brandOf(ctx))
	if err != nil {
		return nil, err
	}
	out := make([]op.Key, 0, len(keys))
	for _, k := range keys {
		out = append(out, publicKey{k})
	}
	return out, nil
}

// Claims. The ID token and the userinfo endpoint say the same of the
// account, by scope: profile (name, locale), email (email, email_verified:
// every account's email was proven by a code or a link when it was made),
// policies; every token names its brand.

// SetUserinfoFromScopes is deprecated in zitadel/oidc: SetUserinfoFromRequest
// does the work.
func (s storage) SetUserinfoFromScopes(context.Context, *zoidc.UserInfo, string, string, []string) error {
	return nil
}

func (s storage) SetUserinfoFromRequest(ctx context.Context, ui *zoidc.UserInfo, req op.IDTokenRequest, scopes []string) error {
	r, ok := req.(ofAccount)
	if !ok {
		return zoidc.ErrServerError().WithDescription("unknown request")
	}
	brand, accountID := r.account()
	return s.userinfo(ctx, ui, brand, accountID, scopes)
}

// SetUserinfoFromToken is the userinfo endpoint: the access token's grant
// must still be live (a revoked grant ends its access tokens here).
func (s storage) SetUserinfoFromToken(ctx context.Context, ui *zoidc.UserInfo, tokenID, subject, _ string) error {
	g, err := s.p.OIDC.Grant(ctx, oidc.GrantOfAccessToken(tokenID))
	if errors.Is(err, oidc.ErrInvalidGrant) || err == nil && (g.Brand != brandOf(ctx) || g.Subject != subject) {
		return zoidc.ErrAccessDenied().WithDescription("the access token was revoked")
	}
	if err != nil {
		return err
	}
	return s.userinfo(ctx, ui, g.Brand, g.AccountID, g.Scopes)
}

func (s storage) SetIntrospectionFromToken(ctx context.Context, in *zoidc.IntrospectionResponse, tokenID, subject, clientID string) error {
	g, err := s.p.OIDC.Grant(ctx, oidc.GrantOfAccessToken(tokenID))
	if errors.Is(err, oidc.ErrInvalidGrant) || err == nil && (g.Brand != brandOf(ctx) || g.Subject != subject) {
		// Inactive: zitadel/oidc answers {"active":false} on an error (on
		// nil it would set active itself).
		return errNotFound
	}
	if err != nil {
		return err
	}
	ui := new(zoidc.UserInfo)
	if err := s.userinfo(ctx, ui, g.Brand, g.AccountID, g.Scopes); err != nil {
		return err
	}
	in.SetUserInfo(ui)
	in.Scope = g.Scopes
	in.ClientID = g.ClientID
	in.Audience = []string{g.ClientID}
	in.Active = true
	return nil
}

func (s storage) userinfo(ctx context.Context, ui *zoidc.UserInfo, brand, accountID string, scopes []string) error {
	a, err := s.p.Account(ctx, brand, accountID)
	if errors.Is(err, account.ErrNotFound) {
		return zoidc.ErrAccessDenied().WithDescription("the account is gone")
	}
	if err != nil {
		return err
	}
	ui.Subject = s.p.OIDC.Subject(brand, accountID)
	if has(scopes, zoidc.ScopeProfile) {
		ui.GivenName, ui.FamilyName = a.FirstName, a.LastName
		ui.Name = a.FirstName + " " + a.LastName
		ui.Locale = zoidc.NewLocale(language.Make(locale(a.Language)))
	}
	if has(scopes, zoidc.ScopeEmail) {
		ui.Email, ui.EmailVerified = a.Email, true
	}
	ui.AppendClaims("brand", brand)
	if has(scopes, ScopePolicies) {
		claim, err := s.policies(ctx, accountID)
		if err != nil {
			return err
		}
		ui.AppendClaims("policies", claim)
	}
	return nil
}

// policyClaim is one entry of the "policies" claim.
type policyClaim struct {
	Number string `json:"number"`
	Kind   string `json:"kind"` // home | auto
}

func (s storage) policies(ctx context.Context, accountID string) ([]policyClaim, error) {
	linked, err := s.p.Policies(ctx, accountID)
	if err != nil {
		return nil, err
	}
	out := make([]policyClaim, 0, len(linked))
	for _, p := range linked {
		out = append(out, policyClaim{Number: p.Number, Kind: string(p.Kind)})
	}
	return out, nil
}

// GetPrivateClaimsFromScopes is not called: GetPrivateClaimsFromRequest is.
func (s storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

// GetPrivateClaimsFromRequest is what an access token (RFC 9068) says
// beyond who and for whom: its brand, and the policies when asked.
func (s storage) GetPrivateClaimsFromRequest(ctx context.Context, req op.TokenRequest, scopes []string) (map[string]any, error) {
	r, ok := req.(ofAccount)
	if !ok {
		return nil, zoidc.ErrServerError().WithDescription("unknown request")
	}
	brand, accountID := r.account()
	claims := map[string]any{"brand": brand}
	if has(scopes, ScopePolicies) {
		p, err := s.policies(ctx, accountID)
		if err != nil {
			return nil, err
		}
		claims["policies"] = p
	}
	return claims, nil
}

// ValidateJWTProfileScopes belongs to the JWT profile grant (RFC 7523
// §2.1, an assertion as the grant), which the provider does not offer
// (assertion.go refuses it before zitadel/oidc, which routes it).
func (s storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, zoidc.ErrUnsupportedGrantType()
}

func (s storage) Health(ctx context.Context) error {
	if err := s.p.OIDC.DB.Ping(ctx); err != nil {
		return fmt.Errorf("oidc storage: %w", err)
	}
	return nil
}
