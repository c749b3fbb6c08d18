package notify

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	mathrand "math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"guichet/internal/brand"
	"guichet/internal/store"
)

// Outbox states.
const (
	stateQueued    = "queued"
	stateSending   = "sending"
	stateSent      = "sent"
	stateFailed    = "failed"
	stateAbandoned = "abandoned"
)

// Worker defaults.
const (
	defaultConcurrency  = 4
	defaultLease        = 2 * time.Minute
	defaultSendTimeout  = 30 * time.Second
	defaultPollInterval = 2 * time.Second
	defaultRetryBase    = 30 * time.Second
	defaultRetryMax     = time.Hour
	defaultMaxAttempts  = 10
	defaultRetention    = 30 * 24 * time.Hour

	// housekeepingInterval spaces gauge refreshes; pruneInterval spaces the
	// deletion of old finished rows.
	housekeepingInterval = 5 * time.Second
	pruneInterval        = time.Hour
	// recordTimeout bounds writing an outcome, which is done even after
	// the worker's context ended (a sent message must be marked sent).
	recordTimeout = 10 * time.Second
	maxErrorText  = 500
)

// WorkerOptions tune a Worker; zero values take the defaults.
type WorkerOptions struct {
	// Concurrency is how many messages are delivered at once (default 4).
	Concurrency int
	// Lease is how long a claimed message is held; a message whose lease ran
	// out (its worker died) is claimed again (default 2 minutes).
	Lease time.Duration
	// SendTimeout bounds one delivery attempt (default 30 s); it is kept
	// under half the lease so a slow send never outlives its claim.
	SendTimeout time.Duration
	// PollInterval is how often an idle worker looks for due messages
	// (default 2 s); Poke wakes it at once.
	PollInterval time.Duration
	// RetryBase is the delay after the first temporary failure, doubled for
	// each further one up to RetryMax (defaults 30 s and 1 hour); the delay
	// is drawn between half and all of that (jitter).
	RetryBase, RetryMax time.Duration
	// MaxAttempts is how many temporary failures make a message failed
	// (default 10).
	MaxAttempts int
	// Retention is how long sent, failed and abandoned rows are kept
	// (default 30 days); negative keeps them forever.
	Retention time.Duration
	// SMSFrom maps a brand id to its SMS sender; the provider's default
	// sender is used for brands not listed.
	SMSFrom map[string]string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Rand returns a number in [0, 1) for the jitter (default math/rand/v2).
	Rand func() float64
	// Logger receives ids, templates and outcomes, never data or bodies
	// (default slog.Default()).
	Logger *slog.Logger
	// Metrics, when set, counts outcomes and tracks the queue.
	Metrics *Metrics
	// StopGrace is how long a delivery already under way may still run
	// once Run's context ends (an instance draining on SIGTERM): it
	// finishes and its outcome is recorded, so no message of a stopped
	// instance waits out its lease. Claims not yet tried are handed back
	// at once either way. 0 (the default): a delivery is cut at once and
	// stays claimed until its lease runs out (the server may have it).
	StopGrace time.Duration
	// Tracer, when set, starts a trace per delivery (trace.go).
	Tracer trace.TracerProvider
}

// Worker delivers the outbox. Several workers, in one process or in
// several instances sharing a PostgreSQL database, never deliver the same
// claim twice.
type Worker struct {
	db     *store.DB
	brands *brand.Registry
	email  EmailSender
	sms    SMSSender
	logout LogoutSender
	opts   WorkerOptions
	log    *slog.Logger

	poke     chan struct{}
	instance string
	seq      atomic.Uint64

	lastHousekeeping time.Time
	lastPrune        time.Time
}

