package rules

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Every fuzz target checks, for any input: no panic; a refusal is an Error
// for the rule's field with one of its keys and an empty value; an accepted
// value is valid UTF-8 and a fixed point (the rule gives it back unchanged).
// The seed corpus is the rule's vectors plus invalid UTF-8 and long input.
// Terms takes a boolean, so both of its inputs are vectors and it has no
// target.

// seeds returns the inputs and parameters of a rule's vectors, and a few
// inputs JSON cannot carry.
func seeds(f *testing.F, rule string) []seed {
	var out []seed
	for _, file := range loadVectors(f) {
		if file.Rule != rule {
			continue
		}
		for _, c := range slices.Concat(file.Pass, file.Fail) {
			in, err := c.input()
			if err != nil {
				f.Fatal(err)
			}
			p, err := c.params(file.Params)
			if err != nil {
				f.Fatal(err)
			}
			if s, ok := in.(string); ok {
				out = append(out, seed{s, p})
			}
		}
	}
	if len(out) == 0 {
		f.Fatalf("no vectors for %s", rule)
	}
	base := out[0].p
	for _, s := range []string{"\xff", "a\xc3", "\xed\xa0\x80", "A\x00b", strings.Repeat("é", 600), strings.Repeat(" ", 2000)} {
		out = append(out, seed{s, base})
	}
	return out
}

type seed struct {
	in string
	p  vectorParams
}

// checkRule applies the invariants to one run of a rule.
func checkRule(t *testing.T, rule, in string, run func(string) (string, error)) (string, bool) {
	t.Helper()
	info, ok := ruleInfo(rule)
	if !ok {
		t.Fatalf("rule %s not in KeyTable", rule)
	}
	out, err := run(in)
	if err != nil {
		var re Error
		if !errors.As(err, &re) || re.Field != info.Field || !slices.Contains(info.Keys, re.Key) {
			t.Fatalf("%s(%q): error %v is not one of %s/%v", rule, in, err, info.Field, info.Keys)
		}
		if out != "" {
			t.Fatalf("%s(%q): refused with value %q", rule, in, out)
		}
		return "", false
	}
	if !utf8.ValidString(out) {
		t.Fatalf("%s(%q) = %q: not UTF-8", rule, in, out)
	}
	again, err := run(out)
	if err != nil || again != out {
		t.Fatalf("%s(%q) = %q, but %s(%q) = %q, %v", rule, in, out, rule, out, again, err)
	}
	return out, true
}

func fuzzString(f *testing.F, rule string, run func(string) (string, error)) {
	for _, s := range seeds(f, rule) {
		f.Add(s.in)
	}
	f.Fuzz(func(t *testing.T, in string) { checkRule(t, rule, in, run) })
}

func FuzzEmail(f *testing.F) {
	for _, s := range seeds(f, "email") {
		f.Add(s.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, ok := checkRule(t, "email", in, Email)
		if ok {
			if got, err := EmailConfirmation(strings.ToUpper(out), in); err != nil || got != strings.ToUpper(out) {
				t.Fatalf("EmailConfirmation(%q, %q) = %q, %v", strings.ToUpper(out), in, got, err)
			}
		}
	})
}

func FuzzEmailConfirmation(f *testing.F) {
	for _, s := range seeds(f, "emailConfirmation") {
		f.Add(s.in, s.p.Email)
	}
	f.Fuzz(func(t *testing.T, in, email string) {
		checkRule(t, "emailConfirmation", in, func(s string) (string, error) { return EmailConfirmation(s, email) })
	})
}

func FuzzPhone(f *testing.F) {
	for _, s := range seeds(f, "phone") {
		f.Add(s.in, s.p.Required)
	}
	f.Fuzz(func(t *testing.T, in string, required bool) {
		out, ok := checkRule(t, "phone", in, func(s string) (string, error) { return Phone(s, required) })
		if ok && out != "" && (len(out) != PhoneDigits || !all(out, isDigit)) {
			t.Fatalf("Phone(%q) = %q: not 10 digits", in, out)
		}
	})
}

func FuzzPolicyNumber(f *testing.F) {
	for _, s := range seeds(f, "policyNumber") {
		if s.p.Format != nil {
			f.Add(s.in, s.p.Format.Length, s.p.Format.Mask)
		}
	}
	f.Fuzz(func(t *testing.T, in string, length int, mask string) {
		format := PolicyFormat{Length: length, Mask: mask}
		out, ok := checkRule(t, "policyNumber", in, func(s string) (string, error) { return PolicyNumber(s, format) })
		if ok && (format.Check() != nil || len(out) != length) {
			t.Fatalf("PolicyNumber(%q, %+v) = %q", in, format, out)
		}
	})
}

