package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"guichet/internal/store"
)

// goRun runs the worker in the background until stop; done gets what Run
// returned.
func goRun(w *Worker) (stop context.CancelFunc, done <-chan error) {
	ctx, cancel := context.WithCancel(context.Background())
	d := make(chan error, 1)
	go func() { d <- w.Run(ctx) }()
	return cancel, d
}

// enqueue queues m in its own transaction.
func enqueue(t testing.TB, db *store.DB, m Message) string {
	t.Helper()
	var id string
	err := db.InTx(context.Background(), func(tx *store.Tx) error {
		var err error
		id, err = Enqueue(context.Background(), tx, m)
		return err
	})
	if err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	return id
}

func resetCodeEmail(to, code string) Message {
	return Message{Brand: "belair", Language: "en", Channel: ChannelEmail, To: to,
		Template: TemplateResetCode, Data: map[string]string{DataCode: code}}
}

// outboxState reads a row's state, attempts and data.
func outboxState(t testing.TB, db *store.DB, id string) (state string, attempts int, data string) {
	t.Helper()
	err := db.QueryRow(context.Background(), `SELECT state, attempts, data FROM outbox WHERE id = ?`, id).
		Scan(&state, &attempts, &data)
	if err != nil {
		t.Fatalf("outbox row %s: %v", id, err)
	}
	return state, attempts, data
}

// smtpServer is a real SMTP server (go-smtp) inside the test.
type smtpServer struct {
	Addr string

	mu       sync.Mutex
	received []receivedMail
	sessions int
	rcpts    int
	// rcptReply, when set, answers the n-th RCPT TO (1-based); nil accepts.
	rcptReply func(n int) error
	// stall, when set, is called at the start of DATA, before reading.
	stall func()
	// afterData, when set, is called once a message is stored, before the
	// server answers 250.
	afterData func()
	// delay is added to every DATA.
	delay time.Duration
}

type receivedMail struct {
	From string
	To   []string
	Data []byte
}

type smtpServerOptions struct {
	user, pass  string
	tlsConfig   *tls.Config
	implicitTLS bool
	readTimeout time.Duration // default 10 s
}

func startSMTP(t testing.TB, opts smtpServerOptions) *smtpServer {
	t.Helper()
	s := &smtpServer{}
	be := smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		s.mu.Lock()
		s.sessions++
		s.mu.Unlock()
		sess := &smtpSession{srv: s}
		if opts.user != "" {
			return &authSession{smtpSession: sess, user: opts.user, pass: opts.pass}, nil
		}
		return sess, nil
	})
	srv := smtp.NewServer(be)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = opts.tlsConfig == nil
	srv.TLSConfig = opts.tlsConfig
	srv.ReadTimeout = 10 * time.Second
	if opts.readTimeout > 0 {
		srv.ReadTimeout = opts.readTimeout
	}
	srv.WriteTimeout = 10 * time.Second
	srv.MaxMessageBytes = 1 << 20
	srv.ErrorLog = discardLogger{}
	var l net.Listener
	var err error
	if opts.implicitTLS {
		l, err = tls.Listen("tcp", "127.0.0.1:0", opts.tlsConfig)
	} else {
		l, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = l.Addr().String()
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
func (discardLogger) Println(...any)        {}

func (s *smtpServer) port() string {
	_, p, _ := net.SplitHostPort(s.Addr)
	return p
}

// url is a GUICHET_SMTP_URL for this server, without TLS.
func (s *smtpServer) url() string {
	return "smtp://" + s.Addr + "?tls=none&from=no-reply@guichet.test"
}

func (s *smtpServer) messages() []receivedMail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]receivedMail(nil), s.received...)
}

func (s *smtpServer) setRcptReply(f func(n int) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rcptReply = f
}

func (s *smtpServer) setStall(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stall = f
}

func (s *smtpServer) setAfterData(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.afterData = f
}

func (s *smtpServer) setDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

func (s *smtpServer) sessionCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

type smtpSession struct {
	srv  *smtpServer
	from string
	to   []string
}

func (s *smtpSession) Reset()        { s.from, s.to = "", nil }
func (s *smtpSession) Logout() error { return nil }
func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.srv.mu.Lock()
	s.srv.rcpts++
	n, reply := s.srv.rcpts, s.srv.rcptReply
	s.srv.mu.Unlock()
	if reply != nil {
		if err := reply(n); err != nil {
			return err
		}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	s.srv.mu.Lock()
	stall, delay := s.srv.stall, s.srv.delay
	s.srv.mu.Unlock()
	if stall != nil {
		stall()
	}
	if delay > 0 {
		time.Sleep(delay)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return err // the client went away mid-message: nothing accepted
	}
	s.srv.mu.Lock()
	s.srv.received = append(s.srv.received, receivedMail{From: s.from, To: s.to, Data: data})
	after := s.srv.afterData
	s.srv.mu.Unlock()
	if after != nil {
		after()
	}
	return nil
}

type authSession struct {
	*smtpSession
	user, pass string
	authed     bool
}

func (a *authSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (a *authSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != a.user || pass != a.pass {
			return smtp.ErrAuthFailed
		}
		a.authed = true
		return nil
	}), nil
}

func (a *authSession) Mail(from string, opts *smtp.MailOptions) error {
	if !a.authed {
		return smtp.ErrAuthRequired
	}
	return a.smtpSession.Mail(from, opts)
}

// smtpTempFail and smtpPermFail are SMTP answers for the fault tests.
var (
	smtpTempFail = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	smtpPermFail = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
)

// parsedMail is a received message read back: headers and both parts.
type parsedMail struct {
	Header  netmail.Header
	Subject string
	Text    string
	HTML    string
}

func parseMail(t testing.TB, data []byte) parsedMail {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("read message: %v", err)
	}
	var out parsedMail
	out.Header = msg.Header
	dec := new(mime.WordDecoder)
	out.Subject, err = dec.DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatalf("subject: %v", err)
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/alternative" {
		t.Fatalf("Content-Type = %q, want multipart/alternative", msg.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("part: %v", err)
		}
		body, err := io.ReadAll(p) // quoted-printable is decoded by multipart
		if err != nil {
			t.Fatalf("part body: %v", err)
		}
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		switch ct {
		case "text/plain":
			out.Text = string(body)
		case "text/html":
			out.HTML = string(body)
		default:
			t.Fatalf("unexpected part %q", ct)
		}
	}
	return out
}

// newSMTPSender builds a sender for a test server.
func newSMTPSender(t testing.TB, rawURL string) *SMTPSender {
	t.Helper()
	s, err := NewSMTPSender(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func containsAll(s string, subs ...string) (string, bool) {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return sub, false
		}
	}
	return "", true
}
