package store_test

import (
	"path/filepath"
	"sync"
	"testing"

	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

// TestInstancesMigrateTogether opens one new database from two pools at
// once, as two instances starting together do, and migrates it from both:
// both succeed and each migration is applied once. SQLite's switch of a
// new file to WAL answers busy without waiting, so the race is tried a few
// times.
func TestInstancesMigrateTogether(t *testing.T) {
	ctx := t.Context()
	migs, _ := store.Migrations()
	together := func(t *testing.T, open func() (*store.DB, error)) {
		dbs := make([]*store.DB, 2)
		applied := make([]int, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range dbs {
			wg.Go(func() {
				if dbs[i], errs[i] = open(); errs[i] == nil {
					applied[i], errs[i] = dbs[i].Migrate(ctx)
				}
			})
		}
		wg.Wait()
		for i, err := range errs {
			if dbs[i] != nil {
				t.Cleanup(func() { dbs[i].Close() })
			}
			if err != nil {
				t.Fatalf("instance %d: %v", i, err)
			}
		}
		var recorded int
		if err := dbs[0].QueryRow(ctx, "SELECT COUNT(*) FROM schema_migrations").Scan(&recorded); err != nil {
			t.Fatal(err)
		}
		if applied[0]+applied[1] != len(migs) || recorded != len(migs) {
			t.Fatalf("applied %d + %d, %d recorded; want %d in all", applied[0], applied[1], recorded, len(migs))
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		for range 20 {
			path := filepath.Join(t.TempDir(), "guichet.db")
			together(t, func() (*store.DB, error) { return store.OpenSQLiteFile(ctx, path) })
		}
	})
	t.Run("postgres", func(t *testing.T) {
		url := storetest.PostgresURL(t)
		together(t, func() (*store.DB, error) { return store.Open(ctx, store.Config{URL: url}) })
	})
}
