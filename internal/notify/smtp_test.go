package notify

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"guichet/internal/testenv"
)

func TestNewSMTPSender(t *testing.T) {
	cases := []struct {
		url     string
		ok      bool
		summary string
	}{
		{"smtp://user:pass@mail.example.com?from=no-reply@example.com", true, "smtp://mail.example.com:587"},
		{"smtps://user:pass@mail.example.com?from=no-reply@example.com", true, "smtps://mail.example.com:465"},
		{"smtp://mail.example.com:2525?from=no-reply@example.com&tls=opportunistic&auth=login&timeout=5s", true, "smtp://mail.example.com:2525"},
		{"smtp://127.0.0.1:25?from=no-reply@example.com&tls=none", true, "smtp://127.0.0.1:25"},
		{"http://mail.example.com?from=no-reply@example.com", false, ""},
		{"smtp://?from=no-reply@example.com", false, ""},
		{"smtp://mail.example.com", false, ""},
		{"smtp://mail.example.com?from=not-an-address", false, ""},
		{"smtp://mail.example.com?from=a@b.ca%0d%0aBcc:c@d.ca", false, ""},
		{"smtp://mail.example.com:99999?from=no-reply@example.com", false, ""},
		{"smtps://mail.example.com?from=no-reply@example.com&tls=none", false, ""},
		{"smtp://mail.example.com?from=no-reply@example.com&tls=maybe", false, ""},
		{"smtp://mail.example.com?from=no-reply@example.com&auth=magic", false, ""},
		{"smtp://mail.example.com?from=no-reply@example.com&timeout=soon", false, ""},
		{"::not a url", false, ""},
	}
	for _, c := range cases {
		s, err := NewSMTPSender(c.url)
		if (err == nil) != c.ok {
			t.Errorf("NewSMTPSender(%q) error = %v, want ok=%v", c.url, err, c.ok)
			continue
		}
		if err != nil {
			if strings.Contains(err.Error(), "pass") {
				t.Errorf("error shows the password: %v", err)
			}
			continue
		}
		if s.String() != c.summary || strings.Contains(s.String(), "pass") {
			t.Errorf("String() = %q, want %q", s.String(), c.summary)
		}
	}
}

func testEmail(to string) Email {
	return Email{ID: "0123456789abcdef0123456789abcdef", To: to, FromName: "belairdirect", Subject: "Hello",
		Text: "plain", HTML: "<p>html</p>", Brand: "belair", Language: "en", Template: TemplatePasswordChanged}
}

func TestSMTPSenderTLSAndAuth(t *testing.T) {
	cert := testenv.SelfSigned(t, false)
	serverTLS, clientTLS := cert.ServerTLS(), cert.ClientTLS()
	cases := []struct {
		name     string
		server   smtpServerOptions
		url      func(s *smtpServer) string
		wantErr  bool
		delivers bool
	}{
		{"starttls with auth", smtpServerOptions{user: "guichet", pass: "s3cret", tlsConfig: serverTLS},
			func(s *smtpServer) string {
				return "smtp://guichet:s3cret@localhost:" + s.port() + "?from=no-reply@guichet.test"
			}, false, true},
		{"implicit tls with auth", smtpServerOptions{user: "guichet", pass: "s3cret", tlsConfig: serverTLS, implicitTLS: true},
			func(s *smtpServer) string {
				return "smtps://guichet:s3cret@localhost:" + s.port() + "?from=no-reply@guichet.test&auth=plain"
			}, false, true},
		{"wrong password", smtpServerOptions{user: "guichet", pass: "s3cret", tlsConfig: serverTLS},
			func(s *smtpServer) string {
				return "smtp://guichet:wrong@localhost:" + s.port() + "?from=no-reply@guichet.test"
			}, true, false},
		{"starttls required but not offered", smtpServerOptions{},
			func(s *smtpServer) string { return "smtp://localhost:" + s.port() + "?from=no-reply@guichet.test" },
			true, false},
		{"no tls on loopback", smtpServerOptions{},
			func(s *smtpServer) string { return s.url() }, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := startSMTP(t, c.server)
			sender := newSMTPSender(t, c.url(srv))
			sender.tlsConfig = clientTLS
			err := sender.Send(context.Background(), testEmail("alex@example.com"))
			if (err != nil) != c.wantErr {
				t.Fatalf("Send = %v, want error %v", err, c.wantErr)
			}
			if err != nil {
				if IsPermanent(err) {
					t.Errorf("a connection or authentication fault is permanent: %v", err)
				}
				if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "wrong") {
					t.Errorf("error shows the password: %v", err)
				}
			}
			if got := len(srv.messages()); (got == 1) != c.delivers {
				t.Fatalf("server received %d messages", got)
			}
		})
	}
}

