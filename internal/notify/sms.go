package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// smsDefaultTimeout bounds one provider call when the client has none.
const smsDefaultTimeout = 30 * time.Second

// HTTPSMS sends text messages through an HTTP provider with the shape of
// the widely used one: a form post of To, From and Body with basic auth.
type HTTPSMS struct {
	endpoint   string // without credentials and without the from parameter
	user, pass string
	from       string
	client     *http.Client
}

var _ SMSSender = (*HTTPSMS)(nil)

// NewHTTPSMS reads a GUICHET_SMS_URL such as
//
//	https://ACCOUNT:TOKEN@api.provider.example/2010-04-01/Accounts/ACCOUNT/Messages.json?from=+15145550100
//
// The user and password are sent as basic auth, from is the default sender
// (an SMS.From overrides it). Plain http is accepted for a loopback host
// only. A nil client gets one with a 30-second timeout.
func NewHTTPSMS(rawURL string, client *http.Client) (*HTTPSMS, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New("sms url: not a URL")
	}
	switch {
	case u.Host == "":
		return nil, errors.New("sms url: no host")
	case u.Scheme == "https":
	case u.Scheme == "http" && isLoopback(u.Hostname()):
	default:
		return nil, fmt.Errorf("sms url: scheme must be https (http only for a loopback host), not %q", u.Scheme)
	}
	s := &HTTPSMS{client: client}
	if u.User != nil {
		s.user = u.User.Username()
		s.pass, _ = u.User.Password()
		u.User = nil
	}
	q := u.Query()
	s.from = q.Get("from")
	if s.from == "" {
		return nil, errors.New("sms url: from (the sender number) is required")
	}
	if strings.ContainsFunc(s.from, isControl) {
		return nil, errors.New("sms url: from holds control characters")
	}
	q.Del("from")
	u.RawQuery = q.Encode()
	s.endpoint = u.String()
	if s.client == nil {
		s.client = &http.Client{Timeout: smsDefaultTimeout}
	}
	return s, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// SendSMS posts one message. 2xx is success; 408, 429, 5xx, 401, 403 and
// network faults are temporary (the provider or its credentials may come
// back); other 4xx answers (a number the provider refuses) are permanent.
func (s *HTTPSMS) SendSMS(ctx context.Context, m SMS) error {
	to, err := normalisePhone(m.To)
	if err != nil || to != m.To {
		return Permanent(fmt.Errorf("sms: recipient is not E.164: %w", ErrInvalidAddress))
	}
	from := m.From
	if from == "" {
		from = s.from
	}
	form := url.Values{"To": {to}, "From": {from}, "Body": {m.Body}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return Permanent(fmt.Errorf("sms: %w", err))
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if m.ID != "" {
		// Honoured by providers that deduplicate; harmless elsewhere.
		req.Header.Set("Idempotency-Key", "outbox-"+m.ID)
	}
	if s.user != "" {
		req.SetBasicAuth(s.user, s.pass)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("sms: %w", err)
	}
	defer resp.Body.Close()
	// Drain a little so the connection can be reused; the body is not
	// quoted in errors (a provider may echo the message).
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	code := resp.StatusCode
	switch {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests,
		code == http.StatusUnauthorized, code == http.StatusForbidden, code >= 500:
		return fmt.Errorf("sms: provider answered %d", code)
	default:
		return Permanent(fmt.Errorf("sms: provider answered %d", code))
	}
}
