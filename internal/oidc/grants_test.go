package oidc_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"guichet/internal/audit"
	"guichet/internal/oidc"
	"guichet/internal/store"
	"guichet/internal/testenv"
)

// signedIn makes an authorization request, signs "acct-1" in for it and
// attaches code to it.
func signedIn(t *testing.T, e *testenv.Env, s *oidc.Service, code string) oidc.AuthRequest {
	t.Helper()
	a, err := s.CreateAuthRequest(t.Context(), oidc.AuthRequest{Brand: "belair", ClientID: "client-1", RedirectURI: "https://app.example/cb",
		Scopes: []string{"openid", "email", "offline_access"}, State: "st", Nonce: "n-1", CodeChallenge: "abc", CodeChallengeMethod: "S256",
		Prompt: []string{"login"}, MaxAge: 300 * time.Second, LoginHint: "lee@example.com", UILocales: []string{"fr-CA", "en"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CompleteAuthRequest(t.Context(), a.ID, "acct-1", e.Clock.Now(), []string{"pwd"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveCode(t.Context(), a.ID, code); err != nil {
		t.Fatal(err)
	}
	return a
}

// granted is a signed-in request's code traded and its grant started, with
// a first refresh token when refresh is true.
func granted(t *testing.T, e *testenv.Env, s *oidc.Service, code string, refresh bool) (oidc.Grant, string) {
	t.Helper()
	signedIn(t, e, s, code)
	a, err := s.TradeCode(t.Context(), code)
	if err != nil {
		t.Fatal(err)
	}
	g, token, err := s.StartGrant(t.Context(), a, refresh)
	if err != nil {
		t.Fatal(err)
	}
	return g, token
}

func TestAuthRequestLifecycle(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		a, err := s.CreateAuthRequest(t.Context(), oidc.AuthRequest{Brand: "belair", ClientID: "client-1", RedirectURI: "https://app.example/cb",
			Scopes: []string{"openid"}, MaxAge: -1})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.AuthRequest(t.Context(), a.ID)
		if err != nil || got.Done() || got.MaxAge >= 0 || !slices.Equal(got.Scopes, []string{"openid"}) || !got.ExpiresAt.Equal(a.CreatedAt.Add(oidc.AuthRequestTTL)) {
			t.Fatalf("stored %+v (%v)", got, err)
		}
		if err := s.SaveCode(t.Context(), a.ID, "early"); !errors.Is(err, oidc.ErrRequestNotFound) {
			t.Fatalf("a code before the sign-in: %v", err)
		}
		at := e.Clock.Now()
		if err := s.CompleteAuthRequest(t.Context(), a.ID, "acct-1", at, []string{"pwd"}); err != nil {
			t.Fatal(err)
		}
		if err := s.CompleteAuthRequest(t.Context(), a.ID, "acct-2", at, nil); !errors.Is(err, oidc.ErrRequestNotFound) {
			t.Fatalf("completed twice: %v", err)
		}
		got, _ = s.AuthRequest(t.Context(), a.ID)
		if !got.Done() || got.AccountID != "acct-1" || !got.AuthTime.Equal(at.Truncate(time.Millisecond)) || !slices.Equal(got.AMR, []string{"pwd"}) {
			t.Fatalf("completed %+v", got)
		}

		full := signedIn(t, e, s, "code-2")
		got, _ = s.AuthRequest(t.Context(), full.ID)
		if got.State != "st" || got.Nonce != "n-1" || got.CodeChallenge != "abc" || got.MaxAge != 300*time.Second || got.LoginHint != "lee@example.com" ||
			!slices.Equal(got.UILocales, []string{"fr-CA", "en"}) || !slices.Equal(got.Prompt, []string{"login"}) {
			t.Fatalf("round trip %+v", got)
		}
		e.ExpectCount(t, 0, "the code is stored in clear", "SELECT COUNT(*) FROM oidc_auth_requests WHERE code_hash = 'code-2'")

		e.Clock.Advance(oidc.AuthRequestTTL)
		if _, err := s.AuthRequest(t.Context(), a.ID); !errors.Is(err, oidc.ErrRequestNotFound) {
			t.Fatalf("after %v: %v", oidc.AuthRequestTTL, err)
		}
		if err := s.CompleteAuthRequest(t.Context(), full.ID, "acct-1", at, nil); !errors.Is(err, oidc.ErrRequestNotFound) {
			t.Fatalf("completing an expired request: %v", err)
		}
	})
}

func TestCodeIsTradedOnce(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		a := signedIn(t, e, s, "the-code")
		if _, err := s.TradeCode(t.Context(), "other-code"); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatalf("unknown code: %v", err)
		}
		traded, err := s.TradeCode(t.Context(), "the-code")
		if err != nil || traded.ID != a.ID || traded.AccountID != "acct-1" {
			t.Fatalf("trade: %+v %v", traded, err)
		}
		g, refresh, err := s.StartGrant(t.Context(), traded, true)
		if err != nil || refresh == "" || g.ID != a.ID || !slices.Equal(g.AMR, []string{"pwd"}) {
			t.Fatalf("grant %+v %q %v", g, refresh, err)
		}
		// The code again: refused, and what the first trade gave ends.
		if _, err := s.TradeCode(t.Context(), "the-code"); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatalf("second trade: %v", err)
		}
		if _, err := s.Grant(t.Context(), g.ID); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatalf("the grant outlived the code's reuse: %v", err)
		}
		if _, _, err := s.RotateRefresh(t.Context(), refresh); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatalf("the refresh token outlived the code's reuse: %v", err)
		}
		want := []string{string(audit.OIDCAuthorize) + " ok", string(audit.OIDCToken) + " ok", string(audit.OIDCCodeReuse) + " revoked"}
		if got := e.Audit(t, "acct-1", "oidc."); !slices.Equal(got, want) {
			t.Fatalf("audit %v", got)
		}
	})
}

