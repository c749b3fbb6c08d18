package oidc_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/sync/errgroup"

	"guichet/internal/audit"
	"guichet/internal/oidc"
	"guichet/internal/testenv"
)

// newService is the provider's service on e's database and clock, for the
// sample brands.
func newService(t *testing.T, e *testenv.Env, root []byte) *oidc.Service {
	t.Helper()
	brands := testenv.Brands(t)
	s, err := oidc.New(t.Context(), e.DB, e.Clock.Now, func(id string) bool { _, ok := brands.ByID(id); return ok }, root)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAddClient(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		c, secret, err := s.AddClient(t.Context(), oidc.NewClient{Brand: "belair", Name: "  Client centre ", Kind: oidc.Confidential,
			RedirectURIs:         []string{"https://clients.belairdirect.com/oauth2/callback", "http://127.0.0.1:4180/oauth2/callback"},
			BackchannelLogoutURI: "https://clients.belairdirect.com/backchannel"}, "cli")
		if err != nil {
			t.Fatal(err)
		}
		if len(secret) != 43 || c.Name != "Client centre" || c.Kind != oidc.Confidential || c.Disabled() {
			t.Fatalf("client %+v, secret of %d characters", c, len(secret))
		}
		got, err := s.Client(t.Context(), c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Brand != "belair" || got.Name != c.Name || len(got.RedirectURIs) != 2 || got.RedirectURIs[1] != "http://127.0.0.1:4180/oauth2/callback" ||
			got.BackchannelLogoutURI != c.BackchannelLogoutURI || got.ThirdParty || !got.CreatedAt.Equal(c.CreatedAt) {
			t.Fatalf("stored %+v, added %+v", got, c)
		}
		if !got.CheckSecret(secret) || got.CheckSecret(secret[:42]) || got.CheckSecret("") {
			t.Fatal("the secret checks against its hash, and nothing else does")
		}
		// The secret is shown once: no row holds it.
		e.ExpectCount(t, 0, "the secret is stored in clear", "SELECT COUNT(*) FROM oidc_clients WHERE secret_hash LIKE ?", "%"+secret+"%")
		if n := e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE event = ? AND actor = 'cli' AND detail = ? AND detail NOT LIKE ?",
			audit.OIDCClientAdd, "client:"+c.ID, "%"+secret+"%"); n != 1 {
			t.Fatalf("%d audit rows", n)
		}

		pub, secret, err := s.AddClient(t.Context(), oidc.NewClient{Brand: "scotia", Name: "App", Kind: oidc.Public, ThirdParty: true,
			RedirectURIs: []string{"ca.scotiabank.insurance:/callback"}}, "staff:42")
		if err != nil {
			t.Fatal(err)
		}
		if secret != "" || pub.CheckSecret("") || !pub.ThirdParty {
			t.Fatalf("a public client has no secret: %q, %+v", secret, pub)
		}
	})
}

