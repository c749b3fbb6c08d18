package rules

import (
	_ "embed"
	"strings"
	"sync"
)

// blocklistText is the list of common passwords, one a line, lower case,
// 10 to 64 characters (shorter ones fail the length rule anyway). It is built
// by generateBlocklist in blocklist_test.go from words, names, places, brand
// names, keyboard walks and the suffixes people add to pass composition rules
// ("Password1!", "Summer2024!"); go test ./internal/rules -run
// TestBlocklistFile -update rewrites it. It is never sent to the browser.
//
//go:embed blocklist.txt
var blocklistText string

var blocklist = sync.OnceValue(func() map[string]struct{} {
	lines := strings.Split(strings.TrimSpace(blocklistText), "\n")
	set := make(map[string]struct{}, len(lines))
	for _, l := range lines {
		set[l] = struct{}{}
	}
	return set
})

// commonPassword reports whether the normalized password is on the blocklist,
// ignoring the case of A-Z.
func commonPassword(normalized string) bool {
	_, found := blocklist()[lowerASCII(normalized)]
	return found
}
