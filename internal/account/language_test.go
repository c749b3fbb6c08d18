package account

import "testing"

func TestMessageLanguage(t *testing.T) {
	cases := []struct{ page, account, want string }{
		{"en", "fr", "en"},
		{"fr", "en", "fr"},
		{"", "fr", "fr"},
		{"", "en", "en"},
		{"", "", "en"},
		{"de", "fr", "fr"},
		{"de", "", "en"},
	}
	for _, tc := range cases {
		if got := (Account{Language: tc.account}).MessageLanguage(tc.page); got != tc.want {
			t.Errorf("MessageLanguage(page %q, account %q) = %q; want %q", tc.page, tc.account, got, tc.want)
		}
	}
}
