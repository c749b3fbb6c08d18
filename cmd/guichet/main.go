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
	"guichet/internal/brand"
	"guichet/internal/notify"
	"guichet/internal/store"
	"guichet/internal/telemetry"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	slog.SetDefault(telemetry.JSONLogger(os.Stderr, slog.LevelInfo))
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "guichet:", err)
		os.Exit(1)
	}
}

// subcommands are the commands that parse their own flags.
var subcommands = map[string]func(ctx context.Context, cfg app.Config, args []string, stdout io.Writer) error{
	"import-policies": importPolicies,
	"maintenance":     maintenanceCmd,
	"tokens":          tokensCmd,
	"staff":           staffCmd,
	"clients":         clientsCmd,
	"oidc":            oidcCmd,
}

func run(args []string, stdout io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	cfg := app.ConfigFromEnv()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The commands with flags of their own build their FlagSet themselves
	// (newFlagSet and parseArgs, as below).
	if sub, ok := subcommands[cmd]; ok {
		return sub(ctx, cfg, args, stdout)
	}
	fs := newFlagSet(cmd, &cfg)
	var status bool
	if cmd == "migrate" {
		fs.BoolVar(&status, "status", false, "list the migrations applied and pending; apply none")
	}
	args, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout, fs)
			return nil
		}
		return err
	}
	// Commands without arguments refuse one (a mistyped flag value would
	// otherwise be ignored).
	switch cmd {
	case "serve", "migrate", "check-config", "version", "help":
		if len(args) > 0 {
			return fmt.Errorf("unexpected argument %q: guichet help lists the commands", args[0])
		}
	}
	devAdminAddr(&cfg, fs, os.LookupEnv)
	switch cmd {
	case "serve":
		return serve(ctx, cfg)
	case "migrate":
		if status {
			return migrationStatus(ctx, cfg, stdout)
		}
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
		if _, err := telemetry.Enabled(os.Getenv); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %d brands valid\n", cfg.BrandsSource(), len(reg.All()))
		return nil
	case "outbox":
		return outbox(ctx, cfg, args, stdout)
	case "backup":
		return backup(ctx, cfg, args, stdout)
	case "version":
		fmt.Fprintln(stdout, version)
		return nil
	case "help":
		usage(stdout, fs)
		return nil
	}
	return fmt.Errorf("unknown command %q: guichet help lists them", cmd)
}

// openWithBrands loads the brands and opens the migrated store, what the
// commands acting on a brand's data start with; the caller closes the store.
func openWithBrands(ctx context.Context, cfg app.Config) (*brand.Registry, *store.DB, error) {
	reg, err := app.LoadBrands(cfg)
	if err != nil {
		return nil, nil, err
	}
	db, err := app.OpenStore(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	return reg, db, nil
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
