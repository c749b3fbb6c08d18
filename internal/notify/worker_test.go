package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

const testLease = time.Minute

func testWorkerOptions(clock *testclock.Clock, log *slog.Logger) WorkerOptions {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return WorkerOptions{Concurrency: 4, Lease: testLease, SendTimeout: 5 * time.Second,
		RetryBase: time.Second, RetryMax: time.Minute, MaxAttempts: 10, PollInterval: 20 * time.Millisecond,
		Now: clock.Now, Rand: func() float64 { return 0.5 }, Logger: log}
}

func deliverDue(t testing.TB, w *Worker, want int) {
	t.Helper()
	n, err := w.deliverDue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Fatalf("deliverDue handled %d messages, want %d", n, want)
	}
}

func TestDeliveryHeadersPartsBrandAndLanguage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		reg := testenv.Brands(t)
		srv := startSMTP(t, smtpServerOptions{})
		clock := testclock.New()
		w := NewWorker(db, reg, newSMTPSender(t, srv.url()), nil, testWorkerOptions(clock, nil))

		data := map[string]string{DataCode: testCode, DataFirstName: "Élise", DataProvince: "qc"}
		id := enqueue(t, db, Message{Brand: "bna", Language: "fr", Channel: ChannelEmail, To: "elise@example.ca",
			Template: TemplateResetCode, Data: data})
		plainID := enqueue(t, db, Message{Brand: "intact", Language: "en", Channel: ChannelEmail, To: "sam@example.com",
			Template: TemplatePasswordChanged})
		deliverDue(t, w, 2)

		got := srv.messages()
		if len(got) != 2 {
			t.Fatalf("server received %d messages, want 2", len(got))
		}
		byTo := map[string]receivedMail{}
		for _, m := range got {
			byTo[m.To[0]] = m
		}
		raw := byTo["elise@example.ca"]
		if raw.From != "no-reply@guichet.test" || len(raw.To) != 1 {
			t.Fatalf("envelope: from %q to %q", raw.From, raw.To)
		}
		b := testenv.Brand(t, reg, "bna")
		want, err := Render(b, "fr", TemplateResetCode, ChannelEmail, data)
		if err != nil {
			t.Fatal(err)
		}
		m := parseMail(t, raw.Data)
		from, err := m.Header.AddressList("From")
		if err != nil || len(from) != 1 || from[0].Name != b.Name.For("fr") || from[0].Address != "no-reply@guichet.test" {
			t.Errorf("From = %v (%v)", from, err)
		}
		to, err := m.Header.AddressList("To")
		if err != nil || len(to) != 1 || to[0].Address != "elise@example.ca" {
			t.Errorf("To = %v (%v)", to, err)
		}
		headers := map[string]string{
			"Message-Id":       "<outbox-" + id + "@guichet>",
			"Content-Language": "fr",
			"Auto-Submitted":   "auto-generated",
			"Mime-Version":     "1.0",
		}
		for k, v := range headers {
			if got := m.Header.Get(k); got != v {
				t.Errorf("%s = %q, want %q", k, got, v)
			}
		}
		if date, err := m.Header.Date(); err != nil || !date.Equal(clock.Now().Truncate(time.Second)) {
			t.Errorf("Date = %v (%v), want the worker's clock %v", date, err, clock.Now())
		}
		if m.Subject != want.Subject || !strings.Contains(m.Subject, "réinitialisation") {
			t.Errorf("Subject = %q, want %q", m.Subject, want.Subject)
		}
		if text := strings.ReplaceAll(m.Text, "\r\n", "\n"); text != want.Text {
			t.Errorf("text part:\n%s\nwant:\n%s", text, want.Text)
		}
		if html := strings.ReplaceAll(m.HTML, "\r\n", "\n"); html != want.HTML {
			t.Errorf("html part differs from the rendering")
		}
		if miss, ok := containsAll(m.Text, testCode, "Bonjour Élise", b.Phone("qc"), b.Name.FR); !ok {
			t.Errorf("text part lacks %q", miss)
		}
		if miss, ok := containsAll(m.HTML, testCode, `lang="fr"`, b.Theme.Primary); !ok {
			t.Errorf("html part lacks %q", miss)
		}

		state, attempts, stored := outboxState(t, db, id)
		if state != stateSent || attempts != 1 || stored != "" {
			t.Errorf("sensitive row after delivery: state %s attempts %d data %q (want purged)", state, attempts, stored)
		}
		state, _, stored = outboxState(t, db, plainID)
		if state != stateSent || stored != "{}" {
			t.Errorf("plain row after delivery: state %s data %q", state, stored)
		}
		if en := parseMail(t, byTo["sam@example.com"].Data); en.Header.Get("Content-Language") != "en" ||
			!strings.Contains(en.Text, "Hello,") || !strings.Contains(en.Subject, testenv.Brand(t, reg, "intact").Name.EN) {
			t.Errorf("english message: %q %q", en.Subject, en.Header.Get("Content-Language"))
		}
		deliverDue(t, w, 0)
	})
}

func TestTemporaryFailuresThenDeliveredOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		srv := startSMTP(t, smtpServerOptions{})
		srv.setRcptReply(func(n int) error {
			if n <= 3 {
				return smtpTempFail
			}
			return nil
		})
		clock := testclock.New()
		metrics := NewMetrics(nil)
		opts := testWorkerOptions(clock, nil)
		opts.Metrics = metrics
		w := NewWorker(db, testenv.Brands(t), newSMTPSender(t, srv.url()), nil, opts)
		id := enqueue(t, db, resetCodeEmail("alex@example.com", testCode))

		var waits []time.Duration
		for attempt := 1; attempt <= 3; attempt++ {
			deliverDue(t, w, 1)
			state, attempts, data := outboxState(t, db, id)
			if state != stateQueued || attempts != attempt || data == "" {
				t.Fatalf("after 451 #%d: state %s attempts %d data %q", attempt, state, attempts, data)
			}
			var next int64
			var lastErr string
			if err := db.QueryRow(context.Background(), `SELECT next_attempt_at, last_error FROM outbox WHERE id = ?`, id).
				Scan(&next, &lastErr); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(lastErr, "451") {
				t.Errorf("last_error = %q", lastErr)
			}
			wait := time.UnixMilli(next).Sub(clock.Now())
			waits = append(waits, wait)
			deliverDue(t, w, 0) // not due before its next attempt time
			clock.Advance(wait)
		}
		// Backoff doubles: 1s, 2s, 4s, each drawn at 75% (Rand 0.5).
		for i, want := range []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second} {
			if waits[i] != want {
				t.Errorf("wait %d = %v, want %v", i+1, waits[i], want)
			}
		}
		deliverDue(t, w, 1)
		if got := len(srv.messages()); got != 1 {
			t.Fatalf("server accepted %d messages, want exactly 1", got)
		}
		if state, attempts, data := outboxState(t, db, id); state != stateSent || attempts != 4 || data != "" {
			t.Fatalf("state %s attempts %d data %q", state, attempts, data)
		}
		clock.Advance(time.Hour)
		deliverDue(t, w, 0)
		if got := len(srv.messages()); got != 1 {
			t.Fatalf("server accepted %d messages after the delivery", got)
		}
		if got := counterValue(t, metrics.retriedC, "email"); got != 3 {
			t.Errorf("retried counter = %v", got)
		}
		if got := counterValue(t, metrics.sentC, "email"); got != 1 {
			t.Errorf("sent counter = %v", got)
		}
	})
}

func TestPermanentFailureIsNotRetried(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		srv := startSMTP(t, smtpServerOptions{})
		srv.setRcptReply(func(int) error { return smtpPermFail })
		clock := testclock.New()
		opts := testWorkerOptions(clock, nil)
		opts.Metrics = NewMetrics(nil)
		w := NewWorker(db, testenv.Brands(t), newSMTPSender(t, srv.url()), nil, opts)
		id := enqueue(t, db, resetCodeEmail("nobody@example.com", testCode))
		deliverDue(t, w, 1)
		state, attempts, data := outboxState(t, db, id)
		if state != stateFailed || attempts != 1 || data != "" {
			t.Fatalf("after 550: state %s attempts %d data %q", state, attempts, data)
		}
		clock.Advance(24 * time.Hour)
		deliverDue(t, w, 0)
		srv.mu.Lock()
		rcpts := srv.rcpts
		srv.mu.Unlock()
		if rcpts != 1 {
			t.Fatalf("the server saw %d RCPT attempts, want 1", rcpts)
		}
		if got := counterValue(t, opts.Metrics.failedC, "email"); got != 1 {
			t.Errorf("failed counter = %v", got)
		}
	})
}

func TestMaxAttemptsFails(t *testing.T) {
	db := storetest.Open(t)
	srv := startSMTP(t, smtpServerOptions{})
	srv.setRcptReply(func(int) error { return smtpTempFail })
	clock := testclock.New()
	opts := testWorkerOptions(clock, nil)
	opts.MaxAttempts = 3
	w := NewWorker(db, testenv.Brands(t), newSMTPSender(t, srv.url()), nil, opts)
	id := enqueue(t, db, resetCodeEmail("alex@example.com", testCode))
	for i := 0; i < 3; i++ {
		deliverDue(t, w, 1)
		clock.Advance(time.Hour)
	}
	if state, attempts, _ := outboxState(t, db, id); state != stateFailed || attempts != 3 {
		t.Fatalf("state %s attempts %d", state, attempts)
	}
	deliverDue(t, w, 0)
}

