package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"guichet/internal/app"
	"guichet/internal/policy"
)

const importUsage = "usage: guichet import-policies [--dry-run] FILE.csv"

// importPolicies is `guichet import-policies [--dry-run] FILE.csv`: the
// insurer's policy records registration checks identities against
// (policy.Importer). A file with any bad row prints every problem as `line
// N: column: problem` and writes nothing.
func importPolicies(ctx context.Context, cfg app.Config, args []string, stdout io.Writer) error {
	fs := newFlagSet("import-policies", &cfg)
	dryRun := fs.Bool("dry-run", false, "check the file, write nothing")
	args, err := parseCommand(fs, args, importUsage, func(args []string) bool { return len(args) == 1 })
	if err != nil {
		return err
	}
	reg, err := app.LoadBrands(cfg)
	if err != nil {
		return err
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	db, err := app.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	im := &policy.Importer{DB: db, Brands: reg.ByID, Now: time.Now(), DryRun: *dryRun}
	res, err := im.Import(ctx, f)
	var problems policy.ImportErrors
	if errors.As(err, &problems) {
		fmt.Fprintln(stdout, problems.Error())
		return fmt.Errorf("%s: %d problems, nothing imported", args[0], len(problems))
	}
	if err != nil {
		return err
	}
	suffix := ""
	if *dryRun {
		suffix = " (dry run: nothing written)"
	}
	fmt.Fprintln(stdout, res.String()+suffix)
	return nil
}
