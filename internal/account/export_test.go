package account

import (
	"sync"
	"testing"
)

// SaturateHashers puts every request over h's budget until release (or the
// test's end): a hash is taken to last h.WaitBudget and every hasher holds
// a job blocked on a channel, so the expected wait is (HashSlots()+1) ×
// WaitBudget / HashSlots(). release returns once the jobs are done and the
// estimate is back.
func SaturateHashers(t *testing.T, h *Hasher) (release func()) {
	t.Helper()
	restore := hashTime(t, h.WaitBudget)
	unblock := holdJobs(t, hashSlots)
	return func() {
		unblock()
		restore()
	}
}

// HashLog records the parameters of every hash a Hasher runs.
type HashLog struct {
	mu     sync.Mutex
	params []Params
}

// LogHashes records h's hashes from now on.
func LogHashes(h *Hasher) *HashLog {
	l := &HashLog{}
	h.onHash = func(p Params) {
		l.mu.Lock()
		l.params = append(l.params, p)
		l.mu.Unlock()
	}
	return l
}

// Take returns the parameters recorded since the last Take.
func (l *HashLog) Take() []Params {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.params
	l.params = nil
	return p
}

// StaffSearchQuery is SearchForStaff's query and arguments on dialect d.
var StaffSearchQuery = staffSearch

// PrefixRange is the range of the strings a staff search prefix matches.
var PrefixRange = prefixRange
