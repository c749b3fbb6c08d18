package app

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	zclient "github.com/zitadel/oidc/v3/pkg/client"
	"golang.org/x/oauth2"

	"guichet/internal/oidc"
	"guichet/internal/testenv"
	"guichet/internal/throttle"
)

// private_key_jwt (RFC 7523 §2.2, OpenID Connect Core §9): a client
// registered with its public keys signs an assertion for each call to the
// token, revocation and introspection endpoints. The assertions are made
// by zitadel/oidc's client package (SignedJWTProfileAssertion, what its
// relying party sends) and carried by golang.org/x/oauth2.

const jwtBearer = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// keyClient is a private_key_jwt client's key: its signer and its public
// half, as registered.
type keyClient struct {
	signer jose.Signer
	public jose.JSONWebKey
}

func newKeyClient(t *testing.T, kid string, alg jose.SignatureAlgorithm) keyClient {
	t.Helper()
	var priv crypto.Signer
	var err error
	if alg == jose.RS256 {
		priv, err = rsa.GenerateKey(rand.Reader, 2048)
	} else {
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: priv, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	return keyClient{signer: signer, public: jose.JSONWebKey{Key: priv.Public(), KeyID: kid}}
}

// registered registers a client with those keys' public halves.
func registered(t *testing.T, keys ...keyClient) func(*oidc.NewClient) {
	set := jose.JSONWebKeySet{}
	for _, k := range keys {
		set.Keys = append(set.Keys, k.public)
	}
	raw, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return func(in *oidc.NewClient) { in.AuthMethod, in.JWKS = oidc.AuthPrivateKeyJWT, raw }
}

// assertion is a client assertion of clientID for aud, living ttl.
func (k keyClient) assertion(t *testing.T, clientID string, ttl time.Duration, aud ...string) string {
	t.Helper()
	a, err := zclient.SignedJWTProfileAssertion(clientID, aud, ttl, k.signer)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// post sends a form to one of the provider's endpoints, with a client
// assertion, and a Basic secret when basic is given; it returns the status
// and the JSON answer.
func (w *rpWorld) post(brand, path string, form url.Values, assertion string, basic ...string) (int, map[string]any) {
	w.t.Helper()
	if assertion != "" {
		form.Set("client_assertion_type", jwtBearer)
		form.Add("client_assertion", assertion)
	}
	req, _ := http.NewRequest("POST", w.issuer(brand)+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if len(basic) == 2 {
		req.SetBasicAuth(basic[0], basic[1])
	}
	return w.do(req)
}

func TestOIDCPrivateKeyJWT(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		ec, rs := newKeyClient(t, "ec-1", jose.ES256), newKeyClient(t, "rsa-1", jose.RS256)
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential, registered(t, ec, rs))
		if w.conf.ClientSecret != "" {
			t.Fatal("a private_key_jwt client was given a secret")
		}
		w.conf.Endpoint.AuthStyle = oauth2.AuthStyleInParams
		iss := w.issuer("belair")
		tokenURL := iss + "/oidc/token"

		var meta struct {
			TokenAuth      []string `json:"token_endpoint_auth_methods_supported"`
			TokenAlgs      []string `json:"token_endpoint_auth_signing_alg_values_supported"`
			RevocationAuth []string `json:"revocation_endpoint_auth_methods_supported"`
			Introspection  []string `json:"introspection_endpoint_auth_methods_supported"`
			Claims         []string `json:"claims_supported"`
		}
		if err := w.provider.Claims(&meta); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(meta.TokenAuth, "private_key_jwt") || !slices.Contains(meta.TokenAuth, "client_secret_basic") ||
			!slices.Equal(meta.TokenAlgs, []string{"ES256", "RS256"}) || !slices.Contains(meta.RevocationAuth, "private_key_jwt") ||
			!slices.Contains(meta.Introspection, "private_key_jwt") || !slices.Contains(meta.Claims, "policies") {
			t.Fatalf("discovery: %+v", meta)
		}

		// The code flow: the code traded with an ES256 assertion for the
		// issuer, through x/oauth2; go-oidc checks the ID token.
		verifier := pkce(t)
		q := w.authorize(verifier, "en")
		tok, err := w.conf.Exchange(w.ctx, q.Get("code"), oauth2.VerifierOption(verifier),
			oauth2.SetAuthURLParam("client_assertion_type", jwtBearer),
			oauth2.SetAuthURLParam("client_assertion", ec.assertion(t, w.clientID, time.Minute, iss)))
		if err != nil {
			t.Fatalf("exchange with private_key_jwt: %v", err)
		}
		raw, _ := tok.Extra("id_token").(string)
		if _, err := w.provider.Verifier(&gooidc.Config{ClientID: w.clientID}).Verify(w.ctx, raw); err != nil || tok.RefreshToken == "" {
			t.Fatalf("ID token: %v (refresh token %t)", err, tok.RefreshToken != "")
		}

		// The refusals, each 401 invalid_client, each on the live refresh
		// token (client authentication comes first: none spends it).
		refresh := func() url.Values {
			return url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {w.clientID}}
		}
		intact := newRPWorldClient(t, w, "intact", ec)
		other := newKeyClient(t, "ec-1", jose.ES256) // the kid of a registered key, another key
		used := ec.assertion(t, w.clientID, time.Minute, iss)
		if status, out := w.post("belair", "/oidc/introspect", url.Values{"token": {tok.AccessToken}}, used); status != 200 || out["active"] != true {
			t.Fatalf("introspection with an assertion: %d %v", status, out)
		}
		for _, c := range []struct {
			name, assertion string
			basic           []string
			form            url.Values
			error, why      string // the error, and its description's words
		}{
			{"a replayed assertion", used, nil, refresh(), "invalid_client", "used already"},
			{"another key of the same kid", other.assertion(t, w.clientID, time.Minute, iss), nil, refresh(), "invalid_client", "not signed with a key of the client"},
			{"another audience", ec.assertion(t, w.clientID, time.Minute, "https://other.example"), nil, refresh(), "invalid_client", "audience must be"},
			{"ours and another audience", ec.assertion(t, w.clientID, time.Minute, iss, "https://other.example"), nil, refresh(), "invalid_client", "audience must be"},
			{"another brand's issuer", ec.assertion(t, w.clientID, time.Minute, w.issuer("intact")), nil, refresh(), "invalid_client", "audience must be"},
			{"an expired assertion", ec.assertion(t, w.clientID, -time.Minute, iss), nil, refresh(), "invalid_client", "expired"},
			{"an assertion of an hour", ec.assertion(t, w.clientID, time.Hour, iss), nil, refresh(), "invalid_client", "within 5 minutes"},
			{"another brand's client", ec.assertion(t, intact, time.Minute, iss), nil,
				url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}}, "invalid_client", "no enabled client of this brand"},
			{"client_id not the issuer", ec.assertion(t, w.clientID, time.Minute, iss), nil,
				url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {intact}}, "invalid_client", "not the assertion's issuer"},
			{"a secret for a key client", "", []string{w.clientID, "guessed-secret"}, refresh(), "invalid_client", ""},
			{"a secret and an assertion", ec.assertion(t, w.clientID, time.Minute, iss), []string{w.clientID, "x"}, refresh(), "invalid_request", "one way only"},
			{"an unsigned assertion", "eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.", nil, refresh(), "invalid_client", "not a JWT signed with ES256 or RS256"},
		} {
			status, out := w.post("belair", "/oidc/token", c.form, c.assertion, c.basic...)
			want := http.StatusUnauthorized
			if c.error == "invalid_request" {
				want = http.StatusBadRequest
			}
			if desc, _ := out["error_description"].(string); status != want || out["error"] != c.error || !strings.Contains(desc, c.why) {
				t.Errorf("%s: %d %v, want %d %s (%q)", c.name, status, out, want, c.error, c.why)
			}
		}

		// The query string is read as the body is (zitadel/oidc reads
		// both): a used assertion there is refused all the same, and a
		// parameter given twice is refused.
		query := "/oidc/token?" + url.Values{"client_assertion_type": {jwtBearer}, "client_assertion": {used}}.Encode()
		if status, out := w.post("belair", query, refresh(), ""); status != 401 || !strings.Contains(fmt.Sprint(out["error_description"]), "used already") {
			t.Errorf("a used assertion in the query string: %d %v", status, out)
		}
		twice := refresh()
		twice.Set("client_assertion", ec.assertion(t, w.clientID, time.Minute, iss))
		if status, out := w.post("belair", "/oidc/token", twice, ec.assertion(t, w.clientID, time.Minute, iss)); status != 400 || out["error"] != "invalid_request" {
			t.Errorf("client_assertion twice: %d %v", status, out)
		}

		// An assertion as the grant itself (RFC 7523 §2.1) is not offered.
		if status, out := w.post("belair", "/oidc/token", url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"},
			"assertion": {ec.assertion(t, w.clientID, time.Minute, iss)}}, ""); status != 400 || out["error"] != "unsupported_grant_type" {
			t.Errorf("the JWT bearer grant: %d %v", status, out)
		}

		// The refresh token still works: with the RS256 key and the token
		// endpoint as the audience.
		status, out := w.post("belair", "/oidc/token", refresh(), rs.assertion(t, w.clientID, time.Minute, tokenURL))
		next, _ := out["refresh_token"].(string)
		if status != 200 || next == "" || next == tok.RefreshToken {
			t.Fatalf("refresh with an RS256 assertion for the token endpoint: %d %v", status, out)
		}

		// A disabled client's assertions are refused.
		if err := oidcService(t, w.a).DisableClient(t.Context(), intact, "test"); err != nil {
			t.Fatal(err)
		}
		if status, out := w.post("intact", "/oidc/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x"}},
			ec.assertion(t, intact, time.Minute, w.issuer("intact"))); status != 401 || out["error"] != "invalid_client" {
			t.Fatalf("a disabled client: %d %v", status, out)
		}

		// Revocation with an assertion ends the grant.
		if status, out := w.post("belair", "/oidc/revoke", url.Values{"token": {next}, "token_type_hint": {"refresh_token"}},
			ec.assertion(t, w.clientID, time.Minute, iss)); status != 200 {
			t.Fatalf("revocation with an assertion: %d %v", status, out)
		}
		if status, out := w.post("belair", "/oidc/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {next}},
			ec.assertion(t, w.clientID, time.Minute, iss)); status != 400 || out["error"] != "invalid_grant" {
			t.Fatalf("a revoked refresh token: %d %v", status, out)
		}
		if status, out := w.post("belair", "/oidc/introspect", url.Values{"token": {tok.AccessToken}},
			ec.assertion(t, w.clientID, time.Minute, iss)); status != 200 || out["active"] != false {
			t.Fatalf("introspection after the revocation: %d %v", status, out)
		}
	})
}

