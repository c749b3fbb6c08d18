package oidc_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/sync/errgroup"

	"guichet/internal/oidc"
	"guichet/internal/testenv"
)

// jwks is the JSON of a key set of those keys.
func jwks(t *testing.T, keys ...jose.JSONWebKey) []byte {
	t.Helper()
	b, err := json.Marshal(jose.JSONWebKeySet{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ecKey(t *testing.T, curve elliptic.Curve) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(curve, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func rsaKey(t *testing.T, bits int) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestPrivateKeyJWTClient: a confidential client registered with its public
// keys has no secret; its keys come back with their algorithms, and the
// stored key set holds no private part.
func TestPrivateKeyJWTClient(t *testing.T) {
	ec, rs := ecKey(t, elliptic.P256()), rsaKey(t, 2048)
	set := jwks(t, jose.JSONWebKey{Key: ec.Public(), KeyID: "ec-1"}, jose.JSONWebKey{Key: rs.Public(), KeyID: "rsa-1", Algorithm: "RS256", Use: "sig"})
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		c, secret, err := s.AddClient(t.Context(), oidc.NewClient{Brand: "belair", Name: "Claims batch", Kind: oidc.Confidential,
			RedirectURIs: []string{"https://claims.example/cb"}, AuthMethod: oidc.AuthPrivateKeyJWT, JWKS: set}, "cli")
		if err != nil {
			t.Fatal(err)
		}
		if secret != "" || c.AuthMethod != oidc.AuthPrivateKeyJWT {
			t.Fatalf("secret %q, method %s", secret, c.AuthMethod)
		}
		got, err := s.Client(t.Context(), c.ID)
		if err != nil {
			t.Fatal(err)
		}
		ek, ok1 := got.Key("ec-1")
		rk, ok2 := got.Key("rsa-1")
		if _, none := got.Key(""); !ok1 || !ok2 || none || ek.Algorithm != "ES256" || rk.Algorithm != "RS256" || len(got.Keys()) != 2 {
			t.Fatalf("keys %+v", got.Keys())
		}
		if got.AuthMethod != oidc.AuthPrivateKeyJWT || got.CheckSecret("") {
			t.Fatalf("stored %+v", got)
		}
		e.ExpectCount(t, 1, "the client's row is not what was registered", `SELECT COUNT(*) FROM oidc_clients WHERE id = ? AND secret_hash = '' AND auth_method = 'private_key_jwt' AND jwks NOT LIKE '%"d"%'`, c.ID)

		// A client of before (auth_method '') and a new one without --auth
		// both authenticate by their kind.
		plain, secret, err := s.AddClient(t.Context(), oidc.NewClient{Brand: "belair", Name: "Portal", Kind: oidc.Confidential,
			RedirectURIs: []string{"https://portal.example/cb"}}, "cli")
		if err != nil || plain.AuthMethod != oidc.AuthSecretBasic || !plain.CheckSecret(secret) {
			t.Fatalf("%+v %v", plain, err)
		}
		if _, err := e.DB.Exec(t.Context(), "UPDATE oidc_clients SET auth_method = '' WHERE id = ?", plain.ID); err != nil {
			t.Fatal(err)
		}
		if old, err := s.Client(t.Context(), plain.ID); err != nil || old.AuthMethod != oidc.AuthSecretBasic || !old.CheckSecret(secret) {
			t.Fatalf("a client of before: %+v %v", old, err)
		}
	})
}

func TestPrivateKeyJWTRefusals(t *testing.T) {
	ec := ecKey(t, elliptic.P256())
	pub := jose.JSONWebKey{Key: ec.Public(), KeyID: "k"}
	base := oidc.NewClient{Brand: "belair", Name: "Claims", Kind: oidc.Confidential, RedirectURIs: []string{"https://claims.example/cb"},
		AuthMethod: oidc.AuthPrivateKeyJWT, JWKS: jwks(t, pub)}
	with := func(f func(*oidc.NewClient)) oidc.NewClient { c := base; f(&c); return c }
	set := func(raw []byte) oidc.NewClient { return with(func(c *oidc.NewClient) { c.JWKS = raw }) }
	cases := []struct {
		name, field, reason string
		in                  oidc.NewClient
	}{
		{"a private key", "jwks-file", "private key", set(jwks(t, jose.JSONWebKey{Key: ec, KeyID: "k"}))},
		{"a private RSA key", "jwks-file", "private key", set(jwks(t, jose.JSONWebKey{Key: rsaKey(t, 2048), KeyID: "k"}))},
		{"no key set", "jwks-file", "needs the client's public keys", set(nil)},
		{"an empty key set", "jwks-file", "no key", set([]byte(`{"keys":[]}`))},
		{"not JSON", "jwks-file", "not a JSON Web Key Set", set([]byte(`keys`))},
		{"a symmetric key", "jwks-file", "not supported", set([]byte(`{"keys":[{"kty":"oct","k":"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0","alg":"HS256"}]}`))},
		{"P-384", "jwks-file", "P-256", set(jwks(t, jose.JSONWebKey{Key: ecKey(t, elliptic.P384()).Public()}))},
		{"a short RSA key", "jwks-file", "2048 bits", set(jwks(t, jose.JSONWebKey{Key: rsaKey(t, 1024).Public()}))},
		{"alg of another key type", "jwks-file", `alg "RS256" is not supported`, set(jwks(t, jose.JSONWebKey{Key: ec.Public(), Algorithm: "RS256"}))},
		{"PS256", "jwks-file", `alg "PS256" is not supported`, set(jwks(t, jose.JSONWebKey{Key: rsaKey(t, 2048).Public(), Algorithm: "PS256"}))},
		{"an encryption key", "jwks-file", "not signing", set(jwks(t, jose.JSONWebKey{Key: ec.Public(), Use: "enc"}))},
		{"two keys, one without kid", "jwks-file", "no kid", set(jwks(t, pub, jose.JSONWebKey{Key: ecKey(t, elliptic.P256()).Public()}))},
		{"a kid twice", "jwks-file", "given twice", set(jwks(t, pub, jose.JSONWebKey{Key: ecKey(t, elliptic.P256()).Public(), KeyID: "k"}))},
		{"a public client", "auth", "confidential", with(func(c *oidc.NewClient) { c.Kind = oidc.Public; c.RedirectURIs = []string{"ca.belair.app:/cb"} })},
		{"keys with a secret", "jwks-file", "only for a private_key_jwt client", with(func(c *oidc.NewClient) { c.AuthMethod = oidc.AuthSecretBasic })},
		{"an unknown method", "auth", "not \"client_secret_post\"", with(func(c *oidc.NewClient) { c.AuthMethod = "client_secret_post" })},
		{"none for a confidential client", "auth", "not for a confidential", with(func(c *oidc.NewClient) { c.AuthMethod = oidc.AuthNone; c.JWKS = nil })},
	}
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		for _, c := range cases {
			_, _, err := s.AddClient(t.Context(), c.in, "cli")
			var inv *oidc.InvalidError
			if !errors.As(err, &inv) || inv.Field != c.field || !strings.Contains(inv.Reason, c.reason) {
				t.Errorf("%s: %v, want an InvalidError on %s saying %q", c.name, err, c.field, c.reason)
			}
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM oidc_clients"); n != 0 {
			t.Fatalf("%d clients stored by refused calls", n)
		}
	})
}