func TestExpiredContentIsAbandoned(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		srv := startSMTP(t, smtpServerOptions{})
		clock := testclock.New()
		opts := testWorkerOptions(clock, nil)
		opts.Metrics = NewMetrics(nil)
		opts.RetryBase = 20 * time.Minute // the retry would come after the code expired
		w := NewWorker(db, testenv.Brands(t), newSMTPSender(t, srv.url()), nil, opts)

		// Never attempted before it expired.
		m := resetCodeEmail("alex@example.com", testCode)
		m.ExpiresAt = clock.Now().Add(10 * time.Minute)
		first := enqueue(t, db, m)
		clock.Advance(11 * time.Minute)
		deliverDue(t, w, 1)
		if state, _, data := outboxState(t, db, first); state != stateAbandoned || data != "" {
			t.Fatalf("expired before any attempt: state %s data %q", state, data)
		}
		if n := srv.sessionCount(); n != 0 {
			t.Fatalf("an expired message reached SMTP (%d sessions)", n)
		}

		// Failed once, expired while waiting for its retry: abandoned at
		// expiry, not at the (later) retry time.
		srv.setRcptReply(func(int) error { return smtpTempFail })
		m.ExpiresAt = clock.Now().Add(10 * time.Minute)
		second := enqueue(t, db, m)
		deliverDue(t, w, 1)
		if state, _, _ := outboxState(t, db, second); state != stateQueued {
			t.Fatalf("after a 451: %s", state)
		}
		srv.setRcptReply(nil)
		clock.Advance(10 * time.Minute)
		deliverDue(t, w, 1)
		if state, _, data := outboxState(t, db, second); state != stateAbandoned || data != "" {
			t.Fatalf("expired while waiting: state %s data %q", state, data)
		}
		if got := len(srv.messages()); got != 0 {
			t.Fatalf("expired content was delivered %d times", got)
		}
		if got := counterValue(t, opts.Metrics.abandonedC, "email"); got != 2 {
			t.Errorf("abandoned counter = %v", got)
		}
	})
}

// TestStoppedMidDeliveryIsDeliveredAfterTheLease stops a worker while the
// SMTP server stalls, then lets a new worker take the message once the
// lease runs out. Stalled before the message data, the server never had
// it: one delivery. Stalled after the data but before its 250 answer, the
// server had it and the sender cannot know: it comes again with the same
// Message-ID, so the retry is recognisable (delivery is at least once).
func TestStoppedMidDeliveryIsDeliveredAfterTheLease(t *testing.T) {
	cases := []struct {
		name  string
		stall func(srv *smtpServer, hook func())
		want  int
	}{
		{"stalled before the data", func(srv *smtpServer, hook func()) {
			srv.setRcptReply(func(n int) error {
				if n == 1 {
					hook()
					return smtpTempFail
				}
				return nil
			})
		}, 1},
		{"stalled after the data", func(srv *smtpServer, hook func()) {
			var once sync.Once
			srv.setAfterData(func() { once.Do(hook) })
		}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				srv := startSMTP(t, smtpServerOptions{})
				entered, release := make(chan struct{}), make(chan struct{})
				var releaseOnce sync.Once
				unblock := func() { releaseOnce.Do(func() { close(release) }) }
				t.Cleanup(unblock)
				c.stall(srv, func() {
					close(entered)
					<-release
				})
				clock := testclock.New()
				reg := testenv.Brands(t)
				w1 := NewWorker(db, reg, newSMTPSender(t, srv.url()), nil, testWorkerOptions(clock, nil))
				stop, done := goRun(w1)

				id := enqueue(t, db, resetCodeEmail("alex@example.com", testCode))
				w1.Poke()
				<-entered
				stop() // the process stops while the server stalls
				// Run returns while the server still stalls.
				if err := <-done; err != nil {
					t.Fatalf("Run = %v", err)
				}
				state, attempts, _ := outboxState(t, db, id)
				if state != stateSending || attempts != 1 {
					t.Fatalf("after the stop: state %s attempts %d, want a live claim", state, attempts)
				}
				unblock()

				w2 := NewWorker(db, reg, newSMTPSender(t, srv.url()), nil, testWorkerOptions(clock, nil))
				deliverDue(t, w2, 0) // the lease still holds
				clock.Advance(testLease + time.Second)
				deliverDue(t, w2, 1)
				got := waitMessages(t, srv, c.want)
				for _, m := range got {
					if mid := parseMail(t, m.Data).Header.Get("Message-Id"); mid != "<outbox-"+id+"@guichet>" {
						t.Errorf("Message-ID = %q", mid)
					}
				}
				if state, attempts, _ := outboxState(t, db, id); state != stateSent || attempts != 2 {
					t.Fatalf("after the lease: state %s attempts %d", state, attempts)
				}
			})
		})
	}
}

