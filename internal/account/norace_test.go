//go:build !race

package account_test

const raceEnabled = false