// positiveOr is v, or def when v is zero or less (an option left unset).
func positiveOr[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// NewWorker returns a worker delivering email with email and SMS with sms
// (either may be nil when that channel is not configured: its messages then
// wait and are retried).
func NewWorker(db *store.DB, brands *brand.Registry, email EmailSender, sms SMSSender, opts WorkerOptions) *Worker {
	opts.Concurrency = positiveOr(opts.Concurrency, defaultConcurrency)
	opts.Lease = positiveOr(opts.Lease, defaultLease)
	opts.SendTimeout = positiveOr(opts.SendTimeout, defaultSendTimeout)
	opts.SendTimeout = min(opts.SendTimeout, opts.Lease/2)
	opts.PollInterval = positiveOr(opts.PollInterval, defaultPollInterval)
	opts.RetryBase = positiveOr(opts.RetryBase, defaultRetryBase)
	opts.RetryMax = positiveOr(opts.RetryMax, defaultRetryMax)
	opts.RetryMax = max(opts.RetryMax, opts.RetryBase)
	opts.MaxAttempts = positiveOr(opts.MaxAttempts, defaultMaxAttempts)
	if opts.Retention == 0 {
		opts.Retention = defaultRetention
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = mathrand.Float64
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Worker{
		db: db, brands: brands, email: email, sms: sms, opts: opts,
		log:      opts.Logger.With("component", "notify"),
		poke:     make(chan struct{}, 1),
		instance: rand.Text()[:12],
	}
}

// Poke wakes the worker to look for due messages now; call it after the
// transaction that enqueued a message commits. It never blocks.
func (w *Worker) Poke() {
	select {
	case w.poke <- struct{}{}:
	default:
	}
}

// Run delivers messages until ctx ends, then waits for the deliveries in
// flight to stop; call it once per Worker. A delivery cut short stays
// claimed (the server may have it) and is taken again once its lease runs
// out; a claim not yet tried is handed back. It returns an error only when
// the templates do not load.
func (w *Worker) Run(ctx context.Context) error {
	if _, err := loadTemplates(); err != nil {
		return err
	}
	// sendCtx carries the sends: ctx itself without a grace; with one, it
	// ends StopGrace after ctx, or once the last delivery returned.
	sendCtx, stopped := ctx, make(chan struct{})
	if w.opts.StopGrace > 0 {
		var cancelSends context.CancelFunc
		sendCtx, cancelSends = context.WithCancel(context.WithoutCancel(ctx))
		go func() {
			defer cancelSends()
			select {
			case <-ctx.Done():
			case <-stopped:
				return
			}
			t := time.NewTimer(w.opts.StopGrace)
			defer t.Stop()
			select {
			case <-t.C:
			case <-stopped:
			}
		}()
	}
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		close(stopped)
	}()
	slots := make(chan struct{}, w.opts.Concurrency)
	freed := make(chan struct{}, 1)
	for ctx.Err() == nil {
		free := cap(slots) - len(slots)
		claimed := 0
		if free > 0 {
			rows, err := w.claim(ctx, free)
			if err != nil && ctx.Err() == nil {
				w.log.ErrorContext(ctx, "outbox claim failed", "err", err)
			}
			claimed = len(rows)
			for _, r := range rows {
				slots <- struct{}{}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() {
						<-slots
						select {
						case freed <- struct{}{}:
						default:
						}
					}()
					w.deliverUntil(ctx, sendCtx, r)
				}()
			}
		}
		w.housekeeping(ctx) // rate-limited: a few queries a minute
		if claimed > 0 && claimed == free {
			continue // there may be more due right now
		}
		timer := time.NewTimer(w.opts.PollInterval)
		select {
		case <-ctx.Done():
		case <-w.poke:
		case <-freed:
		case <-timer.C:
		}
		timer.Stop()
	}
	return nil
}

// deliverDue claims and delivers every message due now, Concurrency at a
// time, and returns how many it handled. Tests drive the worker with it
// and an injected clock.
func (w *Worker) deliverDue(ctx context.Context) (int, error) {
	total := 0
	for {
		rows, err := w.claim(ctx, w.opts.Concurrency)
		if err != nil || len(rows) == 0 {
			return total, err
		}
		var wg sync.WaitGroup
		for _, r := range rows {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.deliver(ctx, r)
			}()
		}
		wg.Wait()
		total += len(rows)
	}
}

// outboxRow is a claimed message.
type outboxRow struct {
	id, brand, language, channel, to, template string
	data                                       map[string]string
	purged, sensitive                          bool
	expiresAt                                  int64
	attempts                                   int
	leaseToken                                 string
}

// claimDue is the due condition: queued and due (or expired, to be
// abandoned at once), or claimed by a worker whose lease ran out. Its first
// term matches the partial index outbox_pending, so finished rows are never
// scanned.
const claimDue = `state IN ('queued', 'sending') AND (
	(state = 'queued' AND (next_attempt_at <= ? OR (expires_at > 0 AND expires_at <= ?)))
	OR (state = 'sending' AND lease_until <= ?))`