func FuzzPostalCode(f *testing.F) { fuzzString(f, "postalCode", PostalCode) }

func FuzzPassword(f *testing.F) {
	for _, s := range seeds(f, "password") {
		f.Add(s.in, s.p.Email)
	}
	f.Fuzz(func(t *testing.T, in, email string) {
		out, ok := checkRule(t, "password", in, func(s string) (string, error) { return Password(s, email) })
		if !ok {
			return
		}
		// Sign-up and login must hash the same string.
		if login, err := LoginPassword(in); err != nil || login != out {
			t.Fatalf("LoginPassword(%q) = %q, %v; Password gave %q", in, login, err, out)
		}
		if n := utf8.RuneCountInString(out); n < PasswordMinLength || n > PasswordMaxLength {
			t.Fatalf("Password(%q) = %q: %d characters", in, out, n)
		}
	})
}

func FuzzPasswordConfirmation(f *testing.F) {
	for _, s := range seeds(f, "passwordConfirmation") {
		f.Add(s.in, s.p.Password)
	}
	f.Fuzz(func(t *testing.T, in, password string) {
		checkRule(t, "passwordConfirmation", in, func(s string) (string, error) { return PasswordConfirmation(s, password) })
	})
}

func FuzzLoginPassword(f *testing.F) { fuzzString(f, "loginPassword", LoginPassword) }

func FuzzSecurityCode(f *testing.F) { fuzzString(f, "securityCode", SecurityCode) }

func FuzzPIN(f *testing.F) { fuzzString(f, "pin", PIN) }

func FuzzFirstName(f *testing.F) { fuzzString(f, "firstName", FirstName) }

func FuzzLastName(f *testing.F) { fuzzString(f, "lastName", LastName) }

func FuzzDateOfBirth(f *testing.F) {
	for _, s := range seeds(f, "dateOfBirth") {
		today, err := time.Parse(time.DateOnly, s.p.Today)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(s.in, today.Unix())
	}
	f.Fuzz(func(t *testing.T, in string, today int64) {
		now := time.Unix(today, 0).UTC()
		checkRule(t, "dateOfBirth", in, func(s string) (string, error) { return DateOfBirth(s, now) })
	})
}

func FuzzDriverLicence(f *testing.F) {
	for _, s := range seeds(f, "driverLicence") {
		f.Add(s.in, s.p.Province, s.p.UBI)
	}
	f.Fuzz(func(t *testing.T, in, province string, ubi bool) {
		out, ok := checkRule(t, "driverLicence", in, func(s string) (string, error) { return DriverLicence(s, province, ubi) })
		if ok && !ubi && out != "" {
			t.Fatalf("DriverLicence(%q, %q, false) = %q, want it cleared", in, province, out)
		}
	})
}

// FuzzCommonForms checks the forms of the common-password check (see
// commonForms): no panic on any input; the first form is the input lower-cased
// (A-Z), the forms are distinct, each later one no longer than the one before,
// and the last is a fixed point; the core of the core is the core; and
// commonPassword is exactly "a form is a walk or blocklisted".
func FuzzCommonForms(f *testing.F) {
	for _, c := range loadForms(f).Cases {
		f.Add(c.In)
	}
	for _, s := range seeds(f, "password") {
		f.Add(s.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		forms := commonForms(in)
		common := false
		for _, form := range forms {
			common = common || keyboardWalk(form) || blocklisted(form)
		}
		if got := commonPassword(in); got != common {
			t.Fatalf("commonPassword(%q) = %v, its forms %q say %v", in, got, forms, common)
		}
		if !utf8.ValidString(in) {
			return // Password refuses it before looking for common forms
		}
		if forms[0] != lowerASCII(in) {
			t.Fatalf("commonForms(%q)[0] = %q", in, forms[0])
		}
		for i := 1; i < len(forms); i++ {
			if len(forms[i]) > len(forms[i-1]) || slices.Contains(forms[:i], forms[i]) {
				t.Fatalf("commonForms(%q) = %q: form %d longer or repeated", in, forms, i)
			}
		}
		last := forms[len(forms)-1]
		if again := commonForms(last); !slices.Equal(again, []string{last}) {
			t.Fatalf("commonForms(%q) = %q, but commonForms(%q) = %q", in, forms, last, again)
		}
		if core := passwordCore(in); passwordCore(core) != core {
			t.Fatalf("passwordCore(%q) = %q, not a fixed point", in, core)
		}
	})
}
