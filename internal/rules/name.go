package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Name lengths of spec §9, in characters after trimming.
const (
	NameMinLength = 2
	NameMaxLength = 254
)

// FirstName checks a first name (spec §5); see checkName.
func FirstName(s string) (string, error) {
	return checkName(s, FieldFirstName, KeyFirstNameRequired, KeyFirstNameFormat, KeyFirstNameLength)
}

// LastName checks a last name (spec §5); see checkName.
func LastName(s string) (string, error) {
	return checkName(s, FieldLastName, KeyLastNameRequired, KeyLastNameFormat, KeyLastNameLength)
}

// checkName allows letters of any script with their accents (Unicode L and M,
// JavaScript \p{L} and \p{M}), space, apostrophe and hyphen, beginning with a
// letter, 2 to 254 characters. The value is put in NFC (so a decomposed é
// counts as one letter), trimmed, its runs of white space collapsed to one
// space, and the typographic apostrophe ’ replaced by '.
func checkName(s, field, required, format, length string) (string, error) {
	fail := func(key string) (string, error) { return "", Error{field, key} }
	if len(s) > MaxInputBytes {
		return fail(length)
	}
	if !utf8.ValidString(s) {
		return fail(format)
	}
	s = strings.ReplaceAll(collapseSpaces(norm.NFC.String(s)), "’", "'")
	if s == "" {
		return fail(required)
	}
	first, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsLetter(first) || !all(s, isNameRune) {
		return fail(format)
	}
	if n := utf8.RuneCountInString(s); n < NameMinLength || n > NameMaxLength {
		return fail(length)
	}
	return s, nil
}

func isNameRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) || r == ' ' || r == '\'' || r == '-'
}
