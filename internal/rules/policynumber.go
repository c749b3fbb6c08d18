package rules

import (
	"fmt"
	"unicode/utf8"
)

// PolicyFormat is a brand's policy-number format, read from the brand file
// (design.md: 7 letters or digits shown as XXX-XXXX, 9 for intact outside qc).
type PolicyFormat struct {
	// Length counts the letters and digits, without separators.
	Length int
	// Mask is the display mask. Slot characters: X, * or _ for a letter or a
	// digit, A for a letter, 9 for a digit; any other character is a literal
	// shown between groups. Empty means Length slots of X.
	Mask string
}

// policyMaxLength bounds PolicyFormat.Length to something a person can type.
const policyMaxLength = 30

// maskSlot reports whether mask character c stands for one typed character,
// and which characters it accepts.
func maskSlot(c rune) (accept func(rune) bool, ok bool) {
	switch c {
	case 'X', '*', '_':
		return isAlnum, true
	case 'A':
		return isLetter, true
	case '9':
		return isDigit, true
	}
	return nil, false
}

// slots returns the accepted characters of each slot, in order.
func (f PolicyFormat) slots() []func(rune) bool {
	if f.Mask == "" {
		out := make([]func(rune) bool, max(f.Length, 0))
		for i := range out {
			out[i] = isAlnum
		}
		return out
	}
	var out []func(rune) bool
	for _, c := range f.Mask {
		if accept, ok := maskSlot(c); ok {
			out = append(out, accept)
		}
	}
	return out
}

// Check reports whether the format can be used: a length of 1 to 30 and, when
// a mask is given, exactly Length slots in it. The brand loader calls it.
func (f PolicyFormat) Check() error {
	if f.Length < 1 || f.Length > policyMaxLength {
		return fmt.Errorf("policy number length %d: want 1 to %d", f.Length, policyMaxLength)
	}
	if !utf8.ValidString(f.Mask) {
		return fmt.Errorf("policy number mask %q: not UTF-8", f.Mask)
	}
	if n := len(f.slots()); n != f.Length {
		return fmt.Errorf("policy number mask %q has %d slots, length is %d", f.Mask, n, f.Length)
	}
	return nil
}

// PolicyNumber checks a policy number against the brand's format (spec §5):
// letters are upper-cased, white space and dashes ignored, and the normalized
// value is the letters and digits alone ("abc-1234" gives "ABC1234"). A
// format that fails Check refuses every value.
func PolicyNumber(s string, f PolicyFormat) (string, error) {
	pf := field{FieldPolicyNumber, KeyPolicyNumberFormat, KeyPolicyNumberRequired}
	s, err := pf.present(s, compactUpper)
	if err != nil {
		return "", err
	}
	if f.Check() != nil || len(s) != f.Length {
		return pf.fail(KeyPolicyNumberFormat)
	}
	slots := f.slots()
	for i, r := range []rune(s) {
		if i >= len(slots) || !slots[i](r) {
			return pf.fail(KeyPolicyNumberFormat)
		}
	}
	return s, nil
}
