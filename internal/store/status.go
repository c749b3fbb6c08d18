package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"
)

// MigrationState is an embedded migration and when it was applied (zero:
// pending).
type MigrationState struct {
	Migration
	AppliedAt time.Time
}

// MigrationStatus reads, without changing anything, which of this binary's
// migrations the database has and which are pending, and the versions it
// has that this binary does not know (applied by a newer one: with
// expand/contract migrations the older binary still serves beside it).
func (db *DB) MigrationStatus(ctx context.Context) (states []MigrationState, newer []int, err error) {
	migs, err := Migrations()
	if err != nil {
		return nil, nil, err
	}
	exists := "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
	if db.Dialect == Postgres {
		exists = "SELECT COUNT(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'schema_migrations'"
	}
	var n int
	if err := db.QueryRow(ctx, exists).Scan(&n); err != nil {
		return nil, nil, fmt.Errorf("migration status: %w", err)
	}
	applied := map[int]int64{}
	if n > 0 {
		rows, err := db.Query(ctx, "SELECT version, applied_at FROM schema_migrations ORDER BY version")
		if err != nil {
			return nil, nil, fmt.Errorf("migration status: %w", err)
		}
		type row struct {
			version int
			at      int64
		}
		got, err := Collect(rows, func(r *sql.Rows) (row, error) {
			var x row
			err := r.Scan(&x.version, &x.at)
			return x, err
		})
		if err != nil {
			return nil, nil, fmt.Errorf("migration status: %w", err)
		}
		for _, x := range got {
			applied[x.version] = x.at
		}
	}
	for _, m := range migs {
		s := MigrationState{Migration: m}
		if at, ok := applied[m.Version]; ok {
			s.AppliedAt = FromMillis(at)
			delete(applied, m.Version)
		}
		states = append(states, s)
	}
	for v := range applied {
		newer = append(newer, v)
	}
	slices.Sort(newer)
	return states, newer, nil
}
