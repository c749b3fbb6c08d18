package store

import (
	"bufio"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migration is one embedded schema change.
type Migration struct {
	Version int
	Name    string
	sql     map[Dialect]string
}

// migrationLock is the PostgreSQL advisory lock key that keeps two instances
// starting together from migrating at once.
const migrationLock = 7_211_042

// Migrations lists the embedded migrations in order.
func Migrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		num, rest, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_name.sql", name)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migration %s: version %d already used by %s", name, v, prev)
		}
		seen[v] = name
		body, err := migrationFiles.ReadFile("migrations/" + name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: rest, sql: splitDialects(string(body))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// splitDialects reads a migration whose parts may be marked "-- sqlite:",
// "-- postgres:" or "-- all:" (the default) on lines of their own.
func splitDialects(body string) map[Dialect]string {
	var sqlite, pg strings.Builder
	target := []*strings.Builder{&sqlite, &pg}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch strings.TrimSpace(line) {
		case "-- sqlite:":
			target = []*strings.Builder{&sqlite}
			continue
		case "-- postgres:":
			target = []*strings.Builder{&pg}
			continue
		case "-- all:":
			target = []*strings.Builder{&sqlite, &pg}
			continue
		}
		for _, b := range target {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return map[Dialect]string{SQLite: sqlite.String(), Postgres: pg.String()}
}

// Migrate applies the migrations not yet recorded, each in its own
// transaction, and returns how many it applied.
func (db *DB) Migrate(ctx context.Context) (int, error) {
	migs, err := Migrations()
	if err != nil {
		return 0, err
	}
	if db.Dialect == Postgres {
		conn, err := db.SQL.Conn(ctx)
		if err != nil {
			return 0, err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
			return 0, fmt.Errorf("migration lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock) //nolint:errcheck
	}
	if _, err := db.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		return 0, fmt.Errorf("schema_migrations: %w", err)
	}
	applied := 0
	for _, m := range migs {
		err := db.InTx(ctx, func(tx *Tx) error {
			var n int
			if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM schema_migrations WHERE version = ?", m.Version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return errAlreadyApplied
			}
			for _, stmt := range statements(m.sql[db.Dialect]) {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
				}
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
				m.Version, m.Name, time.Now().UnixMilli())
			return err
		})
		switch {
		case err == errAlreadyApplied:
		case err != nil:
			return applied, err
		default:
			applied++
		}
	}
	return applied, nil
}

var errAlreadyApplied = fmt.Errorf("already applied")

// statements splits a migration into statements on semicolons at line ends.
// Migrations keep one statement per ';'-terminated block (no procedural code).
func statements(body string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(body, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--") || trimmed == "" {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}
