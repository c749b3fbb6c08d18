package rules

// PhoneDigits is spec §9's phone length.
const PhoneDigits = 10

// Phone checks a Canadian phone number typed as 999-999-9999 (spec §5). The
// normalized value is the 10 digits alone, as the API sends it ("dashes
// removed before sending"); white space, dashes, dots and parentheses typed
// or pasted around the groups are ignored. When required is false an empty
// value passes as "".
func Phone(s string, required bool) (string, error) {
	fail := func(key string) (string, error) { return "", Error{FieldPhone, key} }
	if !usable(s) {
		return fail(KeyPhoneFormat)
	}
	s = strip(s, func(r rune) bool { return isSeparator(r) || r == '.' || r == '(' || r == ')' })
	if s == "" {
		if required {
			return fail(KeyPhoneRequired)
		}
		return "", nil
	}
	if len(s) != PhoneDigits || !all(s, isDigit) {
		return fail(KeyPhoneFormat)
	}
	return s, nil
}
