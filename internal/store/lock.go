package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// Lock holds the named lock until the transaction ends, so that instances
// sharing the database (several `guichet serve` behind a load balancer) run
// such transactions one after the other. On PostgreSQL it is a
// transaction-level advisory lock; an SQLite transaction begins IMMEDIATE,
// which already holds the database's single write lock across processes.
func (t *Tx) Lock(ctx context.Context, name string) error {
	if t.Dialect != Postgres {
		return nil
	}
	sum := sha256.Sum256([]byte(name))
	if _, err := t.Exec(ctx, "SELECT pg_advisory_xact_lock(?)", int64(binary.BigEndian.Uint64(sum[:8]))); err != nil {
		return fmt.Errorf("lock %s: %w", name, err)
	}
	return nil
}