func TestAddClientRefusals(t *testing.T) {
	ok := oidc.NewClient{Brand: "belair", Name: "Claims", Kind: oidc.Confidential, RedirectURIs: []string{"https://claims.example/cb"}}
	with := func(f func(*oidc.NewClient)) oidc.NewClient {
		c := ok
		c.RedirectURIs = append([]string(nil), ok.RedirectURIs...)
		f(&c)
		return c
	}
	uri := func(u string) oidc.NewClient { return with(func(c *oidc.NewClient) { c.RedirectURIs = []string{u} }) }
	many := make([]string, oidc.MaxRedirectURIs+1)
	for i := range many {
		many[i] = "https://claims.example/cb" + strings.Repeat("x", i)
	}
	cases := []struct {
		name  string
		in    oidc.NewClient
		field string // "" for ErrUnknownBrand
	}{
		{"unknown brand", with(func(c *oidc.NewClient) { c.Brand = "acme" }), ""},
		{"no name", with(func(c *oidc.NewClient) { c.Name = "  " }), "name"},
		{"long name", with(func(c *oidc.NewClient) { c.Name = strings.Repeat("é", 101) }), "name"},
		{"control in name", with(func(c *oidc.NewClient) { c.Name = "a\nb" }), "name"},
		{"unknown kind", with(func(c *oidc.NewClient) { c.Kind = "native" }), "type"},
		{"no redirect URI", with(func(c *oidc.NewClient) { c.RedirectURIs = nil }), "redirect-uri"},
		{"too many redirect URIs", with(func(c *oidc.NewClient) { c.RedirectURIs = many }), "redirect-uri"},
		{"same URI twice", with(func(c *oidc.NewClient) { c.RedirectURIs = append(c.RedirectURIs, c.RedirectURIs[0]) }), "redirect-uri"},
		{"http to a public host", uri("http://claims.example/cb"), "redirect-uri"},
		{"wildcard", uri("https://*.claims.example/cb"), "redirect-uri"},
		{"fragment", uri("https://claims.example/cb#x"), "redirect-uri"},
		{"user in URI", uri("https://u:p@claims.example/cb"), "redirect-uri"},
		{"relative", uri("/cb"), "redirect-uri"},
		{"no host", uri("https:///cb"), "redirect-uri"},
		{"custom scheme, confidential", uri("ca.belairdirect.app:/callback"), "redirect-uri"},
		{"custom scheme without a dot", with(func(c *oidc.NewClient) { c.Kind = oidc.Public; c.RedirectURIs = []string{"myapp:/callback"} }), "redirect-uri"},
		{"javascript", with(func(c *oidc.NewClient) { c.Kind = oidc.Public; c.RedirectURIs = []string{"javascript:alert(1)"} }), "redirect-uri"},
		{"back-channel over http", with(func(c *oidc.NewClient) { c.BackchannelLogoutURI = "http://claims.example/logout" }), "backchannel-logout-uri"},
	}
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		for _, c := range cases {
			_, secret, err := s.AddClient(t.Context(), c.in, "cli")
			var inv *oidc.InvalidError
			switch {
			case c.field == "" && !errors.Is(err, oidc.ErrUnknownBrand):
				t.Errorf("%s: %v, want ErrUnknownBrand", c.name, err)
			case c.field != "" && (!errors.As(err, &inv) || inv.Field != c.field):
				t.Errorf("%s: %v, want an InvalidError on %s", c.name, err, c.field)
			case secret != "":
				t.Errorf("%s: a secret was made", c.name)
			}
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM oidc_clients"); n != 0 {
			t.Fatalf("%d clients stored by refused calls", n)
		}
		for _, u := range []string{"http://localhost:3000/cb", "http://belair.localhost:8080/cb?x=1", "http://[::1]:9/cb"} {
			if _, _, err := s.AddClient(t.Context(), uri(u), "cli"); err != nil {
				t.Errorf("%s: %v", u, err)
			}
		}
	})
}

func TestRedirectAllowedIsExact(t *testing.T) {
	c := oidc.Client{RedirectURIs: []string{"https://app.example/cb"}}
	for uri, want := range map[string]bool{
		"https://app.example/cb": true, "https://app.example/cb/": false, "https://app.example/cb?x=1": false,
		"HTTPS://app.example/cb": false, "https://app.example/c": false, "": false,
	} {
		if c.RedirectAllowed(uri) != want {
			t.Errorf("%q: want %v", uri, want)
		}
	}
}

func TestClientsAndDisable(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		add := func(brand, name string) oidc.Client {
			c, _, err := s.AddClient(t.Context(), oidc.NewClient{Brand: brand, Name: name, Kind: oidc.Public, RedirectURIs: []string{"https://x.example/cb"}}, "cli")
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		billing, claims, app := add("belair", "Billing"), add("belair", "Claims"), add("scotia", "App")
		all, err := s.Clients(t.Context(), "")
		if err != nil || len(all) != 3 || all[0].ID != billing.ID || all[1].ID != claims.ID || all[2].ID != app.ID {
			t.Fatalf("all clients: %v %+v", err, all)
		}
		if bel, err := s.Clients(t.Context(), "belair"); err != nil || len(bel) != 2 {
			t.Fatalf("belair's: %v %+v", err, bel)
		}

		e.Clock.Advance(time.Minute)
		if err := s.DisableClient(t.Context(), claims.ID, "staff:7"); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Client(t.Context(), claims.ID)
		if !got.Disabled() || !got.DisabledAt.Equal(e.Clock.Now().Truncate(time.Millisecond)) {
			t.Fatalf("disabled at %v", got.DisabledAt)
		}
		if err := s.DisableClient(t.Context(), claims.ID, "staff:7"); err != nil {
			t.Fatal(err)
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE event = ? AND actor = 'staff:7'", audit.OIDCClientDisable); n != 1 {
			t.Fatalf("%d audit rows for one disable", n)
		}
		if err := s.DisableClient(t.Context(), "nope", "cli"); !errors.Is(err, oidc.ErrUnknownClient) {
			t.Fatalf("unknown client: %v", err)
		}
		if _, err := s.Client(t.Context(), "nope"); !errors.Is(err, oidc.ErrUnknownClient) {
			t.Fatalf("unknown client: %v", err)
		}
	})
}

