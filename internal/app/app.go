// Package app wires Guichet together in one place: configuration, store,
// brands, services and the HTTP server.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/trace"

	"guichet/config"
	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/audit"
	"guichet/internal/brand"
	"guichet/internal/chat"
	"guichet/internal/chat/bot"
	"guichet/internal/chat/chatapi"
	"guichet/internal/chat/hub"
	"guichet/internal/cobrowse"
	"guichet/internal/codes"
	"guichet/internal/console"
	"guichet/internal/contact"
	"guichet/internal/devseed"
	"guichet/internal/emailtoken"
	"guichet/internal/fanout"
	"guichet/internal/httpapi"
	"guichet/internal/maintenance"
	"guichet/internal/notify"
	"guichet/internal/oidc"
	"guichet/internal/oidc/provider"
	"guichet/internal/passkey"
	"guichet/internal/policy"
	"guichet/internal/privacy"
	"guichet/internal/reauth"
	"guichet/internal/recovery"
	"guichet/internal/registration"
	"guichet/internal/smartreg"
	"guichet/internal/sso"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/telemetry"
	"guichet/internal/throttle"
	"guichet/web"
)

// Config is the deployment's configuration (design.md "Fixed interface"):
// environment variables, mirrored by flags.
type Config struct {
	Addr         string // GUICHET_ADDR
	DataDir      string // GUICHET_DATA_DIR
	DatabaseURL  string // GUICHET_DATABASE_URL
	BrandsDir    string // GUICHET_BRANDS_DIR; empty: the sample brands embedded in the binary
	SMTPURL      string // GUICHET_SMTP_URL
	SMSURL       string // GUICHET_SMS_URL
	Mail         string // GUICHET_MAIL=log: log instead of delivering (outside --dev)
	Dev          bool   // GUICHET_DEV=1 or --dev
	Env          string // GUICHET_ENV: which SSO URLs of the brand files ("dev" or "prod")
	DefaultBrand string // GUICHET_DEFAULT_BRAND: serves unknown hosts
	TLSCert      string // GUICHET_TLS_CERT and GUICHET_TLS_KEY: serve HTTPS
	TLSKey       string

	// GUICHET_TRUSTED_PROXIES: the load balancers (comma-separated CIDR
	// networks or addresses) whose X-Forwarded-For hops are skipped.
	TrustedProxies string
	// GUICHET_ADMIN_ADDR: the operators' listener (/metrics); "off" or
	// empty: none.
	AdminAddr string
	// GUICHET_MAINTENANCE_BYPASS: the maintenancePageBypass value that lets
	// staff through maintenance; empty: no bypass.
	MaintenanceBypass string
	// obsoleteTrustProxy: GUICHET_TRUST_PROXY is set; New refuses to start.
	obsoleteTrustProxy bool
	// now is the server's one clock, every service's and worker's (tests
	// move it; --dev sets its movable clock); nil: time.Now.
	now func() time.Time
	// devShifted: now is --dev's movable clock (GUICHET_DEV_NOW, POST
	// /_dev/clock); staff TOTP codes are still read on the real one (the
	// authenticator app's).
	devShifted bool
	// HashWaitBudget (GUICHET_HASH_WAIT_BUDGET, a Go duration; empty for
	// account.DefaultWaitBudget, 0 for no bound): a password check expected
	// to wait longer for a hasher is answered 429 BUSY at once.
	HashWaitBudget string
	// MaxInFlight (GUICHET_MAX_IN_FLIGHT, a whole number; empty for
	// httpapi.DefaultMaxInFlight, 0 for no bound): a request past this many
	// under way is answered 503 OVERLOADED at once (httpapi's shed.go).
	MaxInFlight string
	// HashParams are the argon2id parameters of new password hashes (and of
	// the --dev demo accounts); zero: account.DefaultParams, what `guichet
	// serve` uses. Tests that run the application set cheap ones, so that
	// nothing but make bench depends on how fast a hash is.
	HashParams account.Params
	// RegistrationJWTKeys (GUICHET_REGISTRATION_JWT_KEYS): the smart
	// registration session keys, "kid:base64key,..." (the first signs, all
	// verify); empty: a key kept in the database.
	RegistrationJWTKeys string
	// RegistrationSessionTTL (GUICHET_REGISTRATION_SESSION_TTL, a Go
	// duration, --dev only): a shorter smart registration session, for
	// browser tests of the expired session.
	RegistrationSessionTTL string
	// ConsoleHost (GUICHET_CONSOLE_HOST): the staff console's host name;
	// in --dev console.localhost also serves it. Empty outside --dev: no
	// console.
	ConsoleHost string
	// StaffKey (GUICHET_STAFF_KEY): 32 bytes (hex or base64) sealing the
	// staff TOTP secrets; empty: a key kept in the database.
	StaffKey string
	// OIDCKey (GUICHET_OIDC_KEY): 32 bytes (hex or base64) sealing the
	// OpenID provider's signing keys; empty: a key kept in the database.
	OIDCKey string
	// AuditRetentionMonths (GUICHET_AUDIT_RETENTION_MONTHS): audit rows
	// older than this are purged by the janitor; "" is 24 (console.
	// DefaultAuditRetentionMonths), 0 keeps them for ever.
	AuditRetentionMonths string
	// DevNow (GUICHET_DEV_NOW, --dev only): an RFC 3339 instant the
	// server's clock starts at and runs on from, so chat hours can be
	// tried (a Sunday, an evening).
	DevNow string
	// DrainSeconds (GUICHET_DRAIN_SECONDS): on SIGTERM, how long /readyz
	// answers 503 while the instance still serves, so the load balancer
	// stops sending before it stops accepting; "" is DefaultDrain, 0 none.
	DrainSeconds string
	// OutboxRetrySeconds (GUICHET_OUTBOX_RETRY_SECONDS): the delay before
	// the first retry of an email or SMS after a temporary failure, doubled
	// for each further one; "" is 30. The cluster suite shortens it so its
	// SMTP outage need not last minutes.
	OutboxRetrySeconds string
}

