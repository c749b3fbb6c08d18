package store

import (
	"context"
	"fmt"
)

// ExecEach runs each of queries in t with the same args, in order (an
// erasure's DELETEs of one account's rows); the first failure stops it,
// wrapped with what.
func (t *Tx) ExecEach(ctx context.Context, what string, queries []string, args ...any) error {
	for _, q := range queries {
		if _, err := t.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return nil
}