func TestCodeExpires(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		signedIn(t, e, s, "slow-code")
		e.Clock.Advance(oidc.CodeTTL)
		if _, err := s.TradeCode(t.Context(), "slow-code"); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatalf("after %v: %v", oidc.CodeTTL, err)
		}
		signedIn(t, e, s, "quick-code")
		e.Clock.Advance(oidc.CodeTTL - time.Millisecond)
		if _, err := s.TradeCode(t.Context(), "quick-code"); err != nil {
			t.Fatalf("just in time: %v", err)
		}
	})
}

// TestCodeReusedBeforeTheGrant: the second trade comes before the first
// has stored its grant; the first then starts none.
func TestCodeReusedBeforeTheGrant(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		signedIn(t, e, s, "c")
		first, err := s.TradeCode(t.Context(), "c")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.TradeCode(t.Context(), "c"); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatal(err)
		}
		if _, _, err := s.StartGrant(t.Context(), first, true); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatalf("a grant started after its code's reuse: %v", err)
		}
	})
}

func TestRefreshTokensRotate(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		g, first := granted(t, e, s, "c", true)
		g2, second, err := s.RotateRefresh(t.Context(), first)
		if err != nil || second == "" || second == first || g2.ID != g.ID {
			t.Fatalf("rotate: %+v %v", g2, err)
		}
		e.ExpectCount(t, 0, "refresh tokens stored in clear", "SELECT COUNT(*) FROM oidc_refresh_tokens WHERE token_hash = ? OR token_hash = ?", first, second)
		third := second
		for range 3 {
			if _, third, err = s.RotateRefresh(t.Context(), third); err != nil {
				t.Fatal(err)
			}
		}
		// The first token again: refused, and the whole grant ends.
		if _, _, err := s.RotateRefresh(t.Context(), first); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatalf("reuse: %v", err)
		}
		if _, _, err := s.RotateRefresh(t.Context(), third); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatalf("the latest token outlived the reuse: %v", err)
		}
		// Every sign-in, token and refresh is audited, then the reuse.
		want := []string{string(audit.OIDCAuthorize) + " ok", string(audit.OIDCToken) + " ok"}
		for range 4 {
			want = append(want, string(audit.OIDCRefresh)+" ok")
		}
		if got := e.Audit(t, "acct-1", "oidc."); !slices.Equal(got, append(want, string(audit.OIDCRefreshReuse)+" revoked")) {
			t.Fatalf("audit %v", got)
		}
		for _, bad := range []string{"", "nope", string(make([]byte, 600))} {
			if _, _, err := s.RotateRefresh(t.Context(), bad); !errors.Is(err, oidc.ErrInvalidGrant) {
				t.Fatalf("%q: %v", bad, err)
			}
		}
	})
}

func TestGrantExpires(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		g, refresh := granted(t, e, s, "c", true)
		e.Clock.Advance(oidc.GrantTTL - time.Minute)
		var err error
		if _, refresh, err = s.RotateRefresh(t.Context(), refresh); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(time.Minute)
		if _, _, err := s.RotateRefresh(t.Context(), refresh); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatalf("after %v: %v", oidc.GrantTTL, err)
		}
		if _, err := s.Grant(t.Context(), g.ID); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatalf("expired grant: %v", err)
		}
	})
}

// TestConcurrentRefresh: two holders of one refresh token use it at once:
// one gets the next token, the other is refused and the grant ends.
func TestConcurrentRefresh(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		_, refresh := granted(t, e, s, "c", true)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() { _, _, errs[i] = s.RotateRefresh(context.Background(), refresh) })
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) || !errors.Is(errors.Join(errs...), oidc.ErrInvalidGrant) {
			t.Fatalf("want one winner and one refusal: %v", errs)
		}
		e.ExpectCount(t, 1, "the grant survived a reused refresh token", "SELECT COUNT(*) FROM oidc_grants WHERE revoked_at <> 0")
	})
}

