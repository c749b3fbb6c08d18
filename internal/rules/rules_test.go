package rules

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Inputs the JSON vectors cannot carry: invalid UTF-8 (JSON text is UTF-8)
// and the boundary of MaxInputBytes.

var today = time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)

// stringRules runs every string rule with fixed parameters.
var stringRules = map[string]func(string) (string, error){
	"email":                Email,
	"emailConfirmation":    func(s string) (string, error) { return EmailConfirmation(s, "a@bc.co") },
	"phone":                func(s string) (string, error) { return Phone(s, true) },
	"policyNumber":         func(s string) (string, error) { return PolicyNumber(s, PolicyFormat{Length: 7, Mask: "XXX-XXXX"}) },
	"postalCode":           PostalCode,
	"password":             func(s string) (string, error) { return Password(s, "a@bc.co") },
	"passwordConfirmation": func(s string) (string, error) { return PasswordConfirmation(s, "Green#Lamp42") },
	"loginPassword":        LoginPassword,
	"securityCode":         SecurityCode,
	"pin":                  PIN,
	"firstName":            FirstName,
	"lastName":             LastName,
	"dateOfBirth":          func(s string) (string, error) { return DateOfBirth(s, today) },
	"driverLicence":        func(s string) (string, error) { return DriverLicence(s, "qc", true) },
}

func TestInvalidUTF8(t *testing.T) {
	want := map[string]string{
		"email":                KeyEmailFormat,
		"emailConfirmation":    KeyEmailConfirm,
		"phone":                KeyPhoneFormat,
		"policyNumber":         KeyPolicyNumberFormat,
		"postalCode":           KeyPostalCodeFormat,
		"password":             KeyPasswordInvalidCharacter,
		"passwordConfirmation": KeyPasswordDontMatch,
		"loginPassword":        KeyPasswordInfo,
		"securityCode":         KeyCodeFormat,
		"pin":                  KeyPINFormat,
		"firstName":            KeyFirstNameFormat,
		"lastName":             KeyLastNameFormat,
		"dateOfBirth":          KeyDateOfBirthFormat,
		"driverLicence":        KeyDriverLicenseFormat,
	}
	// Each input would pass its rule but for one bad byte.
	inputs := map[string]string{
		"email":                "a\xff@bc.co",
		"emailConfirmation":    "a@bc.co\xff",
		"phone":                "514\xc3555\xa01234",
		"policyNumber":         "ABC\xed\xa0\x801234",
		"postalCode":           "H2X\xc01Y4",
		"password":             "Green#Lamp42\xff",
		"passwordConfirmation": "Green#Lamp42\xff",
		"loginPassword":        "\xffx",
		"securityCode":         "123\xff456",
		"pin":                  "ABCD\xff1234",
		"firstName":            "Jean\xe9",
		"lastName":             "C\xf4t\xe9",
		"dateOfBirth":          "2000-01-01\xff",
		"driverLicence":        "A12345678901\xff2",
	}
	for rule, run := range stringRules {
		out, err := run(inputs[rule])
		var re Error
		if !errors.As(err, &re) || re.Key != want[rule] || out != "" {
			t.Errorf("%s(%q) = %q, %v; want key %s", rule, inputs[rule], out, err, want[rule])
		}
	}
}

func TestMaxInputBytes(t *testing.T) {
	// Padding with white space keeps the value valid: exactly 1024 bytes are
	// examined, 1025 are not.
	pad := func(v string, n int) string { return v + strings.Repeat(" ", n-len(v)) }
	ok := map[string]string{
		"email":         "a@bc.co",
		"phone":         "514-555-1234",
		"postalCode":    "H2X 1Y4",
		"securityCode":  "123456",
		"pin":           "ABCD1234",
		"firstName":     "Jean",
		"dateOfBirth":   "2000-01-01",
		"driverLicence": "A123456789012",
		"loginPassword": "x",
	}
	for rule, v := range ok {
		run := stringRules[rule]
		if _, err := run(pad(v, MaxInputBytes)); err != nil {
			t.Errorf("%s: %d bytes refused: %v", rule, MaxInputBytes, err)
		}
		if _, err := run(pad(v, MaxInputBytes+1)); err == nil {
			t.Errorf("%s: %d bytes accepted", rule, MaxInputBytes+1)
		}
	}
}

