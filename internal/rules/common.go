package rules

import (
	"strings"
	"unicode"
)

// A common password is refused with errorPasswordCommon when one of its forms
// (commonForms) is a keyboard walk (keyboardWalk, checked in the browser too)
// or equals a blocklisted word (blocklisted, on the server only). The rule is
// equality, not containment: a passphrase that merely holds a common word
// among other words ("Correct Horse Battery Staple 7!") passes, while
// "Passw0rd!!" (password), "Pa$$w0rd1234" (password) and "Qwerty@12345"
// (qwerty) do not. web/src/lib/rules/common-forms.ts is the same code;
// testdata/rules/common/forms.json holds the vectors both sides run.

// commonSubstitutions undoes the digits and symbols people type for letters.
// 1 stands for i or l: it is left as it is and matches 1, i or l wherever
// forms are compared (sameWord), so every reading is tried without listing
// 2^n spellings.
var commonSubstitutions = strings.NewReplacer("0", "o", "@", "a", "$", "s", "3", "e", "5", "s", "7", "t")

// commonForms returns the distinct forms of a normalized password that are
// compared with common passwords, in this order:
//  1. the password with A-Z lower-cased;
//  2. that without its trailing digits, symbols and spaces (every character
//     after the last letter), the "core" people pad to pass composition
//     rules: "qwerty@12345" gives "qwerty";
//  3. the core with substitutions undone (0→o, @→a, $→s, 3→e, 5→s, 7→t;
//     1 kept, see commonSubstitutions): "pa$$w0rd" gives "password".
//
// The last form is a fixed point: commonForms gives it back alone.
func commonForms(password string) []string {
	lower := lowerASCII(password)
	core := passwordCore(lower)
	forms := []string{lower}
	for _, f := range []string{core, commonSubstitutions.Replace(core)} {
		if f != forms[len(forms)-1] {
			forms = append(forms, f)
		}
	}
	return forms
}

// passwordCore is s up to its last letter.
func passwordCore(s string) string {
	return strings.TrimRightFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
}

// keyboardLines are the straight lines people walk on QWERTY and AZERTY
// (French Canadian users meet both) keyboards, read forwards and backwards:
// rows, columns one after another (1qaz2wsx, qazwsx, AZERTY aqwzsx) and
// zig-zags between two rows (1q2w3e, qawsed).
var keyboardLines = []string{
	"1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm",
	"1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p", "qazwsxedcrfvtgbyhnujmikolp",
	"1q2w3e4r5t6y7u8i9o0p", "q1w2e3r4t5y6u7i8o9p0", "qawsedrftgyhujikolp", "azsxdcfvgbhnjmk",
	"azertyuiop", "qsdfghjklm", "wxcvbn", "aqwzsxedcrfvtgbyhnujikolpm",
}

// Walk sizes: a run of 4 keys along a line is a walk (3-key runs such as
// "wer" and "tre" fill ordinary words), and a form is a keyboard walk when
// fewer than 4 of its letters and digits lie outside its walks: the walks
// are then the substance of the password.
const (
	walkMinRun       = 4
	walkMaxRemainder = 3
)

var keyboardRuns = func() []string {
	runs := make([]string, 0, 2*len(keyboardLines))
	for _, l := range keyboardLines {
		b := []byte(l)
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		runs = append(runs, l, string(b))
	}
	return runs
}()

// onKeyboardLine reports whether s is a run of keys along one line.
func onKeyboardLine(s string) bool {
	for _, l := range keyboardRuns {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// keyboardWalk reports whether form is a keyboard walk (see walkMinRun):
// "qwerty", "1qaz2wsx3ed", "asdfgh!jkl" are, "zxcvbnm#horse" is not.
// It covers as many characters as it can with runs of at least walkMinRun
// keys (a run's prefixes are runs too, so every end from walkMinRun to the
// longest is a choice), by dynamic programming from the end.
func keyboardWalk(form string) bool {
	rs := []rune(form)
	n := len(rs)
	covered := make([]int, n+1) // covered[i]: most characters of rs[i:] in runs
	for i := n - 1; i >= 0; i-- {
		covered[i] = covered[i+1]
		for j := i + walkMinRun; j <= n && onKeyboardLine(string(rs[i:j])); j++ {
			covered[i] = max(covered[i], j-i+covered[j])
		}
	}
	alnum := 0
	for _, r := range rs {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			alnum++
		}
	}
	// Runs hold only ASCII letters and digits, so the rest are outside them.
	return covered[0] > 0 && alnum-covered[0] <= walkMaxRemainder
}

// commonPassword reports whether the normalized password is common: one of
// its forms is a keyboard walk or a blocklisted word.
func commonPassword(normalized string) bool {
	for _, f := range commonForms(normalized) {
		if keyboardWalk(f) || blocklisted(f) {
			return true
		}
	}
	return false
}
