package policy

import (
	"fmt"

	"guichet/internal/brand"
	"guichet/internal/rules"
)

// DemoNumber is a --dev demo policy number: prefix (REG, TOK) and n in
// digits, in the brand's policy format of its default province (digits only
// when the format wants no letters there).
func DemoNumber(b *brand.Brand, prefix string, n int) string {
	f := b.PolicyNumberFormat(b.DefaultProvince)
	format := rules.PolicyFormat{Length: f.Length, Mask: f.Mask}
	for _, prefix := range []string{prefix, ""} {
		if f.Length <= len(prefix) {
			continue
		}
		number := prefix + fmt.Sprintf("%0*d", f.Length-len(prefix), n)
		if _, err := rules.PolicyNumber(number, format); err == nil {
			return number
		}
	}
	return fmt.Sprintf("%0*d", f.Length, n)
}
