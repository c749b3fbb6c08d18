package account_test

import (
	"net/http/httptest"
	"testing"

	"guichet/internal/account"
	"guichet/internal/api"
)

func TestOrigin(t *testing.T) {
	cases := []struct {
		name   string
		target string
		host   string
		dev    bool
		want   string
	}{
		{"a brand host", "https://belair.example/x", "belair.example", false, "https://belair.example"},
		{"another brand host, any case", "https://compte.belair.example/x", "COMPTE.Belair.Example.", false, "https://COMPTE.Belair.Example."},
		{"a foreign host goes to the first brand host", "https://evil.example/x", "evil.example", false, "https://belair.example"},
		{"a dev host outside --dev is foreign", "http://belair.localhost:8080/x", "belair.localhost:8080", false, "https://belair.example"},
		{"a dev host in --dev over http", "http://belair.localhost:8080/x", "belair.localhost:8080", true, "http://belair.localhost:8080"},
		{"plain localhost in --dev", "http://localhost:8080/x", "localhost:8080", true, "http://localhost:8080"},
		{"a foreign host in --dev", "http://evil.example:8080/x", "evil.example:8080", true, "http://belair.localhost:8080"},
		{"https in --dev stays https", "https://belair.localhost/x", "belair.localhost", true, "https://belair.localhost"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", c.target, nil)
			r.Host = c.host
			r = r.WithContext(api.WithSite(r.Context(), api.Site{Brand: belair, Dev: c.dev}))
			if got := account.Origin(r); got != c.want {
				t.Fatalf("Origin = %q, want %q", got, c.want)
			}
		})
	}
}
