package rules

// PostalCode checks a Canadian postal code, pattern A9A 9A9 (spec §5).
// Letters are upper-cased; white space and dashes are ignored and the
// normalized value has the one space of the pattern: "h2x1y4" gives "H2X 1Y4".
func PostalCode(s string) (string, error) {
	f := field{FieldPostalCode, KeyPostalCodeFormat, KeyPostalCodeRequired}
	s, err := f.present(s, compactUpper)
	if err != nil {
		return "", err
	}
	if len(s) != 6 || !all(s, isAlnum) {
		return f.fail(KeyPostalCodeFormat)
	}
	for i := range 6 {
		if isDigit(rune(s[i])) != (i%2 == 1) {
			return f.fail(KeyPostalCodeFormat)
		}
	}
	return s[:3] + " " + s[3:], nil
}
