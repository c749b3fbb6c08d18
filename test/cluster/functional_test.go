package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"guichet/internal/notify"
	"guichet/internal/store"
)

// TestSessionAcrossInstances signs in through the load balancer and uses
// the session on every instance.
func TestSessionAcrossInstances(t *testing.T) {
	ctx := context.Background()
	loadAPIKey(t, "belair.localhost")
	c := newClient("127.0.0.2", "belair.localhost")
	c.mustSignIn(ctx, t, "sign-in through the load balancer", setup.lb, "demo@belair.example", demoPassword)
	for _, in := range cl.instances {
		a, err := c.json(ctx, in.addr, "GET", "/api/v1/me", "")
		if err != nil || a.status != 200 || a.body["email"] != "demo@belair.example" {
			t.Fatalf("%s: /api/v1/me %d %v %v", in.name, a.status, a.body, err)
		}
	}
}

// TestGuessBudgetAcrossInstances spreads wrong passwords over the three
// instances: the account locks at the tenth (a per-instance budget would
// allow thirty), and the client's password rate limit (20 a minute) is
// spent on all of them together.
func TestGuessBudgetAcrossInstances(t *testing.T) {
	ctx := context.Background()
	loadAPIKey(t, "intact.localhost")
	c := newClient("127.0.0.3", "intact.localhost")
	a, err := c.json(ctx, setup.lb, "POST", "/api/v1/accounts/find", `{"email":"ubi@intact.example"}`)
	if err != nil || a.status != 200 {
		t.Fatalf("find: %d %v", a.status, err)
	}
	id := a.body["id"].(string)
	attempt := func(i int, password string) int {
		in := cl.instances[i%len(cl.instances)]
		a, err := c.json(ctx, in.addr, "POST", "/api/v1/accounts/"+id+"/authentication", fmt.Sprintf(`{"password":%q}`, password))
		if err != nil {
			t.Fatalf("attempt %d on %s: %v", i, in.name, err)
		}
		return a.status
	}
	for i := range 10 {
		if got := attempt(i, "Wrong-Horse-9!"); got != 401 && got != 400 {
			t.Fatalf("wrong password %d: %d", i, got)
		}
	}
	if got := attempt(10, demoPassword); got == 200 {
		t.Fatal("the right password after ten wrong ones spread over three instances signed in: the lockout is per instance")
	}
	statuses := map[int]int{}
	for i := 11; i < 21; i++ {
		statuses[attempt(i, "Wrong-Horse-9!")]++
	}
	if statuses[429] != 1 {
		t.Fatalf("attempts 12 to 21 of one client on three instances: %v, want the 21st refused with 429", statuses)
	}
}

// resetCodeLine is the code's line of the reset-code and registration-code
// emails (text part).
var resetCodeLine = regexp.MustCompile(`(?m)^ {4}(\d{6})\r?$`)

// requestReset asks for a password reset code on one instance and reads
// the code from the email the outbox (any instance's worker) delivered.
func requestReset(t *testing.T, c *client, in *instance, email string) (id, validationID, code string) {
	t.Helper()
	ctx := context.Background()
	before := cl.sink.lastTo(email)
	a, err := c.json(ctx, in.addr, "POST", "/api/v1/accounts/password-reset", fmt.Sprintf(`{"email":%q}`, email))
	if err != nil || a.status != 200 {
		t.Fatalf("password reset via %s: %d %v %v", in.name, a.status, a.body, err)
	}
	id, _ = a.body["id"].(string)
	validationID, _ = a.body["validationId"].(string)
	return id, validationID, waitCode(t, email, before)
}

