package storetest

import (
	"strings"
	"testing"

	"guichet/internal/store"
)

// Plan returns how db would run q with args, one line a step: SQLite's
// EXPLAIN QUERY PLAN (it keeps no statistics here, so the plan is the one
// production gets), PostgreSQL's EXPLAIN with sequential scans, bitmap
// scans and sorts priced out for that transaction: with a test's handful
// of rows it would scan or sort them, so the plan shows instead whether an
// index can serve q, in q's order. Tests of queries that must stay flat as
// data grows assert the index they use and that nothing is sorted, rather
// than time them.
func Plan(t testing.TB, db *store.DB, q string, args ...any) string {
	t.Helper()
	var lines []string
	err := db.InTx(t.Context(), func(tx *store.Tx) error {
		lines = lines[:0]
		explain := "EXPLAIN QUERY PLAN "
		if db.Dialect == store.Postgres {
			for _, off := range []string{"enable_seqscan", "enable_bitmapscan", "enable_sort"} {
				if _, err := tx.Exec(t.Context(), "SET LOCAL "+off+" = off"); err != nil {
					return err
				}
			}
			explain = "EXPLAIN "
		}
		rows, err := tx.Query(t.Context(), explain+q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		cols, err := rows.Columns()
		if err != nil {
			return err
		}
		for rows.Next() {
			// SQLite: id, parent, notused, detail; PostgreSQL: one text column.
			cells := make([]any, len(cols))
			for i := range cells {
				cells[i] = new(any)
			}
			if err := rows.Scan(cells...); err != nil {
				return err
			}
			line, _ := (*cells[len(cells)-1].(*any)).(string)
			if b, ok := (*cells[len(cells)-1].(*any)).([]byte); ok {
				line = string(b)
			}
			lines = append(lines, line)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatalf("plan of %q: %v", q, err)
	}
	return strings.Join(lines, "\n")
}
