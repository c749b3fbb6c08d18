// Command guichet is the customer account portal: one binary serving the
// branded, bilingual SPA and its API. `guichet help` lists its commands and
// flags (usage.go); README.md documents them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"guichet/internal/app"
	"guichet/internal/notify"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "guichet:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	dryRun := false
	if cmd == "import-policies" {
		args, dryRun = dryRunFlag(args)
	}
	cfg := app.ConfigFromEnv()
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address (GUICHET_ADDR)")
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "data directory for SQLite (GUICHET_DATA_DIR)")
	fs.StringVar(&cfg.DatabaseURL, "database-url", cfg.DatabaseURL, "postgres:// URL; empty for SQLite (GUICHET_DATABASE_URL)")
	fs.StringVar(&cfg.BrandsDir, "brands-dir", cfg.BrandsDir, "brand files directory; unset: the sample brands embedded in the binary (GUICHET_BRANDS_DIR)")
	fs.StringVar(&cfg.SMTPURL, "smtp-url", cfg.SMTPURL, "smtp://user:pass@host:587 (GUICHET_SMTP_URL)")
	fs.StringVar(&cfg.SMSURL, "sms-url", cfg.SMSURL, "SMS provider URL (GUICHET_SMS_URL)")
	fs.BoolVar(&cfg.Dev, "dev", cfg.Dev, "development mode: demo data, dev mailbox, plain http (GUICHET_DEV=1)")
	fs.StringVar(&cfg.Mail, "mail", cfg.Mail, "log: log notifications instead of delivering them (GUICHET_MAIL)")
	fs.StringVar(&cfg.Env, "env", cfg.Env, "which SSO URLs of the brand files: prod or dev (GUICHET_ENV)")
	fs.StringVar(&cfg.DefaultBrand, "default-brand", cfg.DefaultBrand, "brand serving unknown host names (GUICHET_DEFAULT_BRAND)")
	fs.StringVar(&cfg.TLSCert, "tls-cert", cfg.TLSCert, "PEM certificate chain: serve HTTPS (GUICHET_TLS_CERT)")
	fs.StringVar(&cfg.TLSKey, "tls-key", cfg.TLSKey, "PEM private key of --tls-cert (GUICHET_TLS_KEY)")
	fs.SetOutput(io.Discard) // parse errors are returned; help is printed to stdout
	fs.StringVar(&cfg.TrustedProxies, "trusted-proxies", cfg.TrustedProxies, "load balancers whose X-Forwarded-For hops are skipped: CIDR list (GUICHET_TRUSTED_PROXIES)")
	fs.StringVar(&cfg.AdminAddr, "admin-addr", cfg.AdminAddr, "admin listener (/metrics); off: none (GUICHET_ADMIN_ADDR)")
	fs.StringVar(&cfg.MaintenanceBypass, "maintenance-bypass", cfg.MaintenanceBypass, "maintenancePageBypass value that lets staff through maintenance (GUICHET_MAINTENANCE_BYPASS)")
	fs.StringVar(&cfg.RegistrationJWTKeys, "registration-jwt-keys", cfg.RegistrationJWTKeys, "smart registration session keys kid:base64key,... (first signs); prefer the variable (GUICHET_REGISTRATION_JWT_KEYS)")
	fs.StringVar(&cfg.RegistrationSessionTTL, "registration-session-ttl", cfg.RegistrationSessionTTL, "--dev only: shorter smart registration session, e.g. 20s (GUICHET_REGISTRATION_SESSION_TTL)")
	fs.StringVar(&cfg.ConsoleHost, "console-host", cfg.ConsoleHost, "the staff console's host name; --dev: console.localhost (GUICHET_CONSOLE_HOST)")
	fs.StringVar(&cfg.AuditRetentionMonths, "audit-retention-months", cfg.AuditRetentionMonths,
		"months audit rows are kept before the janitor purges them; 0: for ever (GUICHET_AUDIT_RETENTION_MONTHS)")
	fs.StringVar(&cfg.DevNow, "dev-now", cfg.DevNow,
		"--dev only: the clock starts at this RFC 3339 instant and runs on, to try chat hours (GUICHET_DEV_NOW)")
	fs.StringVar(&cfg.HashWaitBudget, "hash-wait-budget", cfg.HashWaitBudget,
		"longest expected wait for a password hash before 429 BUSY, e.g. 2s; 0: no bound (GUICHET_HASH_WAIT_BUDGET)")
	fs.StringVar(&cfg.DrainSeconds, "drain-seconds", cfg.DrainSeconds,
		"on SIGTERM, seconds /readyz answers 503 while still serving, before the instance stops accepting; default 5 (GUICHET_DRAIN_SECONDS)")
	fs.StringVar(&cfg.OutboxRetrySeconds, "outbox-retry-seconds", cfg.OutboxRetrySeconds,
		"seconds before the first retry of an email or SMS after a temporary failure, doubled for each further one; default 30 (GUICHET_OUTBOX_RETRY_SECONDS)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout, fs)
			return nil
		}
		return err
	}
	devAdminAddr(&cfg, fs, os.LookupEnv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch cmd {
	case "serve":
		return serve(ctx, cfg)
	case "migrate":
		db, err := app.OpenStore(ctx, cfg)
		if err != nil {
			return err
		}
		defer db.Close()
		fmt.Fprintf(stdout, "migrations applied (%s)\n", db.Dialect)
		return nil
	case "check-config":
		reg, err := app.LoadBrands(cfg)
		if err != nil {
			return err
		}
		if _, _, err := app.RegistrationSession(cfg); err != nil {
			return err
		}
		if _, err := app.LoadBot(cfg, reg); err != nil {
			return err
		}
		if _, err := app.DevClock(cfg); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %d brands valid\n", cfg.BrandsSource(), len(reg.All()))
		return nil
	case "outbox":
		return outbox(ctx, cfg, fs.Args(), stdout)
	case "backup":
		return backup(ctx, cfg, fs.Args(), stdout)
	case "import-policies":
		return importPolicies(ctx, cfg, fs.Args(), dryRun, stdout)
	case "maintenance":
		return maintenanceCmd(ctx, cfg, fs.Args(), stdout)
	case "tokens":
		return tokensCmd(ctx, cfg, fs.Args(), stdout)
	case "staff":
		return staffCmd(ctx, cfg, fs.Args(), stdout)
	case "version":
		fmt.Fprintln(stdout, version)
		return nil
	case "help":
		usage(stdout, fs)
		return nil
	}
	return fmt.Errorf("unknown command %q: guichet help lists them", cmd)
}