// waitMessages waits for the server to hold n messages (a stalled session
// may still be finishing) and checks it holds no more.
func waitMessages(t testing.TB, srv *smtpServer, n int) []receivedMail {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := srv.messages()
		if len(got) > n {
			t.Fatalf("server received %d messages, want %d", len(got), n)
		}
		if len(got) == n {
			time.Sleep(50 * time.Millisecond)
			if got = srv.messages(); len(got) != n {
				t.Fatalf("server received %d messages, want %d", len(got), n)
			}
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("server received %d messages, want %d", len(got), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTwoWorkersSendNothingTwiceAndLoseNothing(t *testing.T) {
	const total = 200
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		srv := startSMTP(t, smtpServerOptions{})
		srv.setDelay(time.Millisecond)
		reg := testenv.Brands(t)
		ids := map[string]bool{}
		err := db.InTx(context.Background(), func(tx *store.Tx) error {
			for i := 0; i < total; i++ {
				id, err := Enqueue(context.Background(), tx, resetCodeEmail(fmt.Sprintf("user%d@example.com", i), testCode))
				if err != nil {
					return err
				}
				ids[id] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for i := 0; i < 2; i++ {
			opts := testWorkerOptions(testclock.At(time.Time{}), nil)
			opts.Now = time.Now
			w := NewWorker(db, reg, newSMTPSender(t, srv.url()), nil, opts)
			wg.Go(func() {
				if err := w.Run(ctx); err != nil {
					t.Error(err)
				}
			})
		}
		deadline := time.Now().Add(2 * time.Minute)
		for {
			var sent int
			if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE state = 'sent'`).Scan(&sent); err != nil {
				t.Fatal(err)
			}
			if sent == total {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("only %d of %d sent", sent, total)
			}
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
		wg.Wait()
		got := srv.messages()
		if len(got) != total {
			t.Fatalf("server received %d messages, want %d", len(got), total)
		}
		seen := map[string]int{}
		for _, m := range got {
			mid := parseMail(t, m.Data).Header.Get("Message-Id")
			seen[mid]++
		}
		for id := range ids {
			if n := seen["<outbox-"+id+"@guichet>"]; n != 1 {
				t.Errorf("message %s delivered %d times", id, n)
			}
		}
	})
}

// smsProvider is an httptest server with the widely used SMS API's shape.
type smsProvider struct {
	*httptest.Server
	mu       sync.Mutex
	requests []url.Values
	status   int
	auth     [2]string
	idemKeys []string
}

func startSMSProvider(t testing.TB) *smsProvider {
	p := &smsProvider{status: http.StatusCreated}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		if r.Method != http.MethodPost || r.URL.Path != "/2010-04-01/Accounts/AC1/Messages.json" ||
			r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || user != "AC1" || pass != "tok" {
			http.Error(w, `{"code": 20003}`, http.StatusUnauthorized)
			return
		}
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		p.requests = append(p.requests, r.PostForm)
		p.auth = [2]string{user, pass}
		p.idemKeys = append(p.idemKeys, r.Header.Get("Idempotency-Key"))
		w.WriteHeader(p.status)
		_, _ = io.WriteString(w, `{"sid": "SM1", "body": "`+r.PostForm.Get("Body")+`"}`)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *smsProvider) url() string {
	u, _ := url.Parse(p.Server.URL)
	return "http://AC1:tok@" + u.Host + "/2010-04-01/Accounts/AC1/Messages.json?from=%2B15145550100"
}

func (p *smsProvider) setStatus(code int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status = code
}

func TestSMSDeliveryThroughTheWorker(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		provider := startSMSProvider(t)
		sms, err := NewHTTPSMS(provider.url(), provider.Client())
		if err != nil {
			t.Fatal(err)
		}
		clock := testclock.New()
		opts := testWorkerOptions(clock, nil)
		opts.SMSFrom = map[string]string{"intact": "+15145550199"}
		reg := testenv.Brands(t)
		w := NewWorker(db, reg, nil, sms, opts)
		fr := enqueue(t, db, Message{Brand: "belair", Language: "fr", Channel: ChannelSMS, To: "5145550123",
			Template: TemplateRegistrationCode, Data: map[string]string{DataCode: testCode}})
		en := enqueue(t, db, Message{Brand: "intact", Language: "en", Channel: ChannelSMS, To: "+15145550124",
			Template: TemplateResetCode, Data: map[string]string{DataCode: "135790"}})
		deliverDue(t, w, 2)
		provider.mu.Lock()
		reqs := provider.requests
		keys := provider.idemKeys
		provider.mu.Unlock()
		if len(reqs) != 2 {
			t.Fatalf("provider got %d requests", len(reqs))
		}
		byTo := map[string]url.Values{}
		for _, r := range reqs {
			byTo[r.Get("To")] = r
		}
		belair := byTo["+15145550123"]
		if belair.Get("From") != "+15145550100" || !strings.Contains(belair.Get("Body"), testCode) ||
			!strings.Contains(belair.Get("Body"), "code de sécurité") || !strings.Contains(belair.Get("Body"), testenv.Brand(t, reg, "belair").Name.FR) {
			t.Errorf("belair sms: %v", belair)
		}
		intact := byTo["+15145550124"]
		if intact.Get("From") != "+15145550199" || !strings.Contains(intact.Get("Body"), "135790") ||
			!strings.Contains(intact.Get("Body"), "password reset code") {
			t.Errorf("intact sms: %v", intact)
		}
		for _, id := range []string{fr, en} {
			if state, _, data := outboxState(t, db, id); state != stateSent || data != "" {
				t.Errorf("sms %s: state %s data %q", id, state, data)
			}
			found := false
			for _, k := range keys {
				found = found || k == "outbox-"+id
			}
			if !found {
				t.Errorf("no Idempotency-Key for %s in %v", id, keys)
			}
		}
	})
}

func TestHTTPSMS(t *testing.T) {
	provider := startSMSProvider(t)
	sms, err := NewHTTPSMS(provider.url(), provider.Client())
	if err != nil {
		t.Fatal(err)
	}
	msg := SMS{ID: "abc", To: "+15145550123", Body: "hello"}
	cases := []struct {
		status    int
		ok        bool
		permanent bool
	}{
		{http.StatusCreated, true, false},
		{http.StatusOK, true, false},
		{http.StatusBadRequest, false, true},
		{http.StatusNotFound, false, true},
		{http.StatusTooManyRequests, false, false},
		{http.StatusRequestTimeout, false, false},
		{http.StatusInternalServerError, false, false},
		{http.StatusServiceUnavailable, false, false},
	}
	for _, c := range cases {
		provider.setStatus(c.status)
		err := sms.SendSMS(context.Background(), msg)
		if (err == nil) != c.ok || IsPermanent(err) != c.permanent {
			t.Errorf("status %d: SendSMS = %v, want ok=%v permanent=%v", c.status, err, c.ok, c.permanent)
		}
		if err != nil && strings.Contains(err.Error(), "hello") {
			t.Errorf("the error quotes the body: %v", err)
		}
	}
	provider.setStatus(http.StatusCreated)
	// Wrong credentials: 401, temporary (fix the configuration, messages wait).
	wrong, err := NewHTTPSMS(strings.Replace(provider.url(), ":tok@", ":nope@", 1), provider.Client())
	if err != nil {
		t.Fatal(err)
	}
	if err := wrong.SendSMS(context.Background(), msg); err == nil || IsPermanent(err) {
		t.Errorf("401: %v, want a temporary error", err)
	}
	// A recipient that is not E.164 never reaches the provider.
	provider.mu.Lock()
	before := len(provider.requests)
	provider.mu.Unlock()
	for _, to := range []string{"5145550123", "+1514555012\n3", "", "+15145550123&To=+15145550999"} {
		if err := sms.SendSMS(context.Background(), SMS{To: to, Body: "x"}); !IsPermanent(err) {
			t.Errorf("SendSMS(%q) = %v, want permanent", to, err)
		}
	}
	provider.mu.Lock()
	after := len(provider.requests)
	provider.mu.Unlock()
	if after != before {
		t.Errorf("bad recipients reached the provider")
	}
	// The provider is down: temporary.
	down, _ := NewHTTPSMS("http://127.0.0.1:1/x?from=%2B1", &http.Client{Timeout: time.Second})
	if err := down.SendSMS(context.Background(), msg); err == nil || IsPermanent(err) {
		t.Errorf("unreachable provider: %v", err)
	}
}

func TestNewHTTPSMS(t *testing.T) {
	cases := []struct {
		url string
		ok  bool
	}{
		{"https://AC1:tok@api.sms.example/2010-04-01/Accounts/AC1/Messages.json?from=%2B15145550100", true},
		{"http://127.0.0.1:8081/sms?from=%2B15145550100", true},
		{"http://localhost:8081/sms?from=Guichet", true},
		{"http://api.sms.example/sms?from=%2B15145550100", false},
		{"ftp://api.sms.example/sms?from=%2B15145550100", false},
		{"https://api.sms.example/sms", false},
		{"https://api.sms.example/sms?from=%2B1%0A", false},
		{"https:///sms?from=1", false},
		{"::", false},
	}
	for _, c := range cases {
		s, err := NewHTTPSMS(c.url, nil)
		if (err == nil) != c.ok {
			t.Errorf("NewHTTPSMS(%q) = %v, want ok=%v", c.url, err, c.ok)
			continue
		}
		if err == nil && (strings.Contains(s.endpoint, "tok") || strings.Contains(s.endpoint, "from=")) {
			t.Errorf("endpoint keeps credentials or from: %q", s.endpoint)
		}
	}
}

func TestUndeliverableMessages(t *testing.T) {
	db := storetest.Open(t)
	clock := testclock.New()
	w := NewWorker(db, testenv.Brands(t), nil, nil, testWorkerOptions(clock, nil))
	unknownBrand := enqueue(t, db, Message{Brand: "nobrand", Language: "en", Channel: ChannelEmail,
		To: "alex@example.com", Template: TemplatePasswordChanged})
	noSender := enqueue(t, db, resetCodeEmail("alex@example.com", testCode))
	deliverDue(t, w, 2)
	if state, _, _ := outboxState(t, db, unknownBrand); state != stateFailed {
		t.Errorf("unknown brand: %s, want failed", state)
	}
	if state, _, data := outboxState(t, db, noSender); state != stateQueued || data == "" {
		t.Errorf("no sender configured: %s, want queued with its data", state)
	}
}

func TestBackoff(t *testing.T) {
	cases := []struct {
		attempts int
		rand     float64
		want     time.Duration
	}{
		{1, 0, 15 * time.Second},
		{1, 0.999999, 30 * time.Second},
		{2, 0, 30 * time.Second},
		{3, 0.5, 90 * time.Second},
		{8, 0, 30 * time.Minute},
		{20, 0, 30 * time.Minute},
		{1000, 0.5, 45 * time.Minute},
	}
	for _, c := range cases {
		w := NewWorker(nil, nil, nil, nil, WorkerOptions{Rand: func() float64 { return c.rand }})
		got := w.backoff(c.attempts)
		if got.Round(time.Second) != c.want {
			t.Errorf("backoff(%d, rand %v) = %v, want %v", c.attempts, c.rand, got, c.want)
		}
	}
}

func TestNewWorkerKeepsSendsInsideTheLease(t *testing.T) {
	w := NewWorker(nil, nil, nil, nil, WorkerOptions{Lease: 10 * time.Second, SendTimeout: time.Minute})
	if w.opts.SendTimeout != 5*time.Second {
		t.Fatalf("SendTimeout = %v, want half the lease", w.opts.SendTimeout)
	}
}

func TestRunDeliversOnPokeAndStops(t *testing.T) {
	db := storetest.Open(t)
	srv := startSMTP(t, smtpServerOptions{})
	opts := testWorkerOptions(testclock.New(), nil)
	opts.Now = time.Now
	opts.PollInterval = time.Hour // only Poke can wake it
	w := NewWorker(db, testenv.Brands(t), newSMTPSender(t, srv.url()), nil, opts)
	stop, done := goRun(w)
	time.Sleep(50 * time.Millisecond) // let Run go idle
	enqueue(t, db, resetCodeEmail("alex@example.com", testCode))
	w.Poke()
	w.Poke() // never blocks
	waitMessages(t, srv, 1)
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestNoCodeOrLinkInLogs(t *testing.T) {
	db := storetest.Open(t)
	logs := testenv.CaptureLog(t)
	log := slog.Default()

	srv := startSMTP(t, smtpServerOptions{})
	provider := startSMSProvider(t)
	sms, err := NewHTTPSMS(provider.url(), provider.Client())
	if err != nil {
		t.Fatal(err)
	}
	clock := testclock.New()
	reg := testenv.Brands(t)
	queueAll := func() {
		for _, name := range Templates() {
			for _, ch := range catalogue[name].channels {
				to := "alex@example.com"
				if ch == ChannelSMS {
					to = "5145550123"
				}
				data := sampleData(name)
				if name == TemplateLockedAccount || name == TemplateAccountCreated {
					data[DataLink] = testLink
				}
				enqueue(t, db, Message{Brand: "belair", Language: "fr", Channel: ch, To: to, Template: name,
					Data: data, Sensitive: true})
			}
		}
	}
	senders := []struct {
		name  string
		email EmailSender
		sms   SMSSender
		reply func(int) error
	}{
		{"smtp and http sms", newSMTPSender(t, srv.url()), sms, nil},
		{"smtp 451", newSMTPSender(t, srv.url()), sms, func(int) error { return smtpTempFail }},
		{"smtp 550", newSMTPSender(t, srv.url()), sms, func(int) error { return smtpPermFail }},
		{"log sender", &LogSender{Logger: log}, &LogSender{}, nil},
		{"dev mailbox", NewMailbox(db, reg), NewMailbox(db, reg), nil},
	}
	for _, s := range senders {
		srv.setRcptReply(s.reply)
		queueAll()
		w := NewWorker(db, reg, s.email, s.sms, testWorkerOptions(clock, log))
		if n, err := w.deliverDue(context.Background()); err != nil || n == 0 {
			t.Fatalf("%s: deliverDue = %d, %v", s.name, n, err)
		}
		clock.Advance(time.Hour)
	}
	out := logs.String()
	for _, want := range []string{"notification sent", "retrying later", "notification failed", "GUICHET_MAIL=log",
		"reset-link", "alex@example.com"} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %q", want)
		}
	}
	for _, secret := range []string{testCode, "S3CR3T", "token="} {
		if strings.Contains(out, secret) {
			t.Fatalf("a log line holds %q:\n%s", secret, out)
		}
	}
}

func TestRetryAfterTheFactAndList(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		srv := startSMTP(t, smtpServerOptions{})
		srv.setRcptReply(func(int) error { return smtpPermFail })
		clock := testclock.New()
		w := NewWorker(db, testenv.Brands(t), newSMTPSender(t, srv.url()), nil, testWorkerOptions(clock, nil))
		plain := enqueue(t, db, Message{Brand: "belair", Language: "en", Channel: ChannelEmail, To: "alex@example.com",
			Template: TemplateAccountCreated})
		secret := enqueue(t, db, resetCodeEmail("sam@example.com", testCode))
		deliverDue(t, w, 2)

		var out strings.Builder
		if err := list(ctx, db, &out, clock.Now()); err != nil {
			t.Fatal(err)
		}
		if miss, ok := containsAll(out.String(), "outbox: failed 2", plain, secret, "account-created", "reset-code (purged)",
			"550", "sam@example.com"); !ok {
			t.Fatalf("list lacks %q:\n%s", miss, out.String())
		}
		if strings.Contains(out.String(), testCode) {
			t.Fatalf("list shows the code")
		}

		if err := retry(ctx, db, secret, clock.Now()); !errors.Is(err, ErrPurged) {
			t.Errorf("retry of a purged message = %v", err)
		}
		if err := retry(ctx, db, "nope", clock.Now()); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("retry of an unknown id = %v", err)
		}
		srv.setRcptReply(nil)
		if err := retry(ctx, db, plain, clock.Now()); err != nil {
			t.Fatal(err)
		}
		if state, attempts, _ := outboxState(t, db, plain); state != stateQueued || attempts != 0 {
			t.Fatalf("after retry: %s %d", state, attempts)
		}
		deliverDue(t, w, 1)
		if state, _, _ := outboxState(t, db, plain); state != stateSent {
			t.Fatalf("retried message: %s", state)
		}
		if err := retry(ctx, db, plain, clock.Now()); !errors.Is(err, ErrAlreadySent) {
			t.Errorf("retry of a sent message = %v", err)
		}

		// A queued message waiting for its backoff is made due now.
		srv.setRcptReply(func(int) error { return smtpTempFail })
		waiting := enqueue(t, db, resetCodeEmail("kim@example.com", testCode))
		deliverDue(t, w, 1)
		deliverDue(t, w, 0)
		if err := retry(ctx, db, waiting, clock.Now()); err != nil {
			t.Fatal(err)
		}
		srv.setRcptReply(nil)
		deliverDue(t, w, 1)
		if state, attempts, _ := outboxState(t, db, waiting); state != stateSent || attempts != 2 {
			t.Fatalf("waiting message after retry: %s %d", state, attempts)
		}

		// Being delivered, or expired: refused.
		m := resetCodeEmail("lee@example.com", testCode)
		m.ExpiresAt = time.Now().Add(10 * time.Minute)
		busy := enqueue(t, db, m)
		if _, err := w.claim(ctx, 10); err != nil {
			t.Fatal(err)
		}
		if err := retry(ctx, db, busy, clock.Now()); !errors.Is(err, ErrBeingSent) {
			t.Errorf("retry while being sent = %v", err)
		}
		if err := retry(ctx, db, busy, clock.Now().Add(time.Hour)); !errors.Is(err, ErrContentStale) {
			t.Errorf("retry of expired content = %v", err)
		}
		if err := List(ctx, db, io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}

func TestPrune(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	old := enqueue(t, db, resetCodeEmail("a@example.com", testCode))
	fresh := enqueue(t, db, resetCodeEmail("b@example.com", testCode))
	waiting := enqueue(t, db, resetCodeEmail("c@example.com", testCode))
	past := time.Now().Add(-40 * 24 * time.Hour).UnixMilli()
	for _, q := range []struct {
		id    string
		state string
		at    int64
	}{{old, stateSent, past}, {fresh, stateSent, time.Now().UnixMilli()}, {waiting, stateQueued, past}} {
		if _, err := db.Exec(ctx, `UPDATE outbox SET state = ?, updated_at = ? WHERE id = ?`, q.state, q.at, q.id); err != nil {
			t.Fatal(err)
		}
	}
	n, err := prune(ctx, db, time.Now().Add(-defaultRetention))
	if err != nil || n != 1 {
		t.Fatalf("prune = %d, %v", n, err)
	}
	var left int
	if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE id IN (?, ?)`, fresh, waiting).Scan(&left); err != nil || left != 2 {
		t.Fatalf("prune removed too much: %d left (%v)", left, err)
	}
}

func TestClaimNotTriedIsHandedBackOnStop(t *testing.T) {
	db := storetest.Open(t)
	clock := testclock.New()
	srv := startSMTP(t, smtpServerOptions{})
	w := NewWorker(db, testenv.Brands(t), newSMTPSender(t, srv.url()), nil, testWorkerOptions(clock, nil))
	id := enqueue(t, db, resetCodeEmail("alex@example.com", testCode))
	rows, err := w.claim(context.Background(), 1)
	if err != nil || len(rows) != 1 {
		t.Fatalf("claim = %v, %v", rows, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w.deliver(ctx, rows[0])
	if state, attempts, _ := outboxState(t, db, id); state != stateQueued || attempts != 0 {
		t.Fatalf("after a stop before sending: state %s attempts %d", state, attempts)
	}
	deliverDue(t, w, 1) // due again at once, no lease to wait for
	waitMessages(t, srv, 1)
}

// TestStopGraceFinishesTheDeliveryUnderWay stops a worker (an instance
// draining on SIGTERM) while the SMTP server holds its message's data: with
// a StopGrace the delivery finishes, is recorded sent once, and nothing is
// left claimed for a lease to run out; the message queued meanwhile is not
// claimed by the stopping worker and another worker delivers it at once.
func TestStopGraceFinishesTheDeliveryUnderWay(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		srv := startSMTP(t, smtpServerOptions{})
		entered, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		srv.setAfterData(func() {
			once.Do(func() {
				close(entered)
				<-release
			})
		})
		clock := testclock.New()
		opts := testWorkerOptions(clock, nil)
		opts.Concurrency, opts.StopGrace = 1, time.Minute
		w := NewWorker(db, testenv.Brands(t), newSMTPSender(t, srv.url()), nil, opts)
		stop, done := goRun(w)
		first := enqueue(t, db, resetCodeEmail("alex@example.com", testCode))
		w.Poke()
		<-entered
		second := enqueue(t, db, resetCodeEmail("sam@example.com", testCode))
		stop() // SIGTERM while the server holds the first message
		close(release)
		if err := <-done; err != nil {
			t.Fatalf("Run = %v", err)
		}
		if state, attempts, _ := outboxState(t, db, first); state != stateSent || attempts != 1 {
			t.Fatalf("the delivery under way: state %s attempts %d, want sent once", state, attempts)
		}
		if state, attempts, _ := outboxState(t, db, second); state != stateQueued || attempts != 0 {
			t.Fatalf("the message not yet tried: state %s attempts %d, want queued", state, attempts)
		}
		waitMessages(t, srv, 1)
		w2 := NewWorker(db, testenv.Brands(t), newSMTPSender(t, srv.url()), nil, testWorkerOptions(clock, nil))
		deliverDue(t, w2, 1) // no lease to wait for
		waitMessages(t, srv, 2)
	})
}