// A rule refuses input over MaxInputBytes before working on it: refusing
// 2 MB allocates no more than refusing MaxInputBytes+1 bytes (a rule that
// trimmed, folded or normalized first would allocate megabytes).
func TestLongInputIsCheap(t *testing.T) {
	huge := strings.Repeat("a@", 1<<20)
	over := huge[:MaxInputBytes+1]
	allocated := func(run func(string) (string, error), s string) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 10 {
			_, _ = run(s)
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / 10
	}
	for rule, run := range stringRules {
		if _, err := run(huge); err == nil {
			t.Errorf("%s accepted 2 MB", rule)
		}
		if big, small := allocated(run, huge), allocated(run, over); big > small+4096 {
			t.Errorf("%s allocated %d bytes refusing 2 MB, %d refusing %d bytes", rule, big, small, len(over))
		}
	}
}

func TestErrorForHandlers(t *testing.T) {
	_, err := Phone("12", true)
	wrapped := fmt.Errorf("identify: %w", err)
	var re Error
	if !errors.As(wrapped, &re) || re != (Error{Field: FieldPhone, Key: KeyPhoneFormat}) {
		t.Fatalf("errors.As(%v) = %+v", wrapped, re)
	}
	if got, want := err.Error(), "rules: phone: errorPhoneFormat"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestKeys(t *testing.T) {
	keys := Keys()
	if !slices.IsSorted(keys) || len(slices.Compact(slices.Clone(keys))) != len(keys) {
		t.Fatalf("Keys() not sorted and unique: %v", keys)
	}
	rules := map[string]bool{}
	for _, r := range KeyTable {
		if rules[r.Rule] || len(r.Keys) == 0 || r.Field == "" {
			t.Errorf("KeyTable row %+v: duplicate or empty", r)
		}
		rules[r.Rule] = true
	}
	for _, k := range keys {
		if strings.TrimSpace(k) != k || k == "" {
			t.Errorf("key %q", k)
		}
	}
}

func TestPolicyFormatCheck(t *testing.T) {
	tests := []struct {
		format PolicyFormat
		ok     bool
	}{
		{PolicyFormat{7, "XXX-XXXX"}, true},
		{PolicyFormat{9, "XXXXXXXXX"}, true},
		{PolicyFormat{9, ""}, true},
		{PolicyFormat{7, "AAA-9999"}, true},
		{PolicyFormat{5, "*_X-A9"}, true},
		{PolicyFormat{0, ""}, false},
		{PolicyFormat{-1, ""}, false},
		{PolicyFormat{31, ""}, false},
		{PolicyFormat{7, "XXX-XXX"}, false},
		{PolicyFormat{7, "XXX-XXXXX"}, false},
		{PolicyFormat{7, "XXX-XXX\xff"}, false},
	}
	for _, tt := range tests {
		if err := tt.format.Check(); (err == nil) != tt.ok {
			t.Errorf("%+v.Check() = %v, want ok %v", tt.format, err, tt.ok)
		}
	}
}

func TestEmailEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"Jean@Example.com", "jean@example.COM", true},
		{" a@bc.co\t", "A@BC.CO", true},
		{"a@bc.co", "a@bc.ca", false},
		{"kim@example.com", "\u212aim@example.com", false},
		{"", "", true},
	}
	for _, tt := range tests {
		if got := EmailEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("EmailEqual(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestNormalizePassword(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  a  b   c  ", "a b c "},
		{"\t\u00a0x", "x"},
		{"E\u0301", "\u00c9"},
		{"a\t\tb", "a\t\tb"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := NormalizePassword(tt.in); got != tt.want {
			t.Errorf("NormalizePassword(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDateOfBirthUsesTodaysLocation(t *testing.T) {
	// 02:00 UTC on 15 June is still 14 June in Newfoundland: not yet 16.
	st := time.FixedZone("NDT", -(2*3600 + 30*60))
	now := time.Date(2025, 6, 15, 2, 0, 0, 0, time.UTC)
	if _, err := DateOfBirth("2009-06-15", now); err != nil {
		t.Errorf("in UTC: %v", err)
	}
	if _, err := DateOfBirth("2009-06-15", now.In(st)); err == nil {
		t.Error("in St. John's: accepted one day before the 16th birthday")
	}
}
