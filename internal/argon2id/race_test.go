//go:build race

package argon2id

// raceEnabled: under the race detector sync.Pool drops a share of what it
// is given on purpose, so reuse cannot be measured.
const raceEnabled = true
