package rules

import (
	_ "embed"
	"strings"
	"sync"
	"unicode/utf8"
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

// blocklistMinCore is the shortest core (passwordCore) of an entry that is a
// blocklisted word itself: "summer" of "summer2024!" is, "abc" of
// "abc123451!" is not, or "Abc#84620391!" would be refused for its first
// three letters.
const blocklistMinCore = 4

// blocklist indexes the blocklisted words, the entries and the cores of the
// entries ("password" of "password1!"), by blocklistKey.
var blocklist = sync.OnceValue(func() map[string][]string {
	words := map[string][]string{}
	add := func(w string) {
		k := blocklistKey(w)
		for _, x := range words[k] {
			if x == w {
				return
			}
		}
		words[k] = append(words[k], w)
	}
	for entry := range strings.SplitSeq(strings.TrimSpace(blocklistText), "\n") {
		add(entry)
		if core := passwordCore(entry); utf8.RuneCountInString(core) >= blocklistMinCore {
			add(core)
		}
	}
	return words
})

// blocklistKey writes i and l as 1, so that a form whose 1 may be read as
// either letter finds the words it may spell under one key.
func blocklistKey(s string) string {
	return strings.Map(func(r rune) rune {
		if r == 'i' || r == 'l' {
			return '1'
		}
		return r
	}, s)
}

// blocklisted reports whether form (see commonForms) equals a blocklisted
// word, a 1 in form reading as 1, i or l.
func blocklisted(form string) bool {
	for _, w := range blocklist()[blocklistKey(form)] {
		if sameWord(form, w) {
			return true
		}
	}
	return false
}

// sameWord compares form with w of the same key: they differ only where one
// has 1, i or l and the other another of the three; only a 1 in form may
// stand for something else.
func sameWord(form, w string) bool {
	for i := 0; i < len(form); i++ {
		if form[i] != w[i] && form[i] != '1' {
			return false
		}
	}
	return true
}
