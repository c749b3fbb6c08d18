package notify

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"

	mail "github.com/wneessen/go-mail"
	mailsmtp "github.com/wneessen/go-mail/smtp"
)

// SMTP defaults.
const (
	smtpDefaultTimeout     = 30 * time.Second
	smtpDefaultIdleTimeout = 20 * time.Second
	smtpMaxIdle            = 8
)

// SMTPSender delivers email over SMTP with HTML and plain-text parts. It
// keeps a few idle connections for reuse; a send is cut short (its
// connection closed) when its context ends.
type SMTPSender struct {
	host        string
	port        int
	implicitTLS bool
	tlsPolicy   mail.TLSPolicy
	user, pass  string
	auth        []mail.SMTPAuthType
	from        string
	timeout     time.Duration
	tlsConfig   *tls.Config // nil: system roots, ServerName = host
	idleTimeout time.Duration
	now         func() time.Time

	mu   sync.Mutex
	idle []*smtpConn
}

var _ EmailSender = (*SMTPSender)(nil)

// NewSMTPSender reads a GUICHET_SMTP_URL:
//
//	smtp://user:pass@host:587?from=no-reply@example.com   STARTTLS (required)
//	smtps://user:pass@host:465?from=no-reply@example.com  implicit TLS
//
// Query parameters: from (required: the envelope and From address; the
// display name is the brand's), tls=starttls|opportunistic|none (smtp://
// only; credentials are never sent in clear text except to a loopback
// server), auth=plain|login|cram-md5|scram-sha-1|scram-sha-256 (default:
// the best the server offers of SCRAM-SHA-256, SCRAM-SHA-1, PLAIN, LOGIN),
// timeout (a Go duration, default 30s).
func NewSMTPSender(rawURL string) (*SMTPSender, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("smtp url: not a URL")
	}
	s := &SMTPSender{
		host:        u.Hostname(),
		tlsPolicy:   mail.TLSMandatory,
		timeout:     smtpDefaultTimeout,
		idleTimeout: smtpDefaultIdleTimeout,
		now:         time.Now,
		auth: []mail.SMTPAuthType{mail.SMTPAuthSCRAMSHA256, mail.SMTPAuthSCRAMSHA1,
			mail.SMTPAuthPlain, mail.SMTPAuthLogin},
	}
	switch u.Scheme {
	case "smtp":
		s.port = 587
	case "smtps":
		s.port, s.implicitTLS = 465, true
	default:
		return nil, fmt.Errorf("smtp url: scheme must be smtp or smtps, not %q", u.Scheme)
	}
	if s.host == "" {
		return nil, errors.New("smtp url: no host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("smtp url: bad port %q", p)
		}
		s.port = n
	}
	if u.User != nil {
		s.user = u.User.Username()
		s.pass, _ = u.User.Password()
	}
	q := u.Query()
	s.from = q.Get("from")
	if err := checkEmailAddress(s.from); err != nil {
		return nil, fmt.Errorf("smtp url: from=%q: %w", s.from, err)
	}
	switch t := q.Get("tls"); {
	case t == "" || t == "starttls":
	case s.implicitTLS:
		return nil, fmt.Errorf("smtp url: tls=%s does not apply to smtps://", t)
	case t == "opportunistic":
		s.tlsPolicy = mail.TLSOpportunistic
	case t == "none":
		s.tlsPolicy = mail.NoTLS
	default:
		return nil, fmt.Errorf("smtp url: tls=%q (starttls, opportunistic or none)", t)
	}
	if a := q.Get("auth"); a != "" {
		t, ok := map[string]mail.SMTPAuthType{"plain": mail.SMTPAuthPlain, "login": mail.SMTPAuthLogin,
			"cram-md5": mail.SMTPAuthCramMD5, "scram-sha-1": mail.SMTPAuthSCRAMSHA1,
			"scram-sha-256": mail.SMTPAuthSCRAMSHA256}[a]
		if !ok {
			return nil, fmt.Errorf("smtp url: auth=%q is not supported", a)
		}
		s.auth = []mail.SMTPAuthType{t}
	}
	if t := q.Get("timeout"); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("smtp url: timeout=%q", t)
		}
		s.timeout = d
	}
	return s, nil
}

// String describes the server without credentials.
func (s *SMTPSender) String() string {
	scheme := "smtp"
	if s.implicitTLS {
		scheme = "smtps"
	}
	return scheme + "://" + net.JoinHostPort(s.host, strconv.Itoa(s.port))
}

// smtpConn is one open SMTP session.
type smtpConn struct {
	client   *mail.Client
	session  *mailsmtp.Client
	guard    *connGuard
	lastUsed time.Time
}

// connGuard closes a connection from another goroutine (when a context
// ends), including one still being dialled.
type connGuard struct {
	mu     sync.Mutex
	conn   net.Conn
	closed bool
}

func (g *connGuard) set(c net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		_ = c.Close()
		return false
	}
	g.conn = c
	return true
}

func (g *connGuard) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	if g.conn != nil {
		_ = g.conn.Close()
	}
}

func (g *connGuard) isClosed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// Send delivers one email. SMTP 5xx answers are permanent (except 530 and
// 535, authentication: a configuration fault, retried); 4xx answers,
// network faults and timeouts are temporary.
func (s *SMTPSender) Send(ctx context.Context, e Email) error {
	msg, err := s.message(e)
	if err != nil {
		return err
	}
	conn, reused, err := s.conn(ctx)
	if err == nil {
		err = s.sendOn(ctx, conn, msg)
		// An idle connection the server has since closed fails its check
		// before anything is sent: try once more on a new one.
		var se *mail.SendError
		if reused && errors.As(err, &se) && se.Reason == mail.ErrConnCheck && ctx.Err() == nil {
			if conn, err = s.dial(ctx); err == nil {
				err = s.sendOn(ctx, conn, msg)
			}
		}
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("smtp %s: %w", s, ctx.Err())
	default:
		return classifySMTP(fmt.Errorf("smtp %s: %w", s, err))
	}
}

