package audit

import (
	"testing"
	"time"
)

// Oldest is a purge batch's query; Between's is BetweenQuery's.
const Oldest = oldest

func BetweenQuery(from, to time.Time, brands ...string) (string, []any) {
	return between(from, to, brands)
}

// SetPurgeBatch makes PurgeBefore delete n rows a statement until t ends.
func SetPurgeBatch(t *testing.T, n int) {
	old := purgeBatch
	purgeBatch = n
	t.Cleanup(func() { purgeBatch = old })
}
