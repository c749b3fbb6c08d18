package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Password lengths of spec §9, in characters after normalization.
const (
	PasswordMinLength = 10
	PasswordMaxLength = 64
)

// emailPartMinLength is the shortest piece of an email's local part that a
// password may not contain; shorter pieces ("jo", "a1") are too common in
// ordinary words to refuse.
const emailPartMinLength = 3

// NormalizePassword is the form of a password that is hashed and compared:
// NFC (so é typed composed or decomposed is the same password), leading white
// space removed and every run of spaces (U+0020) collapsed to one, as spec §5
// says. Login and reset both go through it, so they agree on every password.
func NormalizePassword(s string) string {
	s = strings.TrimLeftFunc(norm.NFC.String(s), isSpace)
	for strings.Contains(s, "  ") {
		s = strings.ReplaceAll(s, "  ", " ")
	}
	return s
}

// Password checks a new password (spec §5), in this order:
//   - more than MaxInputBytes: protectAccount.passwordInfo; not UTF-8:
//     errorPasswordInvalidCharacter;
//   - empty after NormalizePassword: errorPasswordRequired;
//   - a control or invisible formatting character (Unicode Cc, Cf; tabs and
//     line breaks among them): errorPasswordInvalidCharacter;
//   - fewer than 10 or more than 64 characters, or missing an upper-case
//     letter (Lu), a lower-case letter (Ll), a digit (Nd) or a special
//     character (anything that is not a letter, a digit or white space):
//     protectAccount.passwordInfo;
//   - containing part of the email, ignoring case: errorPasswordContainsEmail.
//     The parts are the local part (before the last @) and each run of 3 or
//     more letters and digits in it, split at every other character, when
//     they have at least 3 characters: for "jean-marc.o@x.ca", "jean-marc.o",
//     "jean" and "marc";
//   - a common password: errorPasswordCommon. One of its forms (the
//     password lower-cased; that up to its last letter; that with 0 @ $ 3 5 7
//     read as o a s e s t, a 1 reading as 1, i or l) is a keyboard walk (4 or
//     more keys along a row, column or zig-zag of QWERTY or AZERTY, with fewer
//     than 4 letters and digits beside the walks) or equals a word of the
//     blocklist (an entry, or an entry up to its last letter when that has 4
//     or more characters). Equality, not containment: "Passw0rd!!" and
//     "Qwerty@12345" are common, "Correct Horse Battery Staple 7!" is not.
//     The browser checks walks only; the blocklist stays on the server.
//     common.go has the details.
//
// It returns the normalized password, the value to hash.
func Password(s, email string) (string, error) {
	fail := func(key string) (string, error) { return "", Error{FieldPassword, key} }
	if len(s) > MaxInputBytes {
		return fail(KeyPasswordInfo)
	}
	if !utf8.ValidString(s) {
		return fail(KeyPasswordInvalidCharacter)
	}
	s = NormalizePassword(s)
	if s == "" {
		return fail(KeyPasswordRequired)
	}
	var upper, lower, digit, special bool
	for _, r := range s {
		switch {
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return fail(KeyPasswordInvalidCharacter)
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsLower(r):
			lower = true
		case unicode.IsDigit(r):
			digit = true
		case !unicode.IsLetter(r) && !isSpace(r):
			special = true
		}
	}
	n := utf8.RuneCountInString(s)
	if n < PasswordMinLength || n > PasswordMaxLength || !upper || !lower || !digit || !special {
		return fail(KeyPasswordInfo)
	}
	if containsEmailPart(s, email) {
		return fail(KeyPasswordContainsEmail)
	}
	if commonPassword(s) {
		return fail(KeyPasswordCommon)
	}
	return s, nil
}

// containsEmailPart reports whether password holds a part of email's local
// part (see Password), ignoring the case of A-Z.
func containsEmailPart(password, email string) bool {
	email = strings.TrimSpace(email)
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return false
	}
	password = lowerASCII(password)
	local := lowerASCII(email[:at])
	parts := strings.FieldsFunc(local, func(r rune) bool { return !isAlnum(r) })
	parts = append(parts, local)
	for _, p := range parts {
		if utf8.RuneCountInString(p) >= emailPartMinLength && strings.Contains(password, p) {
			return true
		}
	}
	return false
}

// PasswordConfirmation checks the retyped password (spec §5 "Password
// retype"): equal to the password once both are normalized.
func PasswordConfirmation(confirmation, password string) (string, error) {
	f := field{FieldPasswordConfirmation, KeyPasswordDontMatch, KeyPasswordConfirmRequired}
	confirmation, err := f.present(confirmation, NormalizePassword)
	if err != nil {
		return "", err
	}
	if !usable(password) || confirmation != NormalizePassword(password) {
		return f.fail(KeyPasswordDontMatch)
	}
	return confirmation, nil
}

// LoginPassword checks the password typed at login (spec §5: only required)
// and returns it normalized, to compare with the stored hash. Input over
// MaxInputBytes or not UTF-8 cannot be anyone's password and is refused with
// protectAccount.passwordInfo without being examined.
func LoginPassword(s string) (string, error) {
	return field{FieldLoginPassword, KeyPasswordInfo, KeyPasswordRequired}.present(s, NormalizePassword)
}
