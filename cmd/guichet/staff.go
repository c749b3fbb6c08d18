package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"guichet/internal/app"
	"guichet/internal/staff"
)

const staffUsage = `usage: guichet staff add EMAIL --name NAME --role agent|supervisor|admin [--brands belair,intact|all]
       guichet staff disable EMAIL
       guichet staff list`

// staffCmd is `guichet staff add|disable|list`: the console's staff
// members (internal/staff). add prints the one-time set-up link on stdout.
func staffCmd(ctx context.Context, cfg app.Config, args []string, stdout io.Writer) error {
	fs := newFlagSet("staff", &cfg)
	var name, role, brands string
	fs.StringVar(&name, "name", "", "the member's name (add)")
	fs.StringVar(&role, "role", "", "agent, supervisor or admin (add)")
	fs.StringVar(&brands, "brands", "all", "brands served: a comma list, or all (add)")
	args, err := parseCommand(fs, args, staffUsage, func(args []string) bool { return len(args) > 0 })
	if err != nil {
		return err
	}
	sub, email := args[0], ""
	if len(args) > 1 {
		email = args[1]
	}
	if len(args) > 2 {
		return fmt.Errorf("unexpected argument %q\n%s", args[2], staffUsage)
	}
	if sub != "add" {
		var only string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "name" || f.Name == "role" || f.Name == "brands" {
				only = f.Name
			}
		})
		if only != "" {
			return fmt.Errorf("--%s is for staff add only\n%s", only, staffUsage)
		}
	}
	switch sub {
	case "add", "disable":
		if email == "" {
			return fmt.Errorf("missing EMAIL\n%s", staffUsage)
		}
	case "list":
		if email != "" {
			return fmt.Errorf("unexpected argument %q\n%s", email, staffUsage)
		}
	default:
		return errors.New(staffUsage)
	}
	var origin string
	if sub == "add" {
		if origin = app.ConsoleOrigin(cfg); origin == "" {
			return errors.New("no console host: set GUICHET_CONSOLE_HOST (or --console-host), the host the set-up link points to")
		}
	}
	brandReg, db, err := openWithBrands(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	svc, err := app.StaffService(ctx, cfg, db, brandReg, nil)
	if err != nil {
		return err
	}
	switch sub {
	case "add":
		in := staff.NewMember{Email: email, Name: name, Role: staff.Role(role)}
		if b := strings.TrimSpace(brands); b != "all" && b != "" {
			in.Brands = strings.Split(b, ",")
		}
		m, token, err := svc.Add(ctx, in, "cli")
		if errors.Is(err, staff.ErrExists) {
			return fmt.Errorf("staff add: %s is already a staff member", email)
		}
		if err != nil {
			return fmt.Errorf("staff add: %w", err)
		}
		fmt.Fprintln(stdout, origin+"/setup#"+token)
		fmt.Fprintf(stderr, "staff member %s (%s, %s) added; the set-up link works once, until %s\n",
			m.Email, m.Role, brandList(m.Brands), m.CreatedAt.Add(staff.SetupLinkTTL).Format(time.RFC3339))
		return nil
	case "disable":
		if err := svc.Disable(ctx, email, "cli"); errors.Is(err, staff.ErrUnknown) {
			return fmt.Errorf("staff disable: no staff member %s", email)
		} else if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "staff member %s disabled; their sessions ended\n", strings.ToLower(strings.TrimSpace(email)))
		return nil
	}
	members, err := svc.List(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EMAIL\tNAME\tROLE\tBRANDS\tSTATUS")
	for _, m := range members {
		status := "active"
		switch {
		case m.Disabled:
			status = "disabled"
		case !m.Enrolled:
			status = "set-up pending"
		case m.LockedUntil.After(svc.Now()):
			status = "locked"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Email, m.Name, m.Role, brandList(m.Brands), status)
	}
	return tw.Flush()
}

func brandList(b []string) string {
	if len(b) == 0 {
		return "all"
	}
	return strings.Join(b, ",")
}
