package app

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDrainOnStop stops a serving instance (SIGTERM) and follows what a
// load balancer sees: /readyz turns 503 at once while every other request
// is still served (the drain window); then the listener closes, and a
// request already in flight (its body half sent) still gets its answer.
func TestDrainOnStop(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *App) {
		a.cfg.Addr, a.cfg.AdminAddr = "127.0.0.1:0", "off"
		a.drainFor = 2 * time.Second
		belair, _ := a.Brands.ByID("belair")
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		addrc, served := goServe(ctx, a)
		base := "http://" + <-addrc
		get := func(path string) int {
			t.Helper()
			res, err := http.Get(base + path)
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			res.Body.Close()
			return res.StatusCode
		}
		if got := get("/readyz"); got != http.StatusOK {
			t.Fatalf("/readyz before the stop: %d", got)
		}

		// A request in flight across the whole drain: its body is half sent.
		body, more := io.Pipe()
		req, _ := http.NewRequest("POST", base+"/api/v1/accounts/find", body)
		req.Host = belair.Hosts[0]
		req.Header.Set("api-key", belair.APIKey)
		req.Header.Set("Content-Type", "application/json")
		req.ContentLength = int64(len(`{"email":"nobody@belair.example"}`))
		answered := make(chan *http.Response, 1)
		failed := make(chan error, 1)
		go func() {
			res, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
			if err != nil {
				failed <- err
				return
			}
			answered <- res
		}()
		if _, err := more.Write([]byte(`{"email":"nobody@`)); err != nil {
			t.Fatal(err)
		}

		stop() // SIGTERM
		red := false
		for range 500 {
			if get("/readyz") == http.StatusServiceUnavailable {
				red = true
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		if !red {
			t.Fatal("/readyz never turned 503 after the stop")
		}
		if got := get("/healthz"); got != http.StatusOK {
			t.Fatalf("/healthz during the drain: %d, want the instance still serving", got)
		}
		if !a.Draining() {
			t.Fatal("Draining() = false during the drain")
		}

		// The drain window ends: new connections are refused.
		refused := false
		for range 1000 {
			c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				refused = true
				break
			}
			c.Close()
			time.Sleep(10 * time.Millisecond)
		}
		if !refused {
			t.Fatal("the listener still accepts after the drain window")
		}
		if _, err := more.Write([]byte(`belair.example"}`)); err != nil {
			t.Fatal(err)
		}
		more.Close()
		select {
		case res := <-answered:
			res.Body.Close()
			if res.StatusCode != http.StatusNotFound { // no such account: the find's answer
				t.Fatalf("the request in flight: %d, want its answer (404)", res.StatusCode)
			}
		case err := <-failed:
			t.Fatalf("the request in flight failed: %v", err)
		}
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Fatalf("Serve = %v", err)
		}
	})
}

// TestDrainSetting: GUICHET_DRAIN_SECONDS is a number of seconds, 0 to 60;
// unset is DefaultDrain.
func TestDrainSetting(t *testing.T) {
	for _, c := range []struct {
		v    string
		want time.Duration
		fail bool
	}{{"", DefaultDrain, false}, {"0", 0, false}, {"12", 12 * time.Second, false},
		{"61", 0, true}, {"-1", 0, true}, {"5s", 0, true}} {
		got, err := Config{DrainSeconds: c.v}.drain()
		if (err != nil) != c.fail || got != c.want {
			t.Errorf("GUICHET_DRAIN_SECONDS=%q: %v, %v", c.v, got, err)
		}
	}
	// GUICHET_OUTBOX_RETRY_SECONDS: 1 to 3600; unset is DefaultOutboxRetry.
	for _, c := range []struct {
		v    string
		want time.Duration
		fail bool
	}{{"", DefaultOutboxRetry, false}, {"1", time.Second, false}, {"3600", time.Hour, false},
		{"0", 0, true}, {"3601", 0, true}, {"2s", 0, true}} {
		got, err := Config{OutboxRetrySeconds: c.v}.outboxRetry()
		if (err != nil) != c.fail || got != c.want {
			t.Errorf("GUICHET_OUTBOX_RETRY_SECONDS=%q: %v, %v", c.v, got, err)
		}
	}
	cfg := Config{DataDir: t.TempDir(), BrandsDir: "../../config/brands", Mail: "log", DrainSeconds: "soon"}
	if _, err := newApp(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "GUICHET_DRAIN_SECONDS") {
		t.Fatalf("New with GUICHET_DRAIN_SECONDS=soon: %v", err)
	}
}
