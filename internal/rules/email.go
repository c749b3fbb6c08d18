package rules

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// EmailMaxLength is spec §9's email maximum, in characters.
const EmailMaxLength = 79

// emailLocalMaxLength is RFC 5321's limit on the part before the @.
const emailLocalMaxLength = 64

// emailPattern is HTML's "valid e-mail address" with two tightenings the mail
// servers need: the local part is a dot-atom (no leading, trailing or doubled
// dot) and the last label (the suffix) is at least 2 letters or an xn-- label.
// web/src/lib/rules/email.ts holds the same expression.
var emailPattern = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*" +
	"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+" +
	"(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{0,57}[A-Za-z0-9])$")

// Email checks an email address (spec §5): required, at most 79 characters,
// the pattern above, and a domain whose part before the suffix has at least 2
// characters ("a@b.co" fails, "a@bc.co" and "a@mail.b.co" pass). Surrounding
// white space is trimmed; the case is kept as typed (compare with EmailEqual).
func Email(s string) (string, error) {
	f := field{FieldEmail, KeyEmailFormat, KeyEmailRequired}
	s, err := f.present(s, strings.TrimSpace)
	if err != nil {
		return "", err
	}
	if utf8.RuneCountInString(s) > EmailMaxLength || !emailPattern.MatchString(s) {
		return f.fail(KeyEmailFormat)
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	if at > emailLocalMaxLength || strings.LastIndexByte(domain, '.') < 2 {
		return f.fail(KeyEmailFormat)
	}
	return s, nil
}

// EmailConfirmation checks the retyped email against the email (spec §5
// "Email retype"): both trimmed, compared ignoring case.
func EmailConfirmation(confirmation, email string) (string, error) {
	f := field{FieldEmailConfirmation, KeyEmailConfirm, KeyEmailConfirmRequired}
	confirmation, err := f.present(confirmation, strings.TrimSpace)
	if err != nil {
		return "", err
	}
	if !EmailEqual(confirmation, email) {
		return f.fail(KeyEmailConfirm)
	}
	return confirmation, nil
}

// EmailEqual reports whether two email addresses are the same account name:
// trimmed, ignoring the case of A-Z (valid addresses are ASCII).
func EmailEqual(a, b string) bool {
	return equalFoldASCII(strings.TrimSpace(a), strings.TrimSpace(b))
}