// claim leases up to n due messages to this worker. PostgreSQL skips rows
// another worker is claiming (FOR UPDATE SKIP LOCKED); SQLite has one
// writer, so its single UPDATE is a claim by itself.
func (w *Worker) claim(ctx context.Context, n int) ([]outboxRow, error) {
	now := w.opts.Now().UnixMilli()
	token := w.instance + "-" + strconv.FormatUint(w.seq.Add(1), 36)
	lock := ""
	if w.db.Dialect == store.Postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	q := `UPDATE outbox SET state = 'sending', lease_token = ?, lease_until = ?, attempts = attempts + 1, updated_at = ?
		WHERE id IN (SELECT id FROM outbox WHERE ` + claimDue + `
			ORDER BY next_attempt_at, created_at LIMIT ?` + lock + `)
		RETURNING id, brand, language, channel, recipient, template, data, sensitive, expires_at, attempts`
	var rows []outboxRow
	err := w.db.InTx(ctx, func(tx *store.Tx) error {
		rows = rows[:0]
		rs, err := tx.Query(ctx, q, token, now+w.opts.Lease.Milliseconds(), now, now, now, now, n)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			r := outboxRow{leaseToken: token}
			var data string
			var sensitive int64
			if err := rs.Scan(&r.id, &r.brand, &r.language, &r.channel, &r.to, &r.template,
				&data, &sensitive, &r.expiresAt, &r.attempts); err != nil {
				return err
			}
			r.sensitive = sensitive != 0
			if data == "" {
				r.purged = true
			} else if err := json.Unmarshal([]byte(data), &r.data); err != nil {
				return fmt.Errorf("outbox %s: data: %w", r.id, err)
			}
			rows = append(rows, r)
		}
		return rs.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("notify: claim: %w", err)
	}
	return rows, nil
}

// deliver sends one claimed message and records the outcome.
func (w *Worker) deliver(ctx context.Context, r outboxRow) { w.deliverUntil(ctx, ctx, r) }

// deliverUntil is deliver whose send may outlive ctx until sendCtx ends
// (Run's StopGrace): a claim not yet tried when ctx ends is handed back.
func (w *Worker) deliverUntil(ctx, sendCtx context.Context, r outboxRow) {
	ctx, span := w.deliverySpan(ctx, r)
	defer span.End()
	sendCtx = trace.ContextWithSpan(sendCtx, span)
	log := w.log.With("id", r.id, "template", r.template, "channel", r.channel,
		"brand", r.brand, "attempt", r.attempts)
	now := w.opts.Now()
	if r.expiresAt > 0 && now.UnixMilli() >= r.expiresAt {
		w.record(ctx, log, r, stateAbandoned, "content expired before delivery", 0)
		return
	}
	if ctx.Err() != nil {
		w.release(ctx, log, r) // stopped before sending: nothing to wait for
		return
	}
	err := w.send(sendCtx, r, now)
	if err != nil && sendCtx.Err() != nil {
		log.InfoContext(ctx, "worker stopped mid-delivery; the message is taken again when its lease runs out")
		return
	}
	switch {
	case err == nil:
		w.record(ctx, log, r, stateSent, "", 0)
	case IsPermanent(err):
		w.record(ctx, log, r, stateFailed, err.Error(), 0)
	case r.attempts >= w.opts.MaxAttempts:
		w.record(ctx, log, r, stateFailed, fmt.Sprintf("gave up after %d attempts: %v", r.attempts, err), 0)
	default:
		w.record(ctx, log, r, stateQueued, err.Error(), now.Add(w.backoff(r.attempts)).UnixMilli())
	}
}

// send renders the message and hands it to the sender of its channel.
func (w *Worker) send(ctx context.Context, r outboxRow, now time.Time) error {
	if r.purged {
		return Permanent(errors.New("content was purged"))
	}
	b, ok := w.brands.ByID(r.brand)
	if !ok {
		return Permanent(fmt.Errorf("brand %q is not configured", r.brand))
	}
	ch := Channel(r.channel)
	if ch == ChannelLogout {
		if w.logout == nil {
			return errors.New("no back-channel logout sender configured")
		}
		ctx, cancel := context.WithTimeout(ctx, w.opts.SendTimeout)
		defer cancel()
		return w.logout.SendLogout(ctx, Logout{ID: r.id, Brand: r.brand, URI: r.to,
			Issuer: r.data[DataIssuer], ClientID: r.data[DataClient], Subject: r.data[DataSubject]})
	}
	out, err := Render(b, r.language, r.template, ch, r.data)
	if err != nil {
		return Permanent(err)
	}
	ctx, cancel := context.WithTimeout(ctx, w.opts.SendTimeout)
	defer cancel()
	switch ch {
	case ChannelEmail:
		if w.email == nil {
			return errors.New("no email sender configured")
		}
		return w.email.Send(ctx, Email{
			ID: r.id, To: r.to, FromName: b.Name.For(r.language), Subject: out.Subject, Text: out.Text, HTML: out.HTML,
			Date: now, Brand: r.brand, Language: r.language, Template: r.template,
		})
	case ChannelSMS:
		if w.sms == nil {
			return errors.New("no sms sender configured")
		}
		return w.sms.SendSMS(ctx, SMS{
			ID: r.id, To: r.to, From: w.opts.SMSFrom[r.brand], Body: out.SMS,
			Brand: r.brand, Language: r.language, Template: r.template,
		})
	}
	return Permanent(fmt.Errorf("unknown channel %q", r.channel))
}

