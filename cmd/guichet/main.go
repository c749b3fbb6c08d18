// Command guichet is the customer account portal: one binary serving the
// branded, bilingual SPA and its API.
//
//	guichet [serve] [--dev]   serve the portal (default)
//	guichet migrate           apply database migrations and exit
//	guichet check-config      validate the brand files and exit
//	guichet outbox list       list queued and recent notifications
//	guichet outbox retry ID   queue a failed or abandoned notification again
//	guichet version           print the version
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
	cfg := app.ConfigFromEnv()
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address (GUICHET_ADDR)")
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "data directory for SQLite (GUICHET_DATA_DIR)")
	fs.StringVar(&cfg.DatabaseURL, "database-url", cfg.DatabaseURL, "postgres:// URL; empty for SQLite (GUICHET_DATABASE_URL)")
	fs.StringVar(&cfg.BrandsDir, "brands-dir", cfg.BrandsDir, "brand files directory (GUICHET_BRANDS_DIR)")
	fs.StringVar(&cfg.SMTPURL, "smtp-url", cfg.SMTPURL, "smtp://user:pass@host:587 (GUICHET_SMTP_URL)")
	fs.StringVar(&cfg.SMSURL, "sms-url", cfg.SMSURL, "SMS provider URL (GUICHET_SMS_URL)")
	fs.BoolVar(&cfg.Dev, "dev", cfg.Dev, "development mode: demo data, dev mailbox, plain http (GUICHET_DEV=1)")
	fs.StringVar(&cfg.HashWaitBudget, "hash-wait-budget", cfg.HashWaitBudget,
		"longest expected wait for a password hash before 429 BUSY, e.g. 2s; 0: no bound (GUICHET_HASH_WAIT_BUDGET)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
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
		fmt.Fprintf(stdout, "%s: %d brands valid\n", cfg.BrandsDir, len(reg.All()))
		return nil
	case "outbox":
		return outbox(ctx, cfg, fs.Args(), stdout)
	case "version":
		fmt.Fprintln(stdout, version)
		return nil
	}
	return fmt.Errorf("unknown command %q (serve, migrate, check-config, outbox, version)", cmd)
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
