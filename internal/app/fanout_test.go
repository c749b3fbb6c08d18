package app

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"guichet/internal/chat/chatapi"
	"guichet/internal/fanout/fanouttest"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

// TestInstancesWakeEachOther: two applications on one PostgreSQL database
// (their chat polls not running) each get a PostgreSQL Notifier: the
// visitor's socket on B sees the accept made through A, and the counters
// are on /metrics. On SQLite there is none (one instance, in process).
func TestInstancesWakeEachOther(t *testing.T) {
	clock := testclock.At(testenv.ChatHours)
	if a := consoleApp(t, "", clock); a.Fanout != nil {
		t.Fatal("SQLite has a PostgreSQL notifier")
	}
	url := storetest.MigratedPostgresURL(t)
	a, b := consoleApp(t, url, clock), consoleApp(t, url, clock)
	runFanouts(t, a, b)
	srvB := httptest.NewServer(b.Handler)
	defer srvB.Close()
	belair, _ := a.Brands.ByID("belair")
	host := belair.Hosts[0]
	agent := marie(t, a, clock)
	agent.want("PUT", "/api/console/v1/chat/availability", `{"status":"available","languages":["en"]}`, 200, "")

	visitor := newBrowser(t, b, host)
	visitor.header.Set("api-key", belair.APIKey)
	id := visitor.want("POST", "/api/v1/chat/conversations", `{"name":"Alex","topic":"Sign-in"}`, 201, "")["id"].(string)
	visitor.want("POST", "/api/v1/chat/conversation/handover", "", 200, "")
	vs := waitingVisitor(t, srvB, host, visitor.cookies[chatapi.CookieName])
	agent.want("POST", "/api/console/v1/chat/conversations/"+id+"/accept", "", 200, "")
	for {
		if st := readFrame(t, vs, "state"); st["status"] == "active" {
			break
		}
	}
	if b.Fanout.Stats().Received == 0 || a.Fanout.Stats().Sent == 0 {
		t.Fatalf("A %+v, B %+v", a.Fanout.Stats(), b.Fanout.Stats())
	}
	rec := testenv.Do(t, a.AdminHandler, testenv.Request{Path: "/metrics"})
	for _, name := range []string{"guichet_fanout_notifies_sent_total", "guichet_fanout_notifies_received_total",
		"guichet_fanout_notifies_own_total", "guichet_fanout_reconnects_total"} {
		if !strings.Contains(string(rec.Body), name) {
			t.Fatalf("/metrics lacks %s", name)
		}
	}
}

// runFanouts runs the PostgreSQL Notifier of each app until the test ends
// and returns once each one listens.
func runFanouts(t *testing.T, apps ...*App) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	for _, x := range apps {
		if x.Fanout == nil {
			t.Fatal("no PostgreSQL notifier on PostgreSQL")
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = x.Fanout.Run(ctx)
		}()
		t.Cleanup(func() { stop(); <-done })
		fanouttest.Eventually(t, "listening", func() bool { return x.Fanout.ListenerPID() != 0 })
	}
}