// DefaultDrain is the drain window when GUICHET_DRAIN_SECONDS is unset:
// deploy/haproxy.cfg marks a server down after two failed checks one
// second apart, so five seconds leave room for it.
const DefaultDrain = 5 * time.Second

// maxDrain bounds GUICHET_DRAIN_SECONDS (systemd's stop timeout is 90 s).
const maxDrain = 60 * time.Second

// drain is GUICHET_DRAIN_SECONDS as a duration.
func (c Config) drain() (time.Duration, error) {
	return seconds("GUICHET_DRAIN_SECONDS", c.DrainSeconds, DefaultDrain, 0, maxDrain)
}

// maxMaxInFlight bounds GUICHET_MAX_IN_FLIGHT: the server sizes its
// bounds from it (twice as many held refusals, httpapi's shed.go).
const maxMaxInFlight = 1 << 20

// maxInFlight is GUICHET_MAX_IN_FLIGHT: "" is httpapi.DefaultMaxInFlight,
// 0 no bound.
func (c Config) maxInFlight() (int, error) {
	if c.MaxInFlight == "" {
		return httpapi.DefaultMaxInFlight, nil
	}
	n, err := strconv.Atoi(c.MaxInFlight)
	if err != nil || n < 0 || n > maxMaxInFlight {
		return 0, fmt.Errorf("GUICHET_MAX_IN_FLIGHT=%q: a whole number of requests up to %d, 0 for no bound", c.MaxInFlight, maxMaxInFlight)
	}
	return n, nil
}

// DefaultOutboxRetry is the first retry delay of the outbox when
// GUICHET_OUTBOX_RETRY_SECONDS is unset.
const DefaultOutboxRetry = 30 * time.Second

// outboxRetry is GUICHET_OUTBOX_RETRY_SECONDS as a duration (1 s to 1 h).
func (c Config) outboxRetry() (time.Duration, error) {
	return seconds("GUICHET_OUTBOX_RETRY_SECONDS", c.OutboxRetrySeconds, DefaultOutboxRetry, time.Second, time.Hour)
}

// seconds reads a setting given in whole seconds, from lo to hi; "" is def.
func seconds(name, v string, def, lo, hi time.Duration) (time.Duration, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	d := time.Duration(n) * time.Second
	if err != nil || d < lo || d > hi {
		return 0, fmt.Errorf("%s=%q: a number of seconds from %d to %d", name, v, int(lo.Seconds()), int(hi.Seconds()))
	}
	return d, nil
}

// ConfigFromEnv reads the environment, with the design's defaults.
func ConfigFromEnv() Config {
	get := func(k, def string) string {
		if v, ok := os.LookupEnv(k); ok && v != "" {
			return v
		}
		return def
	}
	return Config{
		Addr:         get("GUICHET_ADDR", "127.0.0.1:8080"),
		DataDir:      get("GUICHET_DATA_DIR", "./data"),
		DatabaseURL:  get("GUICHET_DATABASE_URL", ""),
		BrandsDir:    get("GUICHET_BRANDS_DIR", ""),
		SMTPURL:      get("GUICHET_SMTP_URL", ""),
		SMSURL:       get("GUICHET_SMS_URL", ""),
		Mail:         get("GUICHET_MAIL", ""),
		Dev:          isTrue(get("GUICHET_DEV", "")),
		Env:          get("GUICHET_ENV", ""),
		DefaultBrand: get("GUICHET_DEFAULT_BRAND", ""),
		TLSCert:      get("GUICHET_TLS_CERT", ""),
		TLSKey:       get("GUICHET_TLS_KEY", ""),

		TrustedProxies:     get("GUICHET_TRUSTED_PROXIES", ""),
		AdminAddr:          get("GUICHET_ADMIN_ADDR", "127.0.0.1:9090"),
		MaintenanceBypass:  get("GUICHET_MAINTENANCE_BYPASS", ""),
		obsoleteTrustProxy: get("GUICHET_TRUST_PROXY", "") != "",
		HashWaitBudget:     get("GUICHET_HASH_WAIT_BUDGET", ""),
		MaxInFlight:        get("GUICHET_MAX_IN_FLIGHT", ""),

		RegistrationJWTKeys:    get("GUICHET_REGISTRATION_JWT_KEYS", ""),
		RegistrationSessionTTL: get("GUICHET_REGISTRATION_SESSION_TTL", ""),
		ConsoleHost:            get("GUICHET_CONSOLE_HOST", ""),
		StaffKey:               get("GUICHET_STAFF_KEY", ""),
		OIDCKey:                get("GUICHET_OIDC_KEY", ""),
		AuditRetentionMonths:   get("GUICHET_AUDIT_RETENTION_MONTHS", ""),
		DevNow:                 get("GUICHET_DEV_NOW", ""),
		DrainSeconds:           get("GUICHET_DRAIN_SECONDS", ""),
		OutboxRetrySeconds:     get("GUICHET_OUTBOX_RETRY_SECONDS", ""),
	}
}

// errTrustProxy refuses the old setting, which trusted the client-written
// first X-Forwarded-For entry, rather than silently ignoring it.
// MinBypassLength is the shortest GUICHET_MAINTENANCE_BYPASS accepted: the
// bypass is tried on public URLs, so it must be too long to guess.
const MinBypassLength = 16

var errTrustProxy = errors.New("GUICHET_TRUST_PROXY is no longer supported (it trusted the first X-Forwarded-For " +
	"entry, which the client writes): list your load balancers in GUICHET_TRUSTED_PROXIES (CIDR networks, " +
	"comma-separated) and unset GUICHET_TRUST_PROXY")

func (c Config) clock() func() time.Time {
	if c.now != nil {
		return c.now
	}
	return time.Now
}

// hashParams is HashParams, or account.DefaultParams when unset.
func (c Config) hashParams() account.Params {
	if c.HashParams == (account.Params{}) {
		return account.DefaultParams
	}
	return c.HashParams
}

