package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"guichet/internal/app"
)

// newFlagSet is the one FlagSet of a command: the configuration flags every
// command reads (each also an environment variable, usage.go); the command
// adds its own, then parses with parseArgs.
func newFlagSet(name string, cfg *app.Config) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse errors are returned; help is printed to stdout
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
	fs.StringVar(&cfg.MaxInFlight, "max-in-flight", cfg.MaxInFlight,
		"requests under way past which one is answered 503 OVERLOADED at once; default 1024, 0: no bound (GUICHET_MAX_IN_FLIGHT)")
	fs.StringVar(&cfg.DrainSeconds, "drain-seconds", cfg.DrainSeconds,
		"on SIGTERM, seconds /readyz answers 503 while still serving, before the instance stops accepting; default 5 (GUICHET_DRAIN_SECONDS)")
	fs.StringVar(&cfg.OutboxRetrySeconds, "outbox-retry-seconds", cfg.OutboxRetrySeconds,
		"seconds before the first retry of an email or SMS after a temporary failure, doubled for each further one; default 30 (GUICHET_OUTBOX_RETRY_SECONDS)")
	return fs
}

// parseArgs parses args with fs, flags before, between and after the
// positional arguments (`staff add EMAIL --name X` as `staff add --name X
// EMAIL`), and returns the positional ones in order; `--` ends the flags
// (what follows is positional even when it starts with -). The flag
// package alone stops at the first positional argument and ignores every
// flag after it.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" && !flagValue(fs, args[:used-1]) {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}

// parseCommand is parseArgs for a command with its usage text: a flag
// error answers it after the error, positional arguments ok refuses answer
// it alone.
func parseCommand(fs *flag.FlagSet, args []string, usage string, ok func(args []string) bool) ([]string, error) {
	args, err := parseArgs(fs, args)
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, usage)
	}
	if !ok(args) {
		return nil, errors.New(usage)
	}
	return args, nil
}

// flagValue reports whether the last of the parsed args is a flag that
// takes the next argument as its value (`--name --`: "--" is the name).
func flagValue(fs *flag.FlagSet, parsed []string) bool {
	if len(parsed) == 0 {
		return false
	}
	last := parsed[len(parsed)-1]
	if len(last) < 2 || last[0] != '-' || last == "--" {
		return false
	}
	name := last[1:]
	if name[0] == '-' {
		name = name[1:]
	}
	for i := range len(name) {
		if name[i] == '=' {
			return false
		}
	}
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return false
	}
	return true
}
