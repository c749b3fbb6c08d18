//go:build !race

package argon2id

const raceEnabled = false
