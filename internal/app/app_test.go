package app

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}

// TestWiredSignIn runs the dev application as `guichet serve --dev` builds
// it and signs a demo policyholder in through every wired layer: find,
// authentication, the SSO form post, the session, sign out.
func TestWiredSignIn(t *testing.T) {
	ctx := context.Background()
	a, err := New(ctx, Config{Dev: true, DataDir: t.TempDir(), BrandsDir: "../../config/brands"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.DB.Close()
	srv := httptest.NewServer(a.Handler)
	defer srv.Close()
	belair, _ := a.Brands.ByID("belair")
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	call := func(method, path, body string) (int, map[string]any) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Host = "belair.localhost"
		req.Header.Set("api-key", belair.APIKey)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	status, found := call("POST", "/api/v1/accounts/find", `{"email":"demo@belair.example"}`)
	if status != 200 || found["status"] != "A" {
		t.Fatalf("find: %d %v", status, found)
	}
	id := found["id"].(string)
	status, auth := call("POST", "/api/v1/accounts/"+id+"/authentication", `{"password":"Guichet-Demo-2026!"}`)
	if status != 200 || auth["loginTicket"] == "" {
		t.Fatalf("authentication: %d %v", status, auth)
	}
	form := url.Values{"login-form-type": {"pwd"}, "username": {"demo@belair.example"},
		"password": {"Guichet-Demo-2026!"}, "ticket": {auth["loginTicket"].(string)}}
	req, _ := http.NewRequest("POST", srv.URL+"/pkmslogin.form", strings.NewReader(form.Encode()))
	req.Host = "belair.localhost"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	noFollow := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/my-account" {
		t.Fatalf("SSO form post: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	// The cookie jar keys cookies by the URL's host (127.0.0.1), which is
	// what the client sends next.
	status, me := call("GET", "/api/v1/me", "")
	if status != 200 || me["email"] != "demo@belair.example" {
		t.Fatalf("me: %d %v", status, me)
	}
	if status, _ := call("POST", "/api/v1/logout", ""); status != http.StatusNoContent {
		t.Fatalf("logout: %d", status)
	}
	if status, _ := call("GET", "/api/v1/me", ""); status != http.StatusUnauthorized {
		t.Fatalf("me after logout: %d", status)
	}
	// The dev mailbox is mounted.
	req, _ = http.NewRequest("GET", srv.URL+"/_dev/mail.json", nil)
	req.Host = "belair.localhost"
	res, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("/_dev/mail.json: %d", res.StatusCode)
	}
}

func TestDeliveryMustBeConfiguredOutsideDev(t *testing.T) {
	_, err := New(context.Background(), Config{DataDir: t.TempDir(), BrandsDir: "../../config/brands"})
	if err == nil || !strings.Contains(err.Error(), "GUICHET_MAIL=log") {
		t.Fatalf("New without delivery = %v, want a refusal naming GUICHET_MAIL=log", err)
	}
	a, err := New(context.Background(), Config{DataDir: t.TempDir(), BrandsDir: "../../config/brands", Mail: "log"})
	if err != nil {
		t.Fatalf("GUICHET_MAIL=log: %v", err)
	}
	a.DB.Close()
}

func TestBrokenBrandFileStopsStart(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/belair.yaml", []byte("id: belair\nprovinces: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := New(context.Background(), Config{Dev: true, DataDir: t.TempDir(), BrandsDir: dir})
	if err == nil || !strings.Contains(err.Error(), "belair.yaml") {
		t.Fatalf("New with a broken brand file = %v, want an error naming the file", err)
	}
}

// TestServeFinishesInFlightRequests stops the server (as SIGTERM does) while
// a request is running: the request still gets its whole answer.
func TestServeFinishesInFlightRequests(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	a, err := New(ctx, Config{Dev: true, DataDir: t.TempDir(), BrandsDir: "../../config/brands", Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	a.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		time.Sleep(300 * time.Millisecond)
		_, _ = io.WriteString(w, "finished")
	})
	addr := make(chan string, 1)
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, func(a string) { addr <- a }) }()
	got := make(chan string, 1)
	go func() {
		res, err := http.Get("http://" + <-addr + "/slow")
		if err != nil {
			got <- err.Error()
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		got <- string(b)
	}()
	<-started
	stop()
	if body := <-got; body != "finished" {
		t.Fatalf("in-flight request got %q", body)
	}
	if err := <-served; err != nil && err != http.ErrServerClosed {
		t.Fatalf("Serve returned %v", err)
	}
}

// GUICHET_HASH_WAIT_BUDGET reaches the hasher: a budget no wait fits in
// sheds every password check (429 BUSY, Retry-After); a malformed one stops
// the start.
func TestHashWaitBudgetIsConfigured(t *testing.T) {
	for _, bad := range []string{"2", "soon", "-1s"} {
		_, err := New(context.Background(), Config{Mail: "log", DataDir: t.TempDir(), BrandsDir: "../../config/brands", HashWaitBudget: bad})
		if err == nil || !strings.Contains(err.Error(), "GUICHET_HASH_WAIT_BUDGET") {
			t.Fatalf("budget %q: %v, want a refusal naming GUICHET_HASH_WAIT_BUDGET", bad, err)
		}
	}
	a, err := New(context.Background(), Config{Mail: "log", DataDir: t.TempDir(), BrandsDir: "../../config/brands", HashWaitBudget: "1ns"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.DB.Close()
	belair, _ := a.Brands.ByID("belair")
	req := httptest.NewRequest("POST", "/api/v1/accounts/some-id/authentication", strings.NewReader(`{"password":"Whatever-2026!"}`))
	req.Host = belair.Hosts[0]
	req.Header.Set("api-key", belair.APIKey)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	a.Handler.ServeHTTP(w, req)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), `"BUSY"`) {
		t.Fatalf("authentication over the budget: %d, Retry-After %q, %s", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
}
