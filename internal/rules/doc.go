// Package rules holds the field rules of spec §5 and the limits of spec §9.
//
// Each rule is a pure function that takes what the visitor typed and returns
// the normalized value to store or compare, or an Error carrying the field and
// a message key (never free text), so an HTTP handler can answer
// 400 {"errorCode": "<key>"} for the field whatever the browser checked.
//
// The same rules live in web/src/lib/rules (TypeScript). Both sides run every
// vector of testdata/rules/*.json; a rule that disagrees fails both suites.
// testdata/rules/keys.json lists every key per rule for the i18n catalogues;
// TestKeysFile keeps it in step with KeyTable (go test ./internal/rules -run
// TestKeysFile -update rewrites it).
//
// Every rule is safe for any input: more than MaxInputBytes bytes or invalid
// UTF-8 is refused before any other work.
//
// Fuzzing: each rule has a fuzz target seeded from the vectors (FuzzEmail,
// FuzzPassword, ...). It checks that no input panics, that an accepted value
// is valid UTF-8 and a fixed point (the rule accepts its own output unchanged)
// and that a refusal carries one of the rule's keys. make test runs each target
// for about two seconds:
//
//	for t in $(go test -list '^Fuzz' ./internal/rules | grep '^Fuzz'); do
//		go test -run '^$' -fuzz "^$t\$" -fuzztime 2s ./internal/rules || exit 1
//	done
//
// and a longer run of one target is
//
//	go test -run '^$' -fuzz '^FuzzPassword$' -fuzztime 60s ./internal/rules
package rules
