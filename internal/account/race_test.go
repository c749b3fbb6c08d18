//go:build race

package account_test

// raceEnabled: the race detector slows the database and HTTP code several
// times but argon2's assembly barely, so the timing test needs a longer hash
// to keep the hash the largest part of each answer.
const raceEnabled = true
