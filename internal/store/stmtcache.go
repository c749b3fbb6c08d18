package store

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// stmtCache keeps SQLite statements prepared, by query text: pure-Go SQLite
// spends longer parsing and planning most of this application's statements
// than running them (a third of a sign-in's database time before the
// cache). database/sql prepares a cached statement on each connection that
// runs it, once. PostgreSQL needs none of this: pgx keeps a cache of its
// own on each connection.
//
// The cache holds at most maxCachedStmts statements, the first ones seen;
// the application's queries are constant strings, so that is all of them.
// A query that fails to prepare is not cached and runs as before, giving its
// error there.
type stmtCache struct {
	on     bool // SQLite only; set when the DB opens
	mu     sync.Mutex
	m      map[string]*sql.Stmt
	closed bool
}

const maxCachedStmts = 512

func (c *stmtCache) get(q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[q]
}

// prepared returns q's statement, preparing it when it is not cached yet;
// nil when the cache is off or full, or q does not prepare. The caller must
// hold no connection (prepare takes one from the pool).
func (c *stmtCache) prepared(ctx context.Context, db *sql.DB, q string) *sql.Stmt {
	if !c.on {
		return nil
	}
	if s := c.get(q); s != nil {
		return s
	}
	c.prepareAll([]string{q}, db)
	return c.get(q)
}

// prepareAll prepares and caches the queries not cached yet.
func (c *stmtCache) prepareAll(queries []string, db *sql.DB) {
	for _, q := range queries {
		c.mu.Lock()
		_, have := c.m[q]
		full := len(c.m) >= maxCachedStmts
		c.mu.Unlock()
		if have || full {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s, err := db.PrepareContext(ctx, q)
		cancel()
		if err != nil {
			continue
		}
		c.mu.Lock()
		if _, have := c.m[q]; have || c.closed || len(c.m) >= maxCachedStmts {
			c.mu.Unlock()
			s.Close()
			continue
		}
		if c.m == nil {
			c.m = make(map[string]*sql.Stmt)
		}
		c.m[q] = s
		c.mu.Unlock()
	}
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, s := range c.m {
		s.Close()
		delete(c.m, q)
	}
	c.closed = true
}
