package store_test

import (
	"errors"
	"strings"
	"testing"

	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

// TestExecEach runs its statements in order with the same argument and
// stops at the first failure, wrapped with what it was doing.
func TestExecEach(t *testing.T) {
	for name, open := range map[string]func(testing.TB) *store.DB{"sqlite": storetest.Open, "postgres": storetest.OpenPostgres} {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			ctx := t.Context()
			if _, err := db.Exec(ctx, "CREATE TABLE each_test (n INTEGER)"); err != nil {
				t.Fatal(err)
			}
			err := db.InTx(ctx, func(tx *store.Tx) error {
				return tx.ExecEach(ctx, "fill", []string{
					"INSERT INTO each_test (n) VALUES (?)",
					"UPDATE each_test SET n = n + ? ",
				}, 20)
			})
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := db.QueryRow(ctx, "SELECT n FROM each_test").Scan(&n); err != nil || n != 40 {
				t.Fatalf("n = %d, %v; want 40 (inserted 20, then added 20)", n, err)
			}
			boom := errors.New("boom")
			err = db.InTx(ctx, func(tx *store.Tx) error {
				if err := tx.ExecEach(ctx, "erase", []string{"DELETE FROM each_test WHERE n = ?", "DELETE FROM no_such_table WHERE n = ?"}, 40); err != nil {
					return err
				}
				return boom
			})
			if err == nil || errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "erase: ") {
				t.Fatalf("err = %v, want the failing statement's error wrapped with \"erase: \"", err)
			}
			if err := db.QueryRow(ctx, "SELECT n FROM each_test").Scan(&n); err != nil || n != 40 {
				t.Fatalf("after the failed erasure n = %d, %v; want 40 (rolled back)", n, err)
			}
		})
	}
}