// TestConcurrentTrade: two presentations of one code at once (on
// PostgreSQL both may read it untraded): one wins, the other is refused and
// revokes what the winner gets, as a later replay does.
func TestConcurrentTrade(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		signedIn(t, e, s, "c")
		var wg sync.WaitGroup
		traded := make([]oidc.AuthRequest, 2)
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() { traded[i], errs[i] = s.TradeCode(context.Background(), "c") })
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) || !errors.Is(errors.Join(errs...), oidc.ErrInvalidGrant) {
			t.Fatalf("want one winner and one refusal: %v", errs)
		}
		winner := traded[0]
		if errs[0] != nil {
			winner = traded[1]
		}
		if _, _, err := s.StartGrant(t.Context(), winner, true); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatalf("the winner of a raced code got a grant: %v", err)
		}
		e.ExpectCount(t, 1, "no revoked grant after a raced code", "SELECT COUNT(*) FROM oidc_grants WHERE revoked_at <> 0")
	})
}

func TestRevokeAccountAndGrant(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		var grants []oidc.Grant
		for _, code := range []string{"c1", "c2", "c3"} {
			g, _ := granted(t, e, s, code, false)
			grants = append(grants, g)
		}
		if err := s.RevokeGrant(t.Context(), grants[0].ID); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeGrant(t.Context(), grants[0].ID); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeGrant(t.Context(), "nope"); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatal(err)
		}
		var ended []oidc.Grant
		err := e.DB.InTx(t.Context(), func(tx *store.Tx) error {
			var err error
			ended, err = s.RevokeAccount(t.Context(), tx, "acct-1")
			return err
		})
		if err != nil || len(ended) != 2 || ended[0].ClientID != "client-1" {
			t.Fatalf("revoked %+v %v", ended, err)
		}
		for _, g := range grants {
			if _, err := s.Grant(t.Context(), g.ID); !errors.Is(err, oidc.ErrInvalidGrant) {
				t.Fatalf("grant %s is live: %v", g.ID, err)
			}
		}
		if n := len(e.Audit(t, "acct-1", string(audit.OIDCRevoke))); n != 3 {
			t.Fatalf("%d revocation rows, want 3", n)
		}
	})
}

// TestPrune: the janitor keeps what can still answer (a live request, a
// traded code whose grant may yet be revoked by its replay, a live grant)
// and deletes the rest.
func TestPrune(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		s := newService(t, e, nil)
		waiting, err := s.CreateAuthRequest(t.Context(), oidc.AuthRequest{Brand: "belair", ClientID: "client-1", RedirectURI: "https://app.example/cb", MaxAge: -1})
		if err != nil {
			t.Fatal(err)
		}
		g, refresh := granted(t, e, s, "c", true)
		count := func() [3]int {
			return [3]int{e.Count(t, "SELECT COUNT(*) FROM oidc_auth_requests"), e.Count(t, "SELECT COUNT(*) FROM oidc_grants"),
				e.Count(t, "SELECT COUNT(*) FROM oidc_refresh_tokens")}
		}
		if n, err := s.Prune(t.Context()); err != nil || n != 0 || count() != [3]int{2, 1, 1} {
			t.Fatalf("pruned %d (%v) of fresh rows: %v", n, err, count())
		}
		e.Clock.Advance(oidc.AuthRequestTTL)
		if n, err := s.Prune(t.Context()); err != nil || n != 1 || count() != [3]int{1, 1, 1} {
			t.Fatalf("after %v: pruned %d (%v), left %v", oidc.AuthRequestTTL, n, err, count())
		}
		if _, err := s.AuthRequest(t.Context(), waiting.ID); !errors.Is(err, oidc.ErrRequestNotFound) {
			t.Fatal(err)
		}
		// The traded code still revokes its grant when replayed.
		if _, err := s.TradeCode(t.Context(), "c"); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatal(err)
		}
		if _, _, err := s.RotateRefresh(t.Context(), refresh); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatalf("the replayed code left the grant live: %v", err)
		}
		e.Clock.Advance(oidc.GrantTTL)
		if n, err := s.Prune(t.Context()); err != nil || n != 3 || count() != [3]int{0, 0, 0} {
			t.Fatalf("after the grant's end: pruned %d (%v), left %v", n, err, count())
		}
		if _, err := s.Grant(t.Context(), g.ID); !errors.Is(err, oidc.ErrInvalidGrant) {
			t.Fatal(err)
		}
	})
}
