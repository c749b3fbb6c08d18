package rules

import "unicode/utf8"

// Lengths of spec §9.
const (
	SecurityCodeLength = 6
	PINLength          = 8
)

// SecurityCode checks a 6-digit security code (spec §5). White space and
// dashes (a pasted "123 456" or "123-456") are ignored. A value of any other length is a "required"
// failure, as the spec says; 6 characters that are not all digits are a
// format failure.
func SecurityCode(s string) (string, error) {
	fail := func(key string) (string, error) { return "", Error{FieldCode, key} }
	if len(s) > MaxInputBytes {
		return fail(KeyCodeRequired)
	}
	if !utf8.ValidString(s) {
		return fail(KeyCodeFormat)
	}
	s = strip(s, isSeparator)
	if utf8.RuneCountInString(s) != SecurityCodeLength {
		return fail(KeyCodeRequired)
	}
	if !all(s, isDigit) {
		return fail(KeyCodeFormat)
	}
	return s, nil
}

// PIN checks the 8-character PIN (spec §5): letters A-Z or digits,
// upper-cased; white space and dashes are ignored.
func PIN(s string) (string, error) {
	f := field{FieldPIN, KeyPINFormat, KeyPINRequired}
	s, err := f.present(s, compactUpper)
	if err != nil {
		return "", err
	}
	if len(s) != PINLength || !all(s, isAlnum) {
		return f.fail(KeyPINFormat)
	}
	return s, nil
}
