package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Backup writes a consistent copy of the SQLite database of cfg to dest
// while instances keep serving (VACUUM INTO reads one snapshot and does not
// block writers). dest must not exist: it is created for the copy alone,
// readable by its owner only, and never overwritten. A PostgreSQL database
// is refused: pg_dump backs it up.
func Backup(ctx context.Context, cfg Config, dest string) error {
	if cfg.URL != "" {
		return errors.New("backup copies the SQLite file; back a PostgreSQL database up with pg_dump " +
			"(e.g. pg_dump --format=custom --file=guichet.dump \"$GUICHET_DATABASE_URL\")")
	}
	dir := cfg.DataDir
	if dir == "" {
		dir = "data"
	}
	src := filepath.Join(dir, "guichet.db")
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("backup: no database to copy: %w", err)
	}
	// Created here, empty, so that an existing file is refused atomically and
	// the copy of personal data is not world-readable; VACUUM INTO fills an
	// empty file.
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("backup: %s already exists; it is not overwritten", dest)
		}
		return fmt.Errorf("backup: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	db, err := OpenSQLiteFile(ctx, src)
	if err == nil {
		_, err = db.SQL.ExecContext(ctx, "VACUUM INTO ?", dest)
		db.Close()
	}
	if err != nil {
		os.Remove(dest)
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}