// DevClock is GUICHET_DEV_NOW's clock: nil when unset; refused without
// --dev and for a value that is not an RFC 3339 instant. The clock starts at
// that instant and runs on with the real one.
func DevClock(c Config) (func() time.Time, error) {
	if c.DevNow == "" {
		return nil, nil
	}
	if !c.Dev {
		return nil, errors.New("GUICHET_DEV_NOW is for --dev only (trying chat hours); unset it")
	}
	start, err := time.Parse(time.RFC3339, c.DevNow)
	if err != nil {
		return nil, fmt.Errorf("GUICHET_DEV_NOW=%q: want an RFC 3339 instant such as 2026-11-29T10:00:00-05:00", c.DevNow)
	}
	real := time.Now()
	return func() time.Time { return start.Add(time.Since(real)) }, nil
}

// auditRetention is GUICHET_AUDIT_RETENTION_MONTHS, in months.
func (c Config) auditRetention() (int, error) {
	if c.AuditRetentionMonths == "" {
		return console.DefaultAuditRetentionMonths, nil
	}
	n, err := strconv.Atoi(c.AuditRetentionMonths)
	if err != nil || n < 0 || n > 1200 {
		return 0, fmt.Errorf("GUICHET_AUDIT_RETENTION_MONTHS=%q: a number of months, 0 to keep audit rows for ever", c.AuditRetentionMonths)
	}
	return n, nil
}

// adminEnabled: whether Serve opens the admin listener.
func (c Config) adminEnabled() bool { return c.AdminAddr != "" && c.AdminAddr != "off" }