// kids is the key ids of a key set, newest first.
func kids(t *testing.T, s *oidc.Service, brand string) []string {
	t.Helper()
	set, err := s.KeySet(t.Context(), brand)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, k := range set {
		if !k.IsPublic() || k.Use != "sig" {
			t.Fatalf("key %s is not a public signing key", k.KeyID)
		}
		out = append(out, k.KeyID)
	}
	return out
}

// signAndVerify signs with the brand's current key of alg and checks the
// signature with the brand's published key set.
func signAndVerify(t *testing.T, s *oidc.Service, brand string, alg jose.SignatureAlgorithm) string {
	t.Helper()
	k, err := s.SigningKey(t.Context(), brand, alg)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: k.Signer, KeyID: k.ID}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign([]byte("payload"))
	if err != nil {
		t.Fatal(err)
	}
	compact, _ := jws.CompactSerialize()
	parsed, err := jose.ParseSignedCompact(compact, []jose.SignatureAlgorithm{alg})
	if err != nil {
		t.Fatal(err)
	}
	set, _ := s.KeySet(t.Context(), brand)
	for _, pub := range set {
		if pub.KeyID == k.ID {
			if _, err := parsed.Verify(pub); err != nil {
				t.Fatalf("%s key %s: %v", alg, k.ID, err)
			}
			return k.ID
		}
	}
	t.Fatalf("%s key %s is not published", alg, k.ID)
	return ""
}

func TestSigningKeysRotate(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		if _, err := s.SigningKey(t.Context(), "belair", jose.ES256); !errors.Is(err, oidc.ErrNoKey) {
			t.Fatalf("before any key: %v", err)
		}
		rotated, err := s.EnsureKeys(t.Context(), "belair", "cli")
		if err != nil || len(rotated) != 2 {
			t.Fatalf("first start: %v %v", rotated, err)
		}
		first := map[jose.SignatureAlgorithm]string{jose.ES256: signAndVerify(t, s, "belair", jose.ES256), jose.RS256: signAndVerify(t, s, "belair", jose.RS256)}
		if rotated, err := s.EnsureKeys(t.Context(), "belair", "cli"); err != nil || len(rotated) != 0 {
			t.Fatalf("second start rotated %v (%v)", rotated, err)
		}
		if got := kids(t, s, "scotia"); len(got) != 0 {
			t.Fatalf("scotia publishes belair's keys: %v", got)
		}

		e.Clock.Advance(oidc.RotateEvery)
		if rotated, err := s.EnsureKeys(t.Context(), "belair", "cli"); err != nil || len(rotated) != 2 {
			t.Fatalf("after %v: rotated %v (%v)", oidc.RotateEvery, rotated, err)
		}
		for alg, old := range first {
			if now := signAndVerify(t, s, "belair", alg); now == old {
				t.Fatalf("%s still signs with %s", alg, old)
			}
		}
		if got := kids(t, s, "belair"); len(got) != 4 || got[2] != first[jose.ES256] && got[3] != first[jose.ES256] {
			t.Fatalf("the old keys stay published: %v", got)
		}

		// A week later the old keys are gone; forcing makes two more.
		e.Clock.Advance(oidc.PublishAfterRetire + time.Millisecond)
		if _, err := s.EnsureKeys(t.Context(), "belair", "cli"); err != nil {
			t.Fatal(err)
		}
		if got := kids(t, s, "belair"); len(got) != 2 {
			t.Fatalf("after %v: %v", oidc.PublishAfterRetire, got)
		}
		if err := s.RotateKeys(t.Context(), "belair", "cli"); err != nil {
			t.Fatal(err)
		}
		if got := kids(t, s, "belair"); len(got) != 4 {
			t.Fatalf("forced rotation: %v", got)
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE event = ? AND brand = 'belair'", audit.OIDCKeysRotate); n != 6 {
			t.Fatalf("%d rotation audit rows, want 6", n)
		}
		if _, err := s.EnsureKeys(t.Context(), "acme", "cli"); !errors.Is(err, oidc.ErrUnknownBrand) {
			t.Fatalf("unknown brand: %v", err)
		}

		// The private keys open only under the root they were sealed with.
		other := newService(t, e, make([]byte, 32))
		if _, err := other.SigningKey(t.Context(), "belair", jose.ES256); err == nil || errors.Is(err, oidc.ErrNoKey) {
			t.Fatalf("opened under another root: %v", err)
		}
	})
}

// TestInstancesStartTogether: several instances making a brand's first keys
// at once leave one current key of each algorithm.
func TestInstancesStartTogether(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		var g errgroup.Group
		for range 4 {
			g.Go(func() error {
				_, err := s.EnsureKeys(context.Background(), "intact", "cli")
				return err
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM oidc_signing_keys WHERE brand = 'intact'"); n != 2 {
			t.Fatalf("%d keys, want one of each algorithm", n)
		}
	})
}
