package sso

import (
	"strings"
	"testing"
)

func TestUserAgentNames(t *testing.T) {
	for _, c := range []struct{ ua, browser, system string }{
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0", "Edge", "Windows"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome", "Windows"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15", "Safari", "macOS"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", "Safari", "iOS"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1", "Chrome", "iOS"},
		{"Mozilla/5.0 (Linux; Android 14; SM-S918W) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36", "Samsung Internet", "Android"},
		{"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox", "Linux"},
		{"Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome", "ChromeOS"},
		{"Go-http-client/1.1", "", ""},
		{"", "", ""},
	} {
		if b, s := Browser(c.ua), System(c.ua); b != c.browser || s != c.system {
			t.Errorf("%q: %q on %q, want %q on %q", c.ua, b, s, c.browser, c.system)
		}
	}
}

func TestUserAgentKept(t *testing.T) {
	if got := UserAgent("Firefox/1\x00\n\x7f" + strings.Repeat("é", 300)); strings.ContainsAny(got, "\x00\n\x7f") || len(got) > maxUserAgent || !strings.HasPrefix(got, "Firefox/1é") {
		t.Fatalf("kept %q", got)
	}
}