func TestSMTPSenderRefusesInjectionBeforeConnecting(t *testing.T) {
	srv := startSMTP(t, smtpServerOptions{})
	sender := newSMTPSender(t, srv.url())
	for _, to := range []string{"alex@example.com\r\nBcc: eve@example.com", "alex@example.com\n", "a@b.ca,eve@example.com",
		"Alex <alex@example.com>", ""} {
		err := sender.Send(context.Background(), testEmail(to))
		if !IsPermanent(err) || !errors.Is(err, ErrInvalidAddress) {
			t.Errorf("Send(%q) = %v, want a permanent ErrInvalidAddress", to, err)
		}
	}
	bad := testEmail("alex@example.com")
	bad.ID = "x\r\nBcc: eve@example.com"
	if err := sender.Send(context.Background(), bad); !IsPermanent(err) {
		t.Errorf("Send with an injected id = %v", err)
	}
	if n := srv.sessionCount(); n != 0 {
		t.Fatalf("refused messages opened %d SMTP sessions", n)
	}
}

func TestSMTPSenderClassifiesAnswers(t *testing.T) {
	cases := []struct {
		name      string
		reply     error
		permanent bool
	}{
		{"451 temporary", smtpTempFail, false},
		{"550 permanent", smtpPermFail, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := startSMTP(t, smtpServerOptions{})
			srv.setRcptReply(func(int) error { return c.reply })
			err := newSMTPSender(t, srv.url()).Send(context.Background(), testEmail("alex@example.com"))
			if err == nil || IsPermanent(err) != c.permanent {
				t.Fatalf("Send = %v, want permanent=%v", err, c.permanent)
			}
		})
	}
}

func TestSMTPSenderReusesConnections(t *testing.T) {
	srv := startSMTP(t, smtpServerOptions{})
	sender := newSMTPSender(t, srv.url())
	for i := 0; i < 5; i++ {
		if err := sender.Send(context.Background(), testEmail("alex@example.com")); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(srv.messages()); got != 5 {
		t.Fatalf("received %d messages", got)
	}
	if n := srv.sessionCount(); n != 1 {
		t.Fatalf("5 sequential sends opened %d sessions, want 1", n)
	}
	// A failed send drops its connection; the next one dials again.
	srv.setRcptReply(func(n int) error {
		if n == 6 {
			return smtpTempFail
		}
		return nil
	})
	if err := sender.Send(context.Background(), testEmail("alex@example.com")); err == nil {
		t.Fatal("the 451 was not reported")
	}
	if err := sender.Send(context.Background(), testEmail("alex@example.com")); err != nil {
		t.Fatal(err)
	}
	if n := srv.sessionCount(); n != 2 {
		t.Fatalf("sessions = %d, want 2", n)
	}
	// An idle connection past its timeout is not reused.
	sender.now = func() time.Time { return time.Now().Add(time.Hour) }
	if err := sender.Send(context.Background(), testEmail("alex@example.com")); err != nil {
		t.Fatal(err)
	}
	if n := srv.sessionCount(); n != 3 {
		t.Fatalf("sessions = %d, want 3", n)
	}
}

func TestSMTPSenderCancelCutsAStalledSend(t *testing.T) {
	srv := startSMTP(t, smtpServerOptions{})
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	entered := make(chan struct{})
	srv.setStall(func() {
		close(entered)
		<-release
	})
	sender := newSMTPSender(t, srv.url())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- sender.Send(ctx, testEmail("alex@example.com")) }()
	<-entered
	cancel()
	// Send returns while the server still stalls (a Send that ignored its
	// context would wait for release, which comes at the test's end only).
	if err := <-done; err == nil || IsPermanent(err) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Send = %v, want a temporary cancellation error", err)
	}
}

func TestSMTPSenderRedialsWhenTheServerDroppedAnIdleConnection(t *testing.T) {
	srv := startSMTP(t, smtpServerOptions{readTimeout: 100 * time.Millisecond})
	sender := newSMTPSender(t, srv.url())
	if err := sender.Send(context.Background(), testEmail("alex@example.com")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the server hangs up on the idle connection
	if err := sender.Send(context.Background(), testEmail("alex@example.com")); err != nil {
		t.Fatalf("second send on a dropped connection: %v", err)
	}
	if got, n := len(srv.messages()), srv.sessionCount(); got != 2 || n != 2 {
		t.Fatalf("messages %d sessions %d, want 2 and 2", got, n)
	}
}
