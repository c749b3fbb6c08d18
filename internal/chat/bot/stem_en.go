package bot

import "strings"

// stemEN is the Porter stemmer (M. F. Porter, "An algorithm for suffix
// stripping", 1980), steps 1a to 5b as published, on folded words. Words
// of one or two letters, and words that are not plain a to z (digits,
// letters of other scripts), are returned as they are.
func stemEN(w string) string {
	if len(w) <= 2 || !plainASCII(w) {
		return w
	}
	b := []byte(w)
	b = step1a(b)
	b = step1b(b)
	b = step1c(b)
	b = replaceFirst(b, step2, 0)
	b = replaceFirst(b, step3, 0)
	b = step4(b)
	b = step5(b)
	return string(b)
}

func plainASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// cons reports whether b[i] is a consonant: not a, e, i, o, u, and y only
// after a vowel or at the start.
func cons(b []byte, i int) bool {
	switch b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !cons(b, i-1)
	}
	return true
}

// measure is m in [C](VC){m}[V].
func measure(b []byte) int {
	n, i := 0, 0
	for i < len(b) && cons(b, i) {
		i++
	}
	for i < len(b) {
		for i < len(b) && !cons(b, i) {
			i++
		}
		if i == len(b) {
			break
		}
		for i < len(b) && cons(b, i) {
			i++
		}
		n++
	}
	return n
}

func hasVowel(b []byte) bool {
	for i := range b {
		if !cons(b, i) {
			return true
		}
	}
	return false
}

func doubleCons(b []byte) bool {
	n := len(b)
	return n >= 2 && b[n-1] == b[n-2] && cons(b, n-1)
}

// cvc: consonant, vowel, consonant at the end, the last not w, x or y.
func cvc(b []byte) bool {
	n := len(b)
	if n < 3 || !cons(b, n-3) || cons(b, n-2) || !cons(b, n-1) {
		return false
	}
	c := b[n-1]
	return c != 'w' && c != 'x' && c != 'y'
}

func hasSuffix(b []byte, s string) bool { return strings.HasSuffix(string(b), s) }

func step1a(b []byte) []byte {
	switch {
	case hasSuffix(b, "sses"), hasSuffix(b, "ies"):
		return b[:len(b)-2]
	case hasSuffix(b, "ss"):
		return b
	case hasSuffix(b, "s"):
		return b[:len(b)-1]
	}
	return b
}

func step1b(b []byte) []byte {
	if hasSuffix(b, "eed") {
		if measure(b[:len(b)-3]) > 0 {
			return b[:len(b)-1]
		}
		return b
	}
	var stem []byte
	switch {
	case hasSuffix(b, "ed") && hasVowel(b[:len(b)-2]):
		stem = b[:len(b)-2]
	case hasSuffix(b, "ing") && hasVowel(b[:len(b)-3]):
		stem = b[:len(b)-3]
	default:
		return b
	}
	switch {
	case hasSuffix(stem, "at"), hasSuffix(stem, "bl"), hasSuffix(stem, "iz"):
		return append(stem[:len(stem):len(stem)], 'e')
	case doubleCons(stem):
		if c := stem[len(stem)-1]; c != 'l' && c != 's' && c != 'z' {
			return stem[:len(stem)-1]
		}
		return stem
	case measure(stem) == 1 && cvc(stem):
		return append(stem[:len(stem):len(stem)], 'e')
	}
	return stem
}

func step1c(b []byte) []byte {
	if hasSuffix(b, "y") && hasVowel(b[:len(b)-1]) {
		out := append([]byte(nil), b...)
		out[len(out)-1] = 'i'
		return out
	}
	return b
}

type rule struct{ suffix, repl string }

// step2 and step3 (condition m > 0), longest suffixes first so the first
// match is the longest.
var step2 = []rule{
	{"ational", "ate"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"},
	{"ization", "ize"}, {"tional", "tion"}, {"biliti", "ble"}, {"entli", "ent"},
	{"ousli", "ous"}, {"alism", "al"}, {"aliti", "al"}, {"iviti", "ive"},
	{"ation", "ate"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"},
	{"abli", "able"}, {"alli", "al"}, {"ator", "ate"}, {"eli", "e"},
}

var step3 = []rule{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"},
	{"ical", "ic"}, {"ness", ""}, {"ful", ""},
}

// replaceFirst applies the first rule whose suffix b ends with, when the
// stem left has a measure above min; later rules are not tried.
func replaceFirst(b []byte, rules []rule, min int) []byte {
	for _, r := range rules {
		if hasSuffix(b, r.suffix) {
			stem := b[:len(b)-len(r.suffix)]
			if measure(stem) > min {
				return append(stem[:len(stem):len(stem)], r.repl...)
			}
			return b
		}
	}
	return b
}

var step4Suffixes = []string{
	"ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate",
	"iti", "ous", "ive", "ize", "ion", "al", "er", "ic", "ou",
}

func step4(b []byte) []byte {
	for _, s := range step4Suffixes {
		if !hasSuffix(b, s) {
			continue
		}
		stem := b[:len(b)-len(s)]
		if s == "ion" && (len(stem) == 0 || (stem[len(stem)-1] != 's' && stem[len(stem)-1] != 't')) {
			return b
		}
		if measure(stem) > 1 {
			return stem
		}
		return b
	}
	return b
}

func step5(b []byte) []byte {
	if hasSuffix(b, "e") {
		stem := b[:len(b)-1]
		if m := measure(stem); m > 1 || (m == 1 && !cvc(stem)) {
			b = stem
		}
	}
	if measure(b) > 1 && doubleCons(b) && b[len(b)-1] == 'l' {
		b = b[:len(b)-1]
	}
	return b
}
