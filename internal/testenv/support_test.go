package testenv_test

import (
	"crypto/tls"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"guichet/internal/audit"
	"guichet/internal/testenv"
)

// fails runs fn on a fake and returns what it reported (a Fatal stops it).
func fails(fn func(tb testing.TB)) []string {
	f := &fakeTB{}
	func() {
		defer func() {
			if r := recover(); r != nil && r != (fatal{}) {
				panic(r)
			}
		}()
		fn(f)
	}()
	return f.errors
}

// TestSelfSigned: a client trusting the pool completes a TLS handshake
// with a server presenting the certificate (HandshakeServer), with either
// key, on 127.0.0.1;
// the files load as a key pair; a client trusting nothing refuses it.
func TestSelfSigned(t *testing.T) {
	for _, rsaKey := range []bool{false, true} {
		c := testenv.SelfSigned(t, rsaKey)
		addr := testenv.HandshakeServer(t, c.ServerTLS())
		dialer := &net.Dialer{Timeout: 10 * time.Second}
		conn, err := tls.DialWithDialer(dialer, "tcp", addr, c.ClientTLS())
		if err != nil {
			t.Fatalf("rsa %v: handshake: %v", rsaKey, err)
		}
		conn.Close()
		if _, err := tls.DialWithDialer(dialer, "tcp", addr, &tls.Config{MinVersion: tls.VersionTLS12}); err == nil {
			t.Fatalf("rsa %v: a client trusting nothing accepted the certificate", rsaKey)
		}
		certFile, keyFile := c.Files(t)
		if _, err := tls.LoadX509KeyPair(certFile, keyFile); err != nil {
			t.Fatalf("rsa %v: the files: %v", rsaKey, err)
		}
	}
}

// TestCaptureLog: the default logger writes to the buffer, at debug
// level, until the test ends, when the previous one is back.
func TestCaptureLog(t *testing.T) {
	before := slog.Default()
	t.Run("captured", func(t *testing.T) {
		log := testenv.CaptureLog(t)
		slog.Debug("quiet detail", "n", 1)
		if got := log.String(); !strings.Contains(got, `"msg":"quiet detail"`) || !strings.Contains(got, `"level":"DEBUG"`) {
			t.Fatalf("captured %q", got)
		}
	})
	if slog.Default() != before {
		t.Fatal("the default logger was not restored")
	}
}

// TestAuditHelpers: ExpectAudit compares an account's events under a
// prefix in order; NoSecretInAudit fails on a secret in a detail.
func TestAuditHelpers(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		for i, ev := range []audit.Event{
			{Event: "password.check", Outcome: "wrong_password"},
			{Event: "password.set", Outcome: "ok", Detail: "len 14"},
			{Event: "login.authentication", Outcome: "ok"},
		} {
			ev.At, ev.Brand, ev.AccountID = e.Clock.Now().Add(time.Duration(i)*time.Second), "belair", "acc1"
			if err := audit.Record(t.Context(), e.DB, ev); err != nil {
				t.Fatal(err)
			}
		}
		testenv.ExpectAudit(t, e.DB, "acc1", "password.", "password.check wrong_password", "password.set ok")
		if got := fails(func(tb testing.TB) { testenv.ExpectAudit(tb, e.DB, "acc1", "password.", "password.set ok") }); len(got) != 1 {
			t.Fatalf("ExpectAudit on other events reported %q", got)
		}
		testenv.NoSecretInAudit(t, e.DB, "Correct-Horse-9!")
		if got := fails(func(tb testing.TB) { testenv.NoSecretInAudit(tb, e.DB, "nothing", "len 14") }); len(got) != 1 {
			t.Fatalf("NoSecretInAudit on a detail holding it reported %q", got)
		}
	})
}

// TestExpectCount: ExpectCount passes on the count it wants and fails,
// saying what the count means, on another.
func TestExpectCount(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		e.ExpectCount(t, 0, "the outbox is not empty", "SELECT COUNT(*) FROM outbox")
		got := fails(func(tb testing.TB) { e.ExpectCount(tb, 1, "nothing queued", "SELECT COUNT(*) FROM outbox") })
		if len(got) != 1 || got[0] != "nothing queued (counted 0, want 1)" {
			t.Fatalf("ExpectCount on another count reported %q", got)
		}
	})
}

// TestRaceAndWinner: Race answers in the order of its calls; Winner
// returns the one winner and fails on none, on two, and on a loser that
// is not a refusal.
func TestRaceAndWinner(t *testing.T) {
	answers := testenv.Race(4, func(i int) testenv.Answer { return testenv.Answer{Status: 200 + i} })
	for i, a := range answers {
		if a.Status != 200+i {
			t.Fatalf("answer %d: %d", i, a.Status)
		}
	}
	refused := func(a testenv.Answer) bool { return a.Status == 409 }
	one := []testenv.Answer{{Status: 409}, {Status: 201, Body: []byte("won")}, {Status: 409}}
	if w := testenv.Winner(t, one, 201, refused); string(w.Body) != "won" {
		t.Fatalf("winner %+v", w)
	}
	for name, c := range map[string][]testenv.Answer{
		"none":            {{Status: 409}, {Status: 409}},
		"two":             {{Status: 201}, {Status: 201}},
		"another refusal": {{Status: 201}, {Status: 500}},
	} {
		if got := fails(func(tb testing.TB) { testenv.Winner(tb, c, 201, refused) }); len(got) != 1 {
			t.Fatalf("%s: Winner reported %q", name, got)
		}
	}
}
