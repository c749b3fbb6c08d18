package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"guichet/internal/app"
	"guichet/internal/store"
)

// backup is `guichet backup FILE`: an online copy of the SQLite database.
func backup(ctx context.Context, cfg app.Config, args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: guichet backup FILE")
	}
	if err := store.Backup(ctx, store.Config{URL: cfg.DatabaseURL, DataDir: cfg.DataDir}, args[0]); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup written to %s\n", args[0])
	return nil
}