// waitCode reads the code of the first email to email that the sink
// received after before (its last one then): a reset or a registration
// code, the same line in both templates.
func waitCode(t *testing.T, email, before string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := cl.sink.lastTo(email); m != "" && m != before {
			if g := resetCodeLine.FindStringSubmatch(m); g != nil {
				return g[1]
			}
			t.Fatalf("no code in the email to %s:\n%s", email, m)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no email to %s within 30 s (recipients: %v)", email, cl.sink.recipients())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRecoveryCodesAcrossInstances: a reset code requested via one instance
// is accepted via another; a code's five guesses are spent over all the
// instances together (the fifth wrong one closes it, the right one is then
// refused).
func TestRecoveryCodesAcrossInstances(t *testing.T) {
	ctx := context.Background()
	loadAPIKey(t, "scotia.localhost")
	c := newClient("127.0.0.11", "scotia.localhost")
	verify := func(in *instance, id, validationID, code string) answer {
		a, err := c.json(ctx, in.addr, "POST", "/api/v1/accounts/"+id+"/validations/"+validationID+"/",
			fmt.Sprintf(`{"validationValue":%q}`, code))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	id, vid, code := requestReset(t, c, cl.instances[0], "demo@scotia.example")
	if a := verify(cl.instances[2], id, vid, code); a.status != 200 || a.body["token"] == nil {
		t.Fatalf("the code sent via app1, entered via app3: %d %v", a.status, a.body)
	}

	id, vid, code = requestReset(t, c, cl.instances[1], "ubi@scotia.example")
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	for i := range 5 {
		a := verify(cl.instances[i%3], id, vid, wrong)
		want := 400
		if i == 4 {
			want = 403 // the fifth wrong guess closes the code
		}
		if a.status != want {
			t.Fatalf("wrong guess %d via %s: %d %v, want %d", i+1, cl.instances[i%3].name, a.status, a.body, want)
		}
	}
	if a := verify(cl.instances[2], id, vid, code); a.status != 403 {
		t.Fatalf("the right code after five wrong guesses over three instances: %d %v", a.status, a.body)
	}
}

// TestMaintenanceOnAll turns maintenance on for one brand (`guichet
// maintenance on`, as an operator does) and waits for every instance to
// answer the maintenance roadblock, at most 2 s.
func TestMaintenanceOnAll(t *testing.T) {
	ctx := context.Background()
	loadAPIKey(t, "bna.localhost")
	c := newClient("127.0.0.4", "bna.localhost")
	maintenance := func(arg string) {
		cmd := exec.Command(setup.bin, "maintenance", arg, "--brand", "bna")
		cmd.Env = append(os.Environ(), "GUICHET_DATABASE_URL="+setup.databaseURL)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("guichet maintenance %s: %v %s", arg, err, out)
		}
	}
	waitAll := func(want int) {
		deadline := time.Now().Add(2 * time.Second) // the bound, on the wait
		for _, in := range cl.instances {
			for {
				a, err := c.json(ctx, in.addr, "POST", "/api/v1/accounts/find", `{"email":"demo@bna.example"}`)
				if err == nil && a.status == want {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s still answers %d (%v), want %d within 2 s", in.name, a.status, err, want)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	maintenance("on")
	t.Cleanup(func() { maintenance("off") })
	waitAll(503)
	maintenance("off")
	waitAll(200)
}

// TestOutboxThousand queues 1,000 emails and lets the three instances'
// outbox workers deliver them: each arrives at the SMTP server exactly once.
func TestOutboxThousand(t *testing.T) {
	ids := enqueueEmails(t, 1000, "thousand")
	waitDelivered(t, ids, 3*time.Minute)
}

// openDB opens the cluster's database (closed when the test ends).
func openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), store.Config{URL: setup.databaseURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// enqueueEmails queues n emails as the application does (notify.Enqueue in
// a transaction) and returns their Message-IDs.
func enqueueEmails(t *testing.T, n int, tag string) []string {
	t.Helper()
	ctx := context.Background()
	db := openDB(t)
	ids := make([]string, 0, n)
	for i := range n {
		err := db.InTx(ctx, func(tx *store.Tx) error {
			id, err := notify.Enqueue(ctx, tx, notify.Message{Brand: "belair", Language: "en", Channel: notify.ChannelEmail,
				To: fmt.Sprintf("%s-%d@example.com", tag, i), Template: notify.TemplateResetCode,
				Data: map[string]string{notify.DataCode: "123456"}, Sensitive: true})
			ids = append(ids, "<outbox-"+id+"@guichet>")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// waitDelivered waits (at most within) for every message to have reached
// the sink, then wants each exactly once.
func waitDelivered(t *testing.T, ids []string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		missing := 0
		for _, id := range ids {
			if cl.sink.count(id) == 0 {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d messages never reached the SMTP server", missing, len(ids))
		}
		time.Sleep(200 * time.Millisecond)
	}
	twice := 0
	for _, id := range ids {
		if cl.sink.count(id) > 1 {
			twice++
		}
	}
	if twice > 0 {
		t.Fatalf("%d of %d messages arrived more than once", twice, len(ids))
	}
}

// TestTraceparentThroughTheLoadBalancer: a caller's W3C traceparent passes
// through HAProxy (deploy/haproxy.cfg) and the instance that answers
// continues that trace: its access-log line carries the caller's trace id,
// and the suite's OTLP receiver gets the request's spans under it (issue
// 33, docs/architecture.md "Tracing").
func TestTraceparentThroughTheLoadBalancer(t *testing.T) {
	ctx := context.Background()
	loadAPIKey(t, "belair.localhost")
	c := newClient("127.0.0.4", "belair.localhost")
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		t.Fatal(err)
	}
	traceID := hex.EncodeToString(id[:])
	c.headers = map[string]string{"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01"}
	if a, err := c.json(ctx, setup.lb, "POST", "/api/v1/accounts/find", `{"email":"demo@belair.example"}`); err != nil || a.status != 200 {
		t.Fatalf("find through the load balancer: %d %v", a.status, err)
	}
	logged := func() bool {
		for _, in := range cl.instances {
			b, err := os.ReadFile(fmt.Sprintf("%s/%s.log", setup.logDir, in.name))
			if err == nil && bytes.Contains(b, []byte(`"trace_id":"`+traceID+`"`)) {
				return true
			}
		}
		return false
	}
	// The log line and the export follow the answer: waited for, within the hang bound.
	for deadline := time.Now().Add(hangBound); !(logged() && traces.holds(id[:])); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("trace %s: in an instance's log %v, exported %v", traceID, logged(), traces.holds(id[:]))
		}
	}
}