func isTrue(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func (c Config) env() string {
	switch {
	case c.Env != "":
		return c.Env
	case c.Dev:
		return "dev"
	}
	return "prod"
}

// EmbeddedBrands names the sample brand files built into the binary
// (guichet/config), served when GUICHET_BRANDS_DIR is not set.
const EmbeddedBrands = "embedded sample brands"

// BrandsSource says where the brand files come from: the directory of
// GUICHET_BRANDS_DIR, or EmbeddedBrands.
func (c Config) BrandsSource() string {
	if c.BrandsDir == "" {
		return EmbeddedBrands
	}
	return c.BrandsDir
}

// LoadBrands loads and validates the brand files (also `guichet check-config`):
// those of GUICHET_BRANDS_DIR when set, else the embedded samples, so the
// binary starts from any working directory. A promo image must be in the
// brands directory (<dir>/<id>/<file>) or built into the SPA
// (web/public/brands/<id>/<file>).
func LoadBrands(cfg Config) (*brand.Registry, error) {
	var reg *brand.Registry
	var err error
	assets := brand.WithAssets(web.Dist())
	if cfg.BrandsDir == "" {
		reg, err = brand.LoadFS(config.Brands(), EmbeddedBrands, assets)
	} else {
		reg, err = brand.LoadDir(cfg.BrandsDir, assets)
	}
	if err != nil {
		return nil, err
	}
	if cfg.DefaultBrand != "" {
		if _, ok := reg.ByID(cfg.DefaultBrand); !ok {
			return nil, fmt.Errorf("GUICHET_DEFAULT_BRAND: %q is not a brand of %s", cfg.DefaultBrand, cfg.BrandsSource())
		}
	}
	return reg, nil
}

// LoadBot reads the brands' chatbot FAQ files (<brands dir>/<id>/faq.yaml,
// or the embedded samples'), checked at start and by `guichet check-config`.
func LoadBot(cfg Config, reg *brand.Registry) (*bot.Bot, error) {
	fsys := config.Brands()
	if cfg.BrandsDir != "" {
		fsys = os.DirFS(cfg.BrandsDir)
	}
	ids := make([]string, 0, len(reg.All()))
	for _, b := range reg.All() {
		ids = append(ids, b.ID)
	}
	return bot.Load(fsys, ids)
}

// OpenStore opens the database and applies the migrations.
func OpenStore(ctx context.Context, cfg Config) (*store.DB, error) {
	db, err := OpenStoreAsIs(ctx, cfg)
	if err != nil {
		return nil, err
	}
	n, err := db.Migrate(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	if n > 0 {
		slog.Info("migrations applied", "count", n, "database", db.Dialect.String())
	}
	return db, nil
}

// OpenStoreAsIs opens the database the config names without migrating it
// (guichet migrate --status).
func OpenStoreAsIs(ctx context.Context, cfg Config) (*store.DB, error) {
	return store.Open(ctx, store.Config{URL: cfg.DatabaseURL, DataDir: cfg.DataDir})
}

// App is a running Guichet: its handler and background workers.
type App struct {
	cfg     Config
	DB      *store.DB
	Brands  *brand.Registry
	Handler http.Handler
	// Routes is the handler's route table (tests walk it).
	Routes []httpapi.Route
	// Staff is the staff accounts and console sessions (issue 16).
	Staff *staff.Service
	// ChatHub fans live chat out to this instance's sockets.
	ChatHub *hub.Hub
	// OIDC is the OpenID provider (issue 30).
	OIDC *provider.Provider
	// Privacy is the customers' data exports and account deletions.
	Privacy *privacy.Service
	// Accounts is the policyholders' accounts.
	Accounts *account.Service
	// CobrowseHub relays co-browse sessions to this instance's sockets.
	CobrowseHub *cobrowse.Hub
	// Fanout wakes the other instances' sockets (PostgreSQL; nil on SQLite).
	Fanout *fanout.Notifier
	// chatBot answers chatbot brands' visitors (nil: none).
	chatBot *bot.Bot
	// AdminHandler is served on GUICHET_ADMIN_ADDR (metrics).
	AdminHandler http.Handler
	workers      []func(context.Context) error
	adminAddr    string
	// draining: SIGTERM came; /readyz answers 503 (Serve).
	draining atomic.Bool
	drainFor time.Duration
	// tracing is the OpenTelemetry tracer provider (telemetry.Off when no
	// OTEL_* endpoint is set).
	tracing *telemetry.Tracing
}

// tracer is the provider the HTTP server and the outbox worker start
// traces from; nil when tracing is off, so they add nothing.
func (a *App) tracer() trace.TracerProvider {
	if !a.tracing.On() {
		return nil
	}
	return a.tracing.Provider
}

// New builds the application from its configuration.
func New(ctx context.Context, cfg Config) (*App, error) {
	if cfg.obsoleteTrustProxy {
		return nil, errTrustProxy
	}
	proxies, err := httpapi.ParseProxies(cfg.TrustedProxies)
	if err != nil {
		return nil, fmt.Errorf("GUICHET_TRUSTED_PROXIES: %w", err)
	}
	if n := len(cfg.MaintenanceBypass); n > 0 && n < MinBypassLength {
		return nil, fmt.Errorf("GUICHET_MAINTENANCE_BYPASS: %d characters; a secret anyone may try over the API needs at least %d", n, MinBypassLength)
	}
	devClock, err := DevClock(cfg)
	if err != nil {
		return nil, err
	}
	drainFor, err := cfg.drain()
	if err != nil {
		return nil, err
	}
	maxInFlight, err := cfg.maxInFlight()
	if err != nil {
		return nil, err
	}
	if _, err := cfg.outboxRetry(); err != nil {
		return nil, err
	}
	// A --dev server runs on a clock POST /_dev/clock can move forward
	// (browser tests of an expiry), from GUICHET_DEV_NOW's instant when set.
	var movable *movableClock
	if cfg.Dev && cfg.now == nil {
		movable = &movableClock{base: time.Now}
		if devClock != nil {
			movable.base = devClock
			slog.Warn("GUICHET_DEV_NOW: the server's clock is shifted", "now", devClock().Format(time.RFC3339))
		}
		cfg.now = movable.Now
		cfg.devShifted = true
	}
	brands, err := LoadBrands(cfg)
	if err != nil {
		return nil, err
	}
	for _, b := range brands.All() {
		if k := os.Getenv(serviceKeyVariable(b.ID)); k != "" && len(k) < MinServiceKeyLength {
			return nil, fmt.Errorf("%s: %d characters; a key the admin API accepts needs at least %d",
				serviceKeyVariable(b.ID), len(k), MinServiceKeyLength)
		}
	}
	slog.Info("brands loaded", "from", cfg.BrandsSource(), "count", len(brands.All()))
	chatBot, err := LoadBot(cfg, brands)
	if err != nil {
		return nil, err
	}
	db, err := OpenStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// Traces: off unless an OTEL_* endpoint is set (docs/architecture.md
	// "Tracing"); flushed by Serve as it ends.
	tracing, err := telemetry.Start(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	a := &App{cfg: cfg, DB: db, Brands: brands, chatBot: chatBot, drainFor: drainFor, tracing: tracing}
	metrics := prometheus.NewRegistry()
	metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	deps := httpapi.Deps{
		Brands: brands, DB: db, SPA: web.Dist(), SPAPaths: web.Paths(), Metrics: metrics,
		Maintenance: maintenance.NewReader(db, cfg.clock()),
	}
	if movable != nil {
		deps.DevClock = movable
	}
	deps.Tracing = a.tracer()
	if err := a.wireServices(ctx, &deps, metrics); err != nil {
		db.Close()
		_ = tracing.Shutdown(ctx)
		return nil, err
	}
	h, err := httpapi.New(httpapi.Config{
		Dev: cfg.Dev, Env: cfg.env(), DefaultBrand: cfg.DefaultBrand, TrustedProxies: proxies,
		MaintenanceBypass: cfg.MaintenanceBypass, ConsoleHost: cfg.ConsoleHost, MaxInFlight: maxInFlight,
		ShedHold: httpapi.DefaultShedHold,
	}, deps)
	if err != nil {
		db.Close()
		_ = tracing.Shutdown(ctx)
		return nil, err
	}
	a.Handler = h
	a.Routes = h.Routes()
	a.AdminHandler = httpapi.NewAdmin(deps)
	return a, nil
}

// wireServices builds the domain services, their HTTP handlers and the
// background workers (notification delivery, clean-up).
func (a *App) wireServices(ctx context.Context, deps *httpapi.Deps, metrics *prometheus.Registry) error {
	email, sms, closeDelivery, err := a.delivery(deps)
	if err != nil {
		return err
	}
	// StopGrace: a draining instance finishes the sends under way rather
	// than leaving them claimed for the lease (2 minutes); Serve waits for
	// them within its shutdown bound.
	retry, err := a.cfg.outboxRetry() // checked by New
	if err != nil {
		return err
	}
	worker := notify.NewWorker(a.DB, a.Brands, email, sms, notify.WorkerOptions{Metrics: notify.NewMetrics(metrics),
		StopGrace: workerStopGrace, RetryBase: retry, Tracer: a.tracer()})
	a.workers = append(a.workers, func(ctx context.Context) error {
		defer closeDelivery()
		return worker.Run(ctx)
	})

	hasher := account.NewHasher(a.cfg.hashParams())
	if a.cfg.HashWaitBudget != "" {
		budget, err := time.ParseDuration(a.cfg.HashWaitBudget)
		if err != nil || budget < 0 {
			return fmt.Errorf("GUICHET_HASH_WAIT_BUDGET %q: want a duration such as 2s, or 0 for no bound", a.cfg.HashWaitBudget)
		}
		hasher.WaitBudget = budget
	}
	accounts := account.NewService(a.DB, hasher, a.cfg.clock())
	passes, err := account.NewPasses(ctx, a.DB, accounts.Now)
	if err != nil {
		return fmt.Errorf("returning browsers' passes: %w", err)
	}
	accounts.Passes = passes
	a.Accounts = accounts
	sessions := sso.NewService(accounts)
	recoveries, err := recovery.New(ctx, accounts)
	if err != nil {
		return fmt.Errorf("recovery: %w", err)
	}
	registrations, err := registration.New(ctx, accounts)
	if err != nil {
		return fmt.Errorf("registration: %w", err)
	}
	accounts.Poke, recoveries.Poke, registrations.Poke = worker.Poke, worker.Poke, worker.Poke
	deps.Registration = &registration.Handler{Service: registrations}
	tokens := a.tokenService(registrations)
	tokens.Poke = worker.Poke
	deps.Tokens = &emailtoken.Handler{Service: tokens, ServiceKey: a.cfg.serviceKey, Brands: a.Brands.All}
	keys, ttl, err := RegistrationSession(a.cfg)
	if err != nil {
		return err
	}
	smart, err := smartreg.New(ctx, accounts, keys)
	if err != nil {
		return fmt.Errorf("smart registration: %w", err)
	}
	smart.Poke = worker.Poke
	if ttl > 0 {
		smart.TTL = ttl
	}
	deps.Smart = &smartreg.Handler{Service: smart}
	deps.Account = &account.Handler{Service: accounts}
	deps.SSO = &sso.Handler{Service: sessions}
	deps.Recovery = &recovery.Handler{Service: recoveries, Sessions: deps.SSO}
	proofs, err := reauth.New(ctx, accounts, sessions)
	if err != nil {
		return fmt.Errorf("reauth: %w", err)
	}
	proofs.Poke = worker.Poke
	deps.Reauth = &reauth.Handler{Service: proofs, Sessions: deps.SSO}
	passkeys := passkey.New(accounts, sessions)
	deps.Passkeys = &passkey.Handler{Service: passkeys, Sessions: deps.SSO}
	changes, err := contact.New(ctx, accounts)
	if err != nil {
		return fmt.Errorf("contact: %w", err)
	}
	changes.Poke = worker.Poke
	// An undone email change takes the passkeys with the password: an
	// intruder may have added one.
	changes.Undone = passkeys.RemoveForUndo
	deps.Contact = &contact.Handler{Service: changes, Sessions: deps.SSO}
	staffs, err := StaffService(ctx, a.cfg, a.DB, a.Brands, hasher)
	if err != nil {
		return err
	}
	a.Staff = staffs
	deps.Staff = &staff.Handler{Service: staffs, Dev: a.cfg.Dev}
	deps.Console = &console.Handler{Service: &console.Service{DB: a.DB, Accounts: accounts, Tokens: tokens,
		Brands: a.Brands.ByID, Now: a.cfg.clock(), Staff: staffs, Passkeys: passkeys,
		LinkBase: func(b *brand.Brand) string { return emailtoken.LinkBase(b, a.cfg.Dev, a.cfg.Addr) }},
		ConsoleOrigin: ConsoleOrigin(a.cfg)}
	retention, err := a.cfg.auditRetention()
	if err != nil {
		return err
	}
	notifier, err := a.notifier(ctx, metrics)
	if err != nil {
		return err
	}
	// A sign-out or a disable wakes that member's chat and co-browse
	// sockets on every instance (staff.Topic): each re-checks its session
	// in the database and closes with 4401 when it is gone.
	staffs.Ended = func(ctx context.Context, staffID string) { notifier.Notify(ctx, staff.Topic(staffID)) }
	chats := a.chatService(deps, sessions, accounts, worker.Poke, notifier)
	cobrowses, err := a.cobrowseService(ctx, deps, chats, metrics)
	if err != nil {
		return err
	}
	a.observe(metrics, chats)
	oidcs, err := OIDCService(ctx, a.cfg, a.DB, a.Brands)
	if err != nil {
		return err
	}
	deps.Console.Service.OIDC = oidcs
	deps.OIDC, err = provider.New(&provider.Provider{OIDC: oidcs, Sessions: deps.SSO, Limiter: throttle.New(a.DB, a.cfg.clock()),
		Account: func(ctx context.Context, brand, id string) (account.Account, error) {
			return account.ByID(ctx, a.DB, brand, id)
		},
		Policies: func(ctx context.Context, accountID string) ([]policy.Linked, error) {
			return policy.ForAccount(ctx, a.DB, accountID)
		}}, a.cfg.Dev)
	if err != nil {
		return err
	}
	deps.SSO.Continue = deps.OIDC.Continue
	// Signing out, a new password and a disable end the account's grants
	// and tell their clients (back-channel logout, through the outbox).
	accounts.SignedOut = oidcs.EndAccount
	worker.UseLogout(deps.OIDC)
	a.OIDC = deps.OIDC
	privacies := a.privacyService(deps, accounts, sessions, oidcs, chats, changes, passkeys, worker.Poke)
	deps.Console.Service.Deletions = privacies
	a.workers = append(a.workers, func(ctx context.Context) error {
		return janitor(ctx, time.Hour, func(ctx context.Context) (int64, error) {
			return chat.Purge(ctx, chats, a.Brands.All())
		}, func(ctx context.Context) (int64, error) {
			return cobrowses.Purge(ctx, a.Brands.All())
		}, privacies.PruneExports, privacies.EraseDue, staffs.Prune, accounts.Prune, recoveries.Prune, proofs.Prune, changes.Prune, registrations.Prune, tokens.Prune, smart.Prune, oidcs.Prune, oidcs.RotateDue, func(ctx context.Context) (int64, error) {
			return sso.Prune(ctx, a.DB, a.cfg.clock()())
		}, func(ctx context.Context) (int64, error) {
			return console.PurgeAudit(ctx, a.DB, a.cfg.clock()(), retention)
		})
	})

	if a.cfg.Dev {
		demo, err := devseed.Accounts(ctx, a.DB, a.Brands.All(), hasher, a.cfg.clock()())
		if err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
		slog.Info("demo accounts ready", "count", len(demo))
		people, err := devseed.RegistrationPeople(ctx, a.DB, a.Brands.All(), a.cfg.clock()())
		if err != nil {
			return err
		}
		slog.Info("registration demo people ready", "count", len(people))
		invited, err := devseed.TokenPeople(ctx, a.DB, a.Brands.All(), a.cfg.clock()())
		if err != nil {
			return err
		}
		slog.Info("token demo people ready", "count", len(invited))
		seeded, err := staffs.SeedDev(ctx)
		if err != nil {
			return fmt.Errorf("dev staff: %w", err)
		}
		slog.Info("dev staff ready", "created", seeded, "console", "http://"+httpapi.DevConsoleHost+portOf(a.cfg.Addr))
	}
	return nil
}

// chatService builds live chat (issue 17): the service on the shared clock,
// its hub (whose poll runs as a worker and whose sockets close with 1012
// when the server shuts down) and both handlers.
func (a *App) chatService(deps *httpapi.Deps, sessions *sso.Service, accounts *account.Service, poke func(), notifier chat.Notifier) *chat.Service {
	svc := &chat.Service{DB: a.DB, Brands: a.Brands.ByID, Now: a.cfg.clock(), Limiter: throttle.New(a.DB, a.cfg.clock()),
		Notifier: notifier, Poke: poke}
	if a.chatBot != nil {
		svc.Bot = a.chatBot
	}

	chatHub := hub.New(svc)
	a.ChatHub = chatHub
	a.workers = append(a.workers, chatHub.Run)
	deps.Chat = &chatapi.VisitorHandler{Service: svc, Hub: chatHub, Account: func(r *http.Request) (string, string) {
		s, err := deps.SSO.Current(r)
		if err != nil {
			return "", ""
		}
		acc, err := account.ByID(r.Context(), a.DB, s.Brand, s.AccountID)
		if err != nil {
			return "", ""
		}
		return acc.ID, acc.Email
	}}
	deps.ChatConsole = &chatapi.ConsoleHandler{Service: svc, Hub: chatHub, AllBrands: a.Brands.All,
		// An agent's socket re-checks the session it opened with (signed
		// out, expired, idle, account disabled: closed with 4401); the
		// agent's actions on it keep the session alive (Lookup), its
		// pings do not (Check).
		Session: func(r *http.Request) func(context.Context, bool) (staff.Principal, error) {
			token := deps.Staff.Token(r)
			return func(ctx context.Context, active bool) (staff.Principal, error) {
				if active {
					return deps.Staff.Service.Lookup(ctx, token)
				}
				return deps.Staff.Service.Check(ctx, token)
			}
		}}
	return svc
}

// privacyService builds the customers' data export and account deletion
// (issue 31): each package that keeps rows on a customer is a Holder (the
// account's own row last: the erasure deletes it after the rows that name
// it); the export worker runs in every instance (a lease keeps two from
// preparing one export), the erasure of due deletions in the janitor.
func (a *App) privacyService(deps *httpapi.Deps, accounts *account.Service, sessions *sso.Service, oidcs *oidc.Service, chats *chat.Service,
	changes *contact.Service, passkeys *passkey.Service, poke func()) *privacy.Service {
	svc := &privacy.Service{DB: a.DB, Now: a.cfg.clock(), Brands: a.Brands.ByID, Poke: poke, Limiter: throttle.New(a.DB, a.cfg.clock()), Holders: []privacy.Holder{
		privacy.HolderFuncs{
			Held:  func(ctx context.Context, _, id string) (map[string]any, error) { return policy.HeldData(ctx, a.DB, id) },
			Erase: func(ctx context.Context, tx *store.Tx, _, id string) error { return policy.Unlink(ctx, tx, id) },
		},
		sessions, oidcs, chats, changes,
		// The audit rows are exported here and scrubbed by the deletion
		// itself, after the brand's privacy.deletedAuditDays.
		privacy.HolderFuncs{Held: func(ctx context.Context, brand, id string) (map[string]any, error) {
			return audit.HeldData(ctx, a.DB, brand, id)
		}},
		// The passkeys by name in the export, their rows erased with the account.
		passkeys,
		accounts,
	}}
	svc.NewWake()
	a.Privacy = svc
	a.workers = append(a.workers, svc.RunExports)
	deps.Privacy = &privacy.Handler{Service: svc, Sessions: deps.SSO}
	return svc
}

// notifier is what wakes the chat, co-browse and queue sockets after a
// commit (issue 19): on PostgreSQL, every instance's through LISTEN/NOTIFY
// (its listener and sender run as a worker, stopped at shutdown after the
// hubs closed their sockets; counters on /metrics); on SQLite, one
// instance's, in process.
func (a *App) notifier(ctx context.Context, metrics *prometheus.Registry) (chat.Notifier, error) {
	if a.DB.Dialect != store.Postgres {
		return &chat.LocalNotifier{}, nil
	}
	channel, err := fanout.ChannelFor(ctx, a.DB)
	if err != nil {
		return nil, err
	}
	n, err := fanout.New(a.DB, fanout.Options{URL: a.cfg.DatabaseURL, Channel: channel})
	if err != nil {
		return nil, err
	}
	n.Register(metrics)
	a.Fanout = n
	a.workers = append(a.workers, n.Run)
	return n, nil
}

// cobrowseService builds co-browse (issue 18) on the chat's database,
// clock and Notifier: its hub's poll and sweep run as a worker, its sockets
// close with 1012 when the server shuts down. Ending a chat conversation,
// or transferring it to another agent, ends its co-browse session in the
// same transaction (chat's OnEnd and OnTransfer hooks: cobrowse imports
// chat, so the wiring is here).
func (a *App) cobrowseService(ctx context.Context, deps *httpapi.Deps, chats *chat.Service, metrics prometheus.Registerer) (*cobrowse.Service, error) {
	svc, err := cobrowse.New(ctx, a.DB, chats, a.Brands.ByID, a.cfg.clock())
	if err != nil {
		return nil, fmt.Errorf("cobrowse: %w", err)
	}
	// Visitor frames refused for privacy, on /metrics (issue 26).
	svc.Metrics = cobrowse.NewMetrics(metrics)
	chats.OnEnd = svc.EndWithConversation
	chats.OnTransfer = svc.EndWithTransfer
	hub := cobrowse.NewHub(svc)
	a.CobrowseHub = hub
	a.workers = append(a.workers, hub.Run)
	deps.Cobrowse = &cobrowse.Handler{Service: svc, Hub: hub}
	deps.CobrowseConsole = &cobrowse.ConsoleHandler{Service: svc, Hub: hub,
		// A viewer's pings re-check the staff session it opened with
		// (signed out, expired, disabled: 4401; brand no longer served:
		// 4403) without keeping it alive.
		Session: func(r *http.Request) func(context.Context) (staff.Principal, error) {
			token := deps.Staff.Token(r)
			return func(ctx context.Context) (staff.Principal, error) { return deps.Staff.Service.Check(ctx, token) }
		}}
	return svc, nil
}

// StaffService is the staff accounts' service of a deployment (`guichet
// staff` uses it too): GUICHET_STAFF_KEY or the database's key, brands
// checked against the brand files.
func StaffService(ctx context.Context, cfg Config, db *store.DB, brands *brand.Registry, hasher *account.Hasher) (*staff.Service, error) {
	var root []byte
	if cfg.StaffKey != "" {
		var err error
		if root, err = codes.ParseKey(cfg.StaffKey); err != nil {
			return nil, fmt.Errorf("GUICHET_STAFF_KEY: %w", err)
		}
	}
	if hasher == nil {
		hasher = account.NewHasher(cfg.hashParams())
	}
	s, err := staff.New(ctx, db, hasher, cfg.clock(), root)
	if err != nil {
		return nil, err
	}
	s.KnownBrand = func(id string) bool { _, ok := brands.ByID(id); return ok }
	if db.Dialect == store.Postgres {
		// `guichet staff disable` runs no fan-out of its own: it publishes
		// the member's topic once, and the running instances close that
		// member's sockets (the app replaces this with its Notifier).
		s.Ended = func(ctx context.Context, staffID string) {
			if err := fanout.Publish(ctx, db, staff.Topic(staffID)); err != nil {
				slog.Warn("staff sockets wake-up", "err", err)
			}
		}
	}
	if cfg.devShifted {
		s.TOTPNow = time.Now
	}
	return s, nil
}

// OIDCService is the OpenID provider's clients and keys, for the brands of
// reg, its signing keys sealed under GUICHET_OIDC_KEY (or the database's
// own key).
func OIDCService(ctx context.Context, cfg Config, db *store.DB, reg *brand.Registry) (*oidc.Service, error) {
	var root []byte
	if cfg.OIDCKey != "" {
		var err error
		if root, err = codes.ParseKey(cfg.OIDCKey); err != nil {
			return nil, fmt.Errorf("GUICHET_OIDC_KEY: %w", err)
		}
	}
	return oidc.New(ctx, db, cfg.clock(), func(id string) bool { _, ok := reg.ByID(id); return ok }, root)
}

// ConsoleOrigin is where the console is served: https://GUICHET_CONSOLE_HOST,
// or in --dev http://console.localhost at GUICHET_ADDR's port ("" when
// there is none).
func ConsoleOrigin(cfg Config) string {
	if cfg.Dev {
		return "http://" + httpapi.DevConsoleHost + portOf(cfg.Addr)
	}
	if cfg.ConsoleHost == "" {
		return ""
	}
	return "https://" + cfg.ConsoleHost
}

// portOf is ":port" of an address, "" without one.
func portOf(addr string) string {
	if _, port, err := net.SplitHostPort(addr); err == nil && port != "" {
		return ":" + port
	}
	return ""
}

// TokenService is the emailed magic-link tokens' service of a deployment:
// links on the brand's hosts, or in --dev on its dev hosts at GUICHET_ADDR's
// port (`guichet tokens issue` uses it too, without registrations).
func TokenService(cfg Config, db *store.DB, brands *brand.Registry, regs emailtoken.Registrations) *emailtoken.Service {
	s := emailtoken.New(db, brands.ByID, cfg.clock())
	s.Dev, s.DevAddr, s.Registrations = cfg.Dev, cfg.Addr, regs
	return s
}

func (a *App) tokenService(regs emailtoken.Registrations) *emailtoken.Service {
	return TokenService(a.cfg, a.DB, a.Brands, regs)
}

// serviceKey is a brand's key for the admin API:
// GUICHET_SERVICE_KEY_<BRAND> (e.g. GUICHET_SERVICE_KEY_BELAIR); in --dev
// without it, dev-service-key-<brand>; "" (every call refused) otherwise.
func (c Config) serviceKey(brandID string) string {
	if v := os.Getenv(serviceKeyVariable(brandID)); v != "" {
		return v
	}
	if c.Dev {
		return DevServiceKeyPrefix + brandID
	}
	return ""
}

func serviceKeyVariable(brandID string) string {
	return "GUICHET_SERVICE_KEY_" + strings.ToUpper(brandID)
}

// MinServiceKeyLength is the shortest GUICHET_SERVICE_KEY_<BRAND> accepted.
const MinServiceKeyLength = 24

// DevServiceKeyPrefix starts a brand's admin API key in --dev when
// GUICHET_SERVICE_KEY_<BRAND> is not set (README).
const DevServiceKeyPrefix = "dev-service-key-"

// delivery chooses where email and SMS go: SMTP and the SMS provider when
// configured; in --dev otherwise the dev mailbox (/_dev/mail); outside --dev
// nothing else unless GUICHET_MAIL=log says to log instead, explicitly.
func (a *App) delivery(deps *httpapi.Deps) (notify.EmailSender, notify.SMSSender, func(), error) {
	var email notify.EmailSender
	var sms notify.SMSSender
	closeDelivery := func() {}
	if a.cfg.Dev {
		mailbox := notify.NewMailbox(a.DB, a.Brands)
		deps.DevMail = mailbox.Handler()
		email, sms = mailbox, mailbox
	} else if strings.EqualFold(a.cfg.Mail, "log") {
		logger := &notify.LogSender{Logger: slog.Default()}
		email, sms = logger, logger
	}
	if a.cfg.SMTPURL != "" {
		s, err := notify.NewSMTPSender(a.cfg.SMTPURL)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("GUICHET_SMTP_URL: %w", err)
		}
		email, closeDelivery = s, func() { s.Close() }
	}
	if a.cfg.SMSURL != "" {
		s, err := notify.NewHTTPSMS(a.cfg.SMSURL, &http.Client{Timeout: 20 * time.Second})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("GUICHET_SMS_URL: %w", err)
		}
		sms = s
	}
	if email == nil || sms == nil {
		return nil, nil, nil, errors.New("no delivery configured: set GUICHET_SMTP_URL and GUICHET_SMS_URL " +
			"(or GUICHET_MAIL=log to log notifications instead of sending them)")
	}
	return email, sms, closeDelivery, nil
}

// janitor runs the clean-ups every interval until ctx is done (expired
// sessions, tickets, codes, tokens and counters).
func janitor(ctx context.Context, interval time.Duration, cleanups ...func(context.Context) (int64, error)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			for _, clean := range cleanups {
				if n, err := clean(ctx); err != nil {
					slog.Error("clean-up failed", "err", err)
				} else if n > 0 {
					slog.Info("clean-up", "removed", n)
				}
			}
		}
	}
}

