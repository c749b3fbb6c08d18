package rules

// PostalCode checks a Canadian postal code, pattern A9A 9A9 (spec §5).
// Letters are upper-cased; white space and dashes are ignored and the
// normalized value has the one space of the pattern: "h2x1y4" gives "H2X 1Y4".
func PostalCode(s string) (string, error) {
	fail := func(key string) (string, error) { return "", Error{FieldPostalCode, key} }
	if !usable(s) {
		return fail(KeyPostalCodeFormat)
	}
	s = upperASCII(strip(s, isSeparator))
	if s == "" {
		return fail(KeyPostalCodeRequired)
	}
	if len(s) != 6 || !all(s, isAlnum) {
		return fail(KeyPostalCodeFormat)
	}
	for i := range 6 {
		if isDigit(rune(s[i])) != (i%2 == 1) {
			return fail(KeyPostalCodeFormat)
		}
	}
	return s[:3] + " " + s[3:], nil
}
