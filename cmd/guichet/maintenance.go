package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"guichet/internal/app"
	"guichet/internal/maintenance"
)

const maintenanceUsage = "usage: guichet maintenance on [--brand B] [--until RFC3339-TIME] | " +
	"guichet maintenance off [--brand B] | guichet maintenance status"

// maintenanceCmd turns maintenance mode on or off, for every brand or one
// (--brand), or shows it. Every instance sees a change within a second;
// turning it on or off is audited (actor "cli").
func maintenanceCmd(ctx context.Context, cfg app.Config, args []string, stdout io.Writer) error {
	return runMaintenance(ctx, cfg, args, stdout, time.Now())
}

// runMaintenance is maintenanceCmd at the time now.
func runMaintenance(ctx context.Context, cfg app.Config, args []string, stdout io.Writer, now time.Time) error {
	fs := newFlagSet("maintenance", &cfg)
	brand := fs.String("brand", "", "one brand (default: every brand)")
	until := fs.String("until", "", "when maintenance ends by itself, RFC 3339 (e.g. 2026-11-24T08:00:00-05:00)")
	args, err := parseArgs(fs, args)
	if err != nil || len(args) != 1 || (args[0] != "on" && *until != "") ||
		(args[0] == "status" && *brand != "") {
		return errors.New(maintenanceUsage)
	}
	change := maintenance.Change{Brand: maintenance.AllBrands, At: now, Actor: "cli"}
	if *brand != "" {
		change.Brand = strings.ToLower(*brand)
	}
	switch args[0] {
	case "on":
		if *until != "" {
			t, err := time.Parse(time.RFC3339, *until)
			if err != nil {
				return fmt.Errorf("--until %q: not an RFC 3339 time (e.g. 2026-11-24T08:00:00-05:00)", *until)
			}
			change.Until = t
		}
		if *brand != "" {
			// A mistyped brand would put nothing under maintenance.
			reg, err := app.LoadBrands(cfg)
			if err != nil {
				return err
			}
			if _, ok := reg.ByID(change.Brand); !ok {
				return fmt.Errorf("--brand %q: not a brand of %s", *brand, cfg.BrandsSource())
			}
		}
	case "off", "status":
	default:
		return errors.New(maintenanceUsage)
	}
	db, err := app.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	switch args[0] {
	case "on":
		if err := maintenance.On(ctx, db, change); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "maintenance on %s\n", describe(maintenance.Window{Brand: change.Brand, Until: change.Until}))
	case "off":
		wasOn, err := maintenance.Off(ctx, db, change)
		if err != nil {
			return err
		}
		if wasOn {
			fmt.Fprintf(stdout, "maintenance off %s\n", describe(maintenance.Window{Brand: change.Brand}))
		} else {
			fmt.Fprintf(stdout, "maintenance was not on %s\n", describe(maintenance.Window{Brand: change.Brand}))
		}
	case "status":
		windows, err := maintenance.Active(ctx, db, now)
		if err != nil {
			return err
		}
		if len(windows) == 0 {
			fmt.Fprintln(stdout, "maintenance off")
			return nil
		}
		parts := make([]string, len(windows))
		for i, w := range windows {
			parts[i] = describe(w)
		}
		fmt.Fprintf(stdout, "maintenance on %s\n", strings.Join(parts, "; "))
	}
	return nil
}

// describe says which brands a window covers and until when.
func describe(w maintenance.Window) string {
	who := "for " + w.Brand
	if w.Brand == maintenance.AllBrands {
		who = "for every brand"
	}
	if w.Until.IsZero() {
		return who
	}
	return who + " until " + w.Until.UTC().Format(time.RFC3339)
}
