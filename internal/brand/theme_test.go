package brand

import (
	"math"
	"testing"
)

// TestThemeContrast checks WCAG AA (4.5:1) in every real brand file, and
// that no two brands share a primary colour.
func TestThemeContrast(t *testing.T) {
	r := loadReal(t)
	primaries := map[string]string{}
	for _, b := range r.All() {
		th := b.Theme
		for _, pair := range []struct{ name, fg, bg string }{
			{"primaryText on primary", th.PrimaryText, th.Primary},
			{"text on background", th.Text, th.Background},
			{"accent on background", th.Accent, th.Background},
			{"primary on background", th.Primary, th.Background},
		} {
			if got := contrastRatio(pair.fg, pair.bg); got < minContrast {
				t.Errorf("%s %s: contrast %.2f:1, want at least %.1f:1", b.ID, pair.name, got, minContrast)
			}
		}
		if other, dup := primaries[th.Primary]; dup {
			t.Errorf("%s and %s share the primary colour %s", b.ID, other, th.Primary)
		}
		primaries[th.Primary] = b.ID
	}
}

func TestContrastRatio(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"#000000", "#FFFFFF", 21},
		{"#FFFFFF", "#000000", 21},
		{"#123456", "#123456", 1},
		{"#777777", "#ffffff", 4.48}, // the classic grey that just fails AA
		{"#767676", "#FFFFFF", 4.54}, // and the one that just passes
	}
	for _, tt := range tests {
		if got := contrastRatio(tt.a, tt.b); math.Abs(got-tt.want) > 0.01 {
			t.Errorf("contrastRatio(%s, %s) = %.3f, want %.2f", tt.a, tt.b, got, tt.want)
		}
	}
}