// TestUseAssertion: a jti is accepted once per client while its assertion
// lives; instances racing with one assertion get one winner; the janitor
// deletes it once the assertion has expired.
func TestUseAssertion(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		exp := e.Clock.Now().Add(oidc.MaxAssertionLifetime)
		if err := s.UseAssertion(t.Context(), "client-1", "jti-1", exp); err != nil {
			t.Fatal(err)
		}
		if err := s.UseAssertion(t.Context(), "client-1", "jti-1", exp); !errors.Is(err, oidc.ErrAssertionReplayed) {
			t.Fatalf("replayed: %v", err)
		}
		if err := s.UseAssertion(t.Context(), "client-2", "jti-1", exp); err != nil {
			t.Fatalf("another client's jti: %v", err)
		}
		for _, bad := range []string{"", strings.Repeat("j", 201), "a\nb"} {
			var inv *oidc.InvalidError
			if err := s.UseAssertion(t.Context(), "client-1", bad, exp); !errors.As(err, &inv) {
				t.Errorf("jti %q: %v", bad, err)
			}
		}

		var won atomic.Int32
		var g errgroup.Group
		for range 4 {
			g.Go(func() error {
				err := s.UseAssertion(t.Context(), "client-1", "raced", exp)
				if err == nil {
					won.Add(1)
					return nil
				}
				if errors.Is(err, oidc.ErrAssertionReplayed) {
					return nil
				}
				return err
			})
		}
		if err := g.Wait(); err != nil || won.Load() != 1 {
			t.Fatalf("%d of 4 racing uses won (%v)", won.Load(), err)
		}

		count := func() int { return e.Count(t, "SELECT COUNT(*) FROM oidc_client_assertions") }
		if n, err := s.Prune(t.Context()); err != nil || n != 0 || count() != 3 {
			t.Fatalf("pruned %d (%v) of live jtis, left %d", n, err, count())
		}
		e.Clock.Advance(oidc.MaxAssertionLifetime + time.Millisecond)
		if n, err := s.Prune(t.Context()); err != nil || n != 3 || count() != 0 {
			t.Fatalf("pruned %d (%v) of expired jtis, left %d", n, err, count())
		}
	})
}
