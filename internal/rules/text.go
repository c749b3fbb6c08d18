package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxInputBytes caps the work of every rule: longer input (in UTF-8 bytes) is
// refused before it is examined. No field of spec §5 comes near it.
const MaxInputBytes = 1024

// usable reports whether a rule may examine s at all.
func usable(s string) bool {
	return len(s) <= MaxInputBytes && utf8.ValidString(s)
}

// field is a form field's rule: its name and the keys of its two first
// failures.
type field struct{ name, format, required string }

// fail is the field's failure with key.
func (f field) fail(key string) (string, error) { return "", Error{f.name, key} }

// present is how every field rule starts: input no rule may examine
// (usable) is the format failure, and an empty value once normalized by
// norm the required failure; else it returns the normalized value.
func (f field) present(s string, norm func(string) string) (string, error) {
	if !usable(s) {
		return f.fail(f.format)
	}
	if s = norm(s); s == "" {
		return f.fail(f.required)
	}
	return s, nil
}

// compactUpper is a value typed in groups (a postal code, a PIN): white
// space and dashes dropped, A-Z upper-cased.
func compactUpper(s string) string { return upperASCII(strip(s, isSeparator)) }

// isSpace is Unicode's White_Space property (JavaScript: /\p{White_Space}/u).
// strings.TrimSpace uses the same set.
func isSpace(r rune) bool { return unicode.IsSpace(r) }

// isSeparator is what masked inputs insert or people type between groups.
func isSeparator(r rune) bool { return r == '-' || isSpace(r) }

// strip removes every rune for which drop reports true.
func strip(s string, drop func(rune) bool) string {
	return strings.Map(func(r rune) rune {
		if drop(r) {
			return -1
		}
		return r
	}, s)
}

// collapseSpaces trims s and turns every run of white space inside it into a
// single U+0020.
func collapseSpaces(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pending := false
	for _, r := range s {
		if isSpace(r) {
			pending = b.Len() > 0
			continue
		}
		if pending {
			b.WriteByte(' ')
			pending = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// upperASCII upper-cases a-z only, as JavaScript's
// s.replace(/[a-z]/g, ...) does; full Unicode case mapping differs between the
// two languages (ß, ﬁ, dotless i).
func upperASCII(s string) string { return shiftASCII(s, 'a', 'A') }

func lowerASCII(s string) string { return shiftASCII(s, 'A', 'a') }

// shiftASCII moves the 26 letters from..from+25 to to..to+25 and keeps
// every other rune.
func shiftASCII(s string, from, to rune) string {
	return strings.Map(func(r rune) rune {
		if from <= r && r <= from+'z'-'a' {
			return r - from + to
		}
		return r
	}, s)
}

// equalFoldASCII compares a and b ignoring the case of A-Z only.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func isDigit(r rune) bool  { return '0' <= r && r <= '9' }
func isLetter(r rune) bool { return 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' }
func isAlnum(r rune) bool  { return isDigit(r) || isLetter(r) }

// all reports whether every rune of s satisfies ok.
func all(s string, ok func(rune) bool) bool {
	for _, r := range s {
		if !ok(r) {
			return false
		}
	}
	return true
}
