package rules

// DriverLicenceMaxLength is the longest licence of the provinces without a
// rule of their own (spec §5 "others").
const DriverLicenceMaxLength = 30

// driverLicenceLengths are spec §5's lengths per province, dashes ignored.
var driverLicenceLengths = map[string][]int{
	"qc": {13},
	"on": {15},
	"ab": {6, 9},
	"bc": {7},
	"ns": {14},
}

// DriverLicence checks a driver licence number for the licence province
// (spec §5): letters A-Z or digits, upper-cased, white space and dashes
// ignored; qc 13, on 15, ab 6 or 9, bc 7, ns 14, any other province (or
// "other") 1 to 30. When the visitor's province has no UBI (ubi false) the
// field is not asked and the value is cleared: the result is "" and no error.
func DriverLicence(s, province string, ubi bool) (string, error) {
	if !ubi {
		return "", nil
	}
	f := field{FieldDriverLicense, KeyDriverLicenseFormat, KeyDriverLicenseRequired}
	s, err := f.present(s, compactUpper)
	if err != nil {
		return "", err
	}
	if !all(s, isAlnum) {
		return f.fail(KeyDriverLicenseFormat)
	}
	lengths, ok := driverLicenceLengths[lowerASCII(province)]
	if !ok {
		if len(s) > DriverLicenceMaxLength {
			return f.fail(KeyDriverLicenseFormat)
		}
		return s, nil
	}
	for _, n := range lengths {
		if len(s) == n {
			return s, nil
		}
	}
	return f.fail(KeyDriverLicenseFormat)
}