// workerStopGrace bounds the sends a stopping outbox worker finishes.
const workerStopGrace = 15 * time.Second

// Serve listens on the configured address (and the admin one) until ctx is
// done, then drains and shuts down gracefully (docs/cluster.md): /readyz
// turns 503 at once and the instance keeps serving for the drain window
// (GUICHET_DRAIN_SECONDS) so the load balancer stops sending; then its
// WebSocket clients are told to reconnect elsewhere (1012), it stops
// accepting, in-flight requests finish (up to 20 s), and the workers stop:
// the outbox worker finishes its sends under way and hands back the claims
// it had not tried.
func (a *App) Serve(ctx context.Context, ready func(addr string)) error {
	defer a.DB.Close()
	ln, err := net.Listen("tcp", a.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", a.cfg.Addr, err)
	}
	var handlers running
	srv := newServer(handlers.wrap(a.drainAware(a.Handler)))
	var admin *http.Server
	var adminLn net.Listener
	if a.cfg.adminEnabled() {
		if adminLn, err = net.Listen("tcp", a.cfg.AdminAddr); err != nil {
			ln.Close()
			return fmt.Errorf("listen %s (GUICHET_ADMIN_ADDR): %w", a.cfg.AdminAddr, err)
		}
		admin = newServer(a.AdminHandler)
		a.adminAddr = adminLn.Addr().String()
	}
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, len(a.workers))
	for _, w := range a.workers {
		go func() { done <- w(workCtx) }()
	}
	errc := make(chan error, 2)
	go func() {
		if a.cfg.TLSCert != "" {
			srv.TLSConfig = TLSConfig()
			errc <- srv.ServeTLS(ln, a.cfg.TLSCert, a.cfg.TLSKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	if admin != nil {
		go func() { errc <- admin.Serve(adminLn) }()
		slog.Info("admin listener", "addr", "http://"+a.adminAddr)
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err = <-errc:
	case <-ctx.Done():
		a.drain()
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Hijacked sockets are not the server's to close: tell their clients
	// to reconnect elsewhere (1012), and wait for it, before the workers
	// stop and the database closes (a socket opening meanwhile is refused
	// with 1012 too).
	if a.CobrowseHub != nil {
		a.CobrowseHub.Shutdown()
	}
	if a.ChatHub != nil {
		a.ChatHub.Shutdown()
	}
	if serr := srv.Shutdown(shutCtx); err == nil {
		err = serr
	}
	if werr := handlers.wait(shutCtx); err == nil {
		err = werr
	}
	if admin != nil {
		if serr := admin.Shutdown(shutCtx); err == nil {
			err = serr
		}
	}
	stopWork()
	for range a.workers {
		if werr := <-done; werr != nil && !errors.Is(werr, context.Canceled) {
			slog.Error("worker stopped", "err", werr)
		}
	}
	// Last, once the requests and the outbox deliveries have ended: the
	// spans still queued are exported.
	flushCtx, cancelFlush := context.WithTimeout(context.Background(), traceFlushTimeout)
	defer cancelFlush()
	if terr := a.tracing.Shutdown(flushCtx); terr != nil {
		slog.Warn("traces not all exported at shutdown", "err", terr)
	}
	return err
}

// traceFlushTimeout bounds the export of the last spans at shutdown.
const traceFlushTimeout = 10 * time.Second

// drain turns /readyz red and keeps serving, keep-alive connections
// included, for the drain window: the load balancer marks the instance
// down and stops sending, and only then does Shutdown close the idle
// connections (closing them sooner races a request the balancer is sending
// on one, which it cannot retry when it is a POST).
func (a *App) drain() {
	a.draining.Store(true)
	slog.Info("draining: /readyz answers 503", "for", a.drainFor.String())
	if a.drainFor > 0 {
		time.Sleep(a.drainFor)
	}
	slog.Info("shutting down")
}

// drainAware answers /readyz with 503 once the instance drains; every
// other request is served as before.
func (a *App) drainAware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" && a.draining.Load() {
			api.JSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Draining reports whether SIGTERM came and the instance drains.
func (a *App) Draining() bool { return a.draining.Load() }

// AdminAddr is the address the admin listener is bound to, once Serve has
// called ready; empty when it is off.
func (a *App) AdminAddr() string { return a.adminAddr }

func newServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    32 << 10,
		ErrorLog:          slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn),
	}
}

// RegistrationSession checks the smart registration session settings (also
// `guichet check-config`): the key list (none: the database key) and the
// session TTL, which only --dev may shorten (0: smartreg.TTL).
func RegistrationSession(cfg Config) (smartreg.Keys, time.Duration, error) {
	keys, err := smartreg.ParseKeys(cfg.RegistrationJWTKeys)
	if err != nil {
		return nil, 0, fmt.Errorf("GUICHET_REGISTRATION_JWT_KEYS: %w", err)
	}
	if cfg.RegistrationSessionTTL == "" {
		return keys, 0, nil
	}
	if !cfg.Dev {
		return nil, 0, errors.New("GUICHET_REGISTRATION_SESSION_TTL is for --dev only (browser tests of an expired session)")
	}
	ttl, err := time.ParseDuration(cfg.RegistrationSessionTTL)
	if err != nil || ttl < time.Second || ttl > smartreg.TTL {
		return nil, 0, fmt.Errorf("GUICHET_REGISTRATION_SESSION_TTL %q: want a duration from 1s to %s", cfg.RegistrationSessionTTL, smartreg.TTL)
	}
	return keys, ttl, nil
}