// outbox is the operators' view of the notification outbox.
func outbox(ctx context.Context, cfg app.Config, args []string, stdout io.Writer) error {
	db, err := app.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	switch {
	case len(args) == 1 && args[0] == "list":
		return notify.List(ctx, db, stdout)
	case len(args) == 2 && args[0] == "retry":
		if err := notify.Retry(ctx, db, args[1]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "message %s queued again\n", args[1])
		return nil
	}
	return errors.New("usage: guichet outbox list | guichet outbox retry ID")
}

func serve(ctx context.Context, cfg app.Config) error {
	a, err := app.New(ctx, cfg)
	if err != nil {
		return err
	}
	return a.Serve(ctx, func(addr string) {
		slog.Info("serving", "addr", "http://"+addr, "dev", cfg.Dev, "database", a.DB.Dialect.String(), "version", version)
	})
}

// devAdminAddr gives a --dev instance's admin listener a free port (logged at
// start) unless GUICHET_ADMIN_ADDR or --admin-addr chose one: several dev
// instances run side by side on one machine (make run beside the browser
// tests, two instances on one database), and a fixed default port would let
// only the first start.
func devAdminAddr(cfg *app.Config, fs *flag.FlagSet, lookupEnv func(string) (string, bool)) {
	if !cfg.Dev {
		return
	}
	if v, ok := lookupEnv("GUICHET_ADMIN_ADDR"); ok && v != "" {
		return
	}
	chosen := false
	fs.Visit(func(f *flag.Flag) { chosen = chosen || f.Name == "admin-addr" })
	if !chosen {
		cfg.AdminAddr = "127.0.0.1:0"
	}
}