// newRPWorldClient registers a private_key_jwt client of another brand
// with the same key, and returns its id.
func newRPWorldClient(t *testing.T, w *rpWorld, brand string, k keyClient) string {
	t.Helper()
	in := oidc.NewClient{Brand: brand, Name: "Claims centre", Kind: oidc.Confidential, RedirectURIs: []string{"http://127.0.0.1:9/callback"}}
	registered(t, k)(&in)
	c, _ := addClient(t, w.a, in)
	return c.ID
}

// TestOIDCPrivateKeyJWTIsRateLimited: a key client is counted against its
// own token limit once its assertion is accepted (it may send no client_id
// at all), and answered 429 over it.
func TestOIDCPrivateKeyJWTIsRateLimited(t *testing.T) {
	ec := newKeyClient(t, "ec-1", jose.ES256)
	w := newRPWorld(t, "", "belair", oidc.Confidential, registered(t, ec))
	w.a.OIDC.TokenPerClient = throttle.Rule{Scope: "oidc.token.client", Limit: 3, Window: time.Minute}
	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"not-a-token"}}
	for i := range 3 {
		if status, out := w.post("belair", "/oidc/token", url.Values{"grant_type": refresh["grant_type"], "refresh_token": refresh["refresh_token"]},
			ec.assertion(t, w.clientID, time.Minute, w.issuer("belair"))); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
			t.Fatalf("call %d: %d %v, want 400 invalid_grant", i+1, status, out)
		}
	}
	status, out := w.post("belair", "/oidc/token", refresh, ec.assertion(t, w.clientID, time.Minute, w.issuer("belair")))
	if status != http.StatusTooManyRequests || out["error"] != "rate_limited" {
		t.Fatalf("the fourth call: %d %v, want 429 rate_limited", status, out)
	}
}