// sendOn sends msg on conn, closing conn when ctx ends first or the send
// fails, and keeping it for reuse otherwise.
func (s *SMTPSender) sendOn(ctx context.Context, conn *smtpConn, msg *mail.Msg) error {
	stop := context.AfterFunc(ctx, conn.guard.close)
	err := conn.client.SendWithSMTPClient(conn.session, msg)
	if !stop() {
		return ctx.Err()
	}
	if err != nil {
		conn.guard.close()
		return err
	}
	s.release(conn)
	return nil
}

// message builds the MIME message: From with the brand's name, one To,
// Message-ID from the outbox id, Content-Language, text and HTML parts.
func (s *SMTPSender) message(e Email) (*mail.Msg, error) {
	if err := checkEmailAddress(e.To); err != nil {
		return nil, Permanent(err)
	}
	if !validID(e.ID) {
		return nil, Permanent(fmt.Errorf("notify: message id %q", e.ID))
	}
	m := mail.NewMsg(mail.WithNoDefaultUserAgent())
	if err := m.FromFormat(e.FromName, s.from); err != nil {
		return nil, Permanent(fmt.Errorf("notify: from: %w", err))
	}
	if err := m.To(e.To); err != nil {
		return nil, Permanent(fmt.Errorf("notify: to: %w", err))
	}
	m.Subject(e.Subject)
	m.SetMessageIDWithValue(messageIDValue(e.ID))
	date := e.Date
	if date.IsZero() {
		date = s.now()
	}
	m.SetDateWithValue(date)
	if e.Language != "" {
		m.SetGenHeader(mail.HeaderContentLang, e.Language)
	}
	m.SetGenHeader(mail.Header("Auto-Submitted"), "auto-generated")
	m.SetBodyString(mail.TypeTextPlain, e.Text)
	if e.HTML != "" {
		m.AddAlternativeString(mail.TypeTextHTML, e.HTML)
	}
	return m, nil
}

func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !isAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// conn returns an idle connection (reused true) or dials a new one.
func (s *SMTPSender) conn(ctx context.Context) (c *smtpConn, reused bool, err error) {
	now := s.now()
	s.mu.Lock()
	for len(s.idle) > 0 {
		c := s.idle[len(s.idle)-1]
		s.idle = s.idle[:len(s.idle)-1]
		if now.Sub(c.lastUsed) < s.idleTimeout && !c.guard.isClosed() {
			s.mu.Unlock()
			return c, true, nil
		}
		c.guard.close()
	}
	s.mu.Unlock()
	c, err = s.dial(ctx)
	return c, false, err
}

func (s *SMTPSender) release(c *smtpConn) {
	c.lastUsed = s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.idle) >= smtpMaxIdle {
		c.guard.close()
		return
	}
	s.idle = append(s.idle, c)
}

func (s *SMTPSender) dial(ctx context.Context) (*smtpConn, error) {
	guard := &connGuard{}
	stop := context.AfterFunc(ctx, guard.close)
	defer stop()
	tlsConfig := s.tlsConfig.Clone()
	if tlsConfig == nil {
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if tlsConfig.ServerName == "" {
		tlsConfig.ServerName = s.host
	}
	dialer := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var c net.Conn
		var err error
		if s.implicitTLS {
			c, err = (&tls.Dialer{Config: tlsConfig}).DialContext(ctx, network, addr)
		} else {
			c, err = (&net.Dialer{}).DialContext(ctx, network, addr)
		}
		if err != nil {
			return nil, err
		}
		if !guard.set(c) {
			return nil, context.Canceled
		}
		return c, nil
	}
	opts := []mail.Option{
		mail.WithPort(s.port), mail.WithTimeout(s.timeout), mail.WithDialContextFunc(dialer),
		mail.WithTLSConfig(tlsConfig),
	}
	if s.implicitTLS {
		opts = append(opts, mail.WithSSL())
	} else {
		opts = append(opts, mail.WithTLSPolicy(s.tlsPolicy))
	}
	if s.user != "" {
		opts = append(opts, mail.WithUsername(s.user), mail.WithPassword(s.pass),
			mail.WithOpportunisticSMTPAuth(s.auth...))
	}
	client, err := mail.NewClient(s.host, opts...)
	if err != nil {
		return nil, err
	}
	session, err := client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		guard.close()
		return nil, err
	}
	return &smtpConn{client: client, session: session, guard: guard}, nil
}

// Close ends the idle connections.
func (s *SMTPSender) Close() error {
	s.mu.Lock()
	idle := s.idle
	s.idle = nil
	s.mu.Unlock()
	var errs []error
	for _, c := range idle {
		if err := c.client.CloseWithSMTPClient(c.session); err != nil {
			errs = append(errs, err)
		}
		c.guard.close()
	}
	return errors.Join(errs...)
}

// classifySMTP marks SMTP 5xx answers permanent, except authentication
// (530, 535), which is a configuration fault worth retrying once fixed.
func classifySMTP(err error) error {
	var se *mail.SendError
	if !errors.As(err, &se) {
		return err
	}
	code := se.ErrorCode()
	if code >= 500 && code < 600 && code != 530 && code != 535 {
		return Permanent(err)
	}
	return err
}