// backoff is the delay before attempt n+1: RetryBase doubled n-1 times, at
// most RetryMax, drawn between half and all of it.
func (w *Worker) backoff(attempts int) time.Duration {
	d := w.opts.RetryBase
	for i := 1; i < attempts && d < w.opts.RetryMax; i++ {
		d *= 2
	}
	d = min(d, w.opts.RetryMax)
	return d/2 + time.Duration(w.opts.Rand()*float64(d/2))
}

// record writes the outcome of a claim, if the claim is still this
// worker's. Data holding a code or a link is purged once the message is
// done with (sent, failed or abandoned).
func (w *Worker) record(ctx context.Context, log *slog.Logger, r outboxRow, state, errText string, nextAttempt int64) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	now := w.opts.Now().UnixMilli()
	if len(errText) > maxErrorText {
		errText = errText[:maxErrorText]
	}
	var sentAt int64
	if state == stateSent {
		sentAt = now
	}
	purge := state != stateQueued
	res, err := w.db.Exec(ctx, `UPDATE outbox SET state = ?, updated_at = ?, lease_token = '', lease_until = 0,
		last_error = ?, sent_at = ?, next_attempt_at = ?,
		data = CASE WHEN sensitive = 1 AND ? = 1 THEN '' ELSE data END
		WHERE id = ? AND lease_token = ?`,
		state, now, errText, sentAt, nextAttempt, boolInt(purge), r.id, r.leaseToken)
	var n int64
	if err == nil {
		n, err = res.RowsAffected()
	}
	switch {
	case err != nil:
		log.ErrorContext(ctx, "outbox outcome not recorded; the message is taken again when its lease runs out",
			"state", state, "err", err)
		return
	case n == 0:
		log.WarnContext(ctx, "outbox lease lost before the outcome was recorded", "state", state)
		return
	}
	traceOutcome(ctx, state)
	ch := r.channel
	switch state {
	case stateSent:
		w.opts.Metrics.sent(ch)
		log.InfoContext(ctx, "notification sent")
	case stateQueued:
		w.opts.Metrics.retried(ch)
		log.WarnContext(ctx, "notification delivery failed; retrying later",
			"err", errText, "next", time.UnixMilli(nextAttempt).UTC())
	case stateFailed:
		w.opts.Metrics.failed(ch)
		log.ErrorContext(ctx, "notification failed", "err", errText)
	case stateAbandoned:
		w.opts.Metrics.abandoned(ch)
		log.WarnContext(ctx, "notification abandoned: its content expired before delivery")
	}
}

// release hands back a claim that was never tried, so the next worker
// need not wait for its lease.
func (w *Worker) release(ctx context.Context, log *slog.Logger, r outboxRow) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	_, err := w.db.Exec(ctx, `UPDATE outbox SET state = 'queued', lease_token = '', lease_until = 0,
		attempts = attempts - 1 WHERE id = ? AND lease_token = ?`, r.id, r.leaseToken)
	if err != nil {
		log.WarnContext(ctx, "outbox claim not released; it is taken again when its lease runs out", "err", err)
	}
}

// housekeeping refreshes the queue gauges and prunes old finished rows,
// each at its own pace.
func (w *Worker) housekeeping(ctx context.Context) {
	now := w.opts.Now()
	if now.Sub(w.lastHousekeeping) < housekeepingInterval {
		return
	}
	w.lastHousekeeping = now
	if w.opts.Metrics != nil {
		if err := w.opts.Metrics.refresh(ctx, w.db, now); err != nil && ctx.Err() == nil {
			w.log.WarnContext(ctx, "outbox gauges not refreshed", "err", err)
		}
	}
	if w.opts.Retention > 0 && now.Sub(w.lastPrune) >= pruneInterval {
		w.lastPrune = now
		if _, err := prune(ctx, w.db, now.Add(-w.opts.Retention)); err != nil && ctx.Err() == nil {
			w.log.WarnContext(ctx, "outbox prune failed", "err", err)
		}
	}
}

// prune deletes finished rows last changed before cutoff.
func prune(ctx context.Context, db *store.DB, cutoff time.Time) (int64, error) {
	res, err := db.Exec(ctx, `DELETE FROM outbox WHERE state IN ('sent', 'failed', 'abandoned') AND updated_at < ?`,
		cutoff.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("notify: prune: %w", err)
	}
	return res.RowsAffected()
}

// Logout is one back-channel logout to deliver (ChannelLogout).
type Logout struct {
	ID, Brand, URI            string
	Issuer, ClientID, Subject string
}

// LogoutSender delivers back-channel logouts (the OpenID provider signs the
// token and posts it). A Permanent error fails the row; any other is
// retried like a mail server's refusal.
type LogoutSender interface {
	SendLogout(ctx context.Context, l Logout) error
}

// UseLogout sets the back-channel logout sender; call it before Run.
func (w *Worker) UseLogout(s LogoutSender) { w.logout = s }
