package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"guichet/internal/app"
)

// migrationStatus prints each migration of this binary, applied (when) or
// pending, then the versions the database has that this binary does not
// know (a newer binary's), and changes nothing: `guichet migrate --status`
// before a rollout says what `guichet migrate` would apply (README,
// "Upgrades").
func migrationStatus(ctx context.Context, cfg app.Config, stdout io.Writer) error {
	db, err := app.OpenStoreAsIs(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	states, newer, err := db.MigrationStatus(ctx)
	if err != nil {
		return err
	}
	pending := 0
	for _, s := range states {
		state := "applied " + s.AppliedAt.Format(time.RFC3339)
		if s.AppliedAt.IsZero() {
			state = "pending"
			pending++
		}
		fmt.Fprintf(stdout, "%04d_%-28s %s\n", s.Version, s.Name, state)
	}
	for _, v := range newer {
		fmt.Fprintf(stdout, "%04d %-29s applied by a newer version\n", v, "")
	}
	fmt.Fprintf(stdout, "%d applied, %d pending (%s)\n", len(states)-pending, pending, db.Dialect)
	return nil
}
