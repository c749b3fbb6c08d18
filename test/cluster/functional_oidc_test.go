package cluster

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"testing"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// rpVia is a relying party's HTTP client whose every call reaches one
// address (an instance or the load balancer) whatever the URL's host: the
// issuer is http://belair.localhost, the brand's dev host, on all of them.
func rpVia(ctx context.Context, addr string) context.Context {
	d := &net.Dialer{}
	return gooidc.ClientContext(ctx, &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
	}})
}

// TestOIDCAcrossInstances: an insurer's application signs a customer in
// through the OpenID provider with the sign-in on one instance, the code
// traded on a second and the refresh token used on a third; the reused
// refresh token is then refused on the first. Requests, codes, grants,
// refresh tokens and signing keys live in the database.
func TestOIDCAcrossInstances(t *testing.T) {
	ctx := context.Background()
	loadAPIKey(t, "belair.localhost")
	cmd := exec.Command(setup.bin, "clients", "add", "--brand", "belair", "--name", "Claims centre (cluster)",
		"--type", "confidential", "--redirect-uri", "http://127.0.0.1:9/callback")
	cmd.Env = append(os.Environ(), "GUICHET_DATABASE_URL="+setup.databaseURL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("clients add: %v %s", err, out)
	}
	id := regexp.MustCompile(`client_id:\s*(\S+)`).FindSubmatch(out)
	secret := regexp.MustCompile(`client_secret:\s*(\S+)`).FindSubmatch(out)
	if id == nil || secret == nil {
		t.Fatalf("clients add printed %s", out)
	}
	in1, in2, in3 := cl.instances[0], cl.instances[1], cl.instances[2]
	provider, err := gooidc.NewProvider(rpVia(ctx, setup.lb), "http://belair.localhost")
	if err != nil {
		t.Fatalf("discovery through the load balancer: %v", err)
	}
	conf := oauth2.Config{ClientID: string(id[1]), ClientSecret: string(secret[1]), Endpoint: provider.Endpoint(),
		RedirectURL: "http://127.0.0.1:9/callback", Scopes: []string{gooidc.ScopeOpenID, "email", gooidc.ScopeOfflineAccess}}
	var b [32]byte
	_, _ = rand.Read(b[:])
	verifier := base64.RawURLEncoding.EncodeToString(b[:])

	// The browser, on the first instance: /authorize, the login page, the
	// sign-in, the callback.
	browser := newClient("127.0.0.7", "belair.localhost")
	auth, _ := url.Parse(conf.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)))
	a, err := browser.do(ctx, in1.addr, "GET", auth.RequestURI(), "", "")
	if err != nil || a.status != http.StatusFound {
		t.Fatalf("%s /authorize: %d %v", in1.name, a.status, err)
	}
	if a, err = browser.do(ctx, in1.addr, "GET", a.location, "", ""); err != nil || a.status != http.StatusSeeOther {
		t.Fatalf("%s /oidc/login: %d %v", in1.name, a.status, err)
	}
	if a, err = browser.signInForm(ctx, in1.addr, "demo@belair.example", demoPassword); err != nil || a.status != http.StatusSeeOther {
		t.Fatalf("%s sign-in: %d %v", in1.name, a.status, err)
	}
	if a, err = browser.do(ctx, in1.addr, "GET", a.location, "", ""); err != nil || a.status != http.StatusFound {
		t.Fatalf("%s callback (from %q): %d %v", in1.name, a.location, a.status, err)
	}
	back, _ := url.Parse(a.location)
	code := back.Query().Get("code")
	if code == "" || back.Query().Get("iss") != "http://belair.localhost" {
		t.Fatalf("authorization response %q", a.location)
	}

	// The application trades the code on the second instance, verifies the
	// ID token with the keys the load balancer serves, and refreshes on the
	// third.
	tok, err := conf.Exchange(rpVia(ctx, in2.addr), code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("%s token: %v", in2.name, err)
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := provider.Verifier(&gooidc.Config{ClientID: conf.ClientID}).Verify(rpVia(ctx, setup.lb), raw)
	if err != nil {
		t.Fatalf("ID token from %s: %v", in2.name, err)
	}
	var claims struct{ Email string }
	if err := idt.Claims(&claims); err != nil || claims.Email != "demo@belair.example" {
		t.Fatalf("ID token claims %+v %v", claims, err)
	}
	next, err := conf.TokenSource(rpVia(ctx, in3.addr), &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil || next.RefreshToken == "" || next.RefreshToken == tok.RefreshToken {
		t.Fatalf("%s refresh: %v", in3.name, err)
	}
	var re *oauth2.RetrieveError
	if _, err := conf.TokenSource(rpVia(ctx, in1.addr), &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Fatalf("%s: the used refresh token answered %v, want invalid_grant", in1.name, err)
	}
}
