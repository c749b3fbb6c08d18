package api

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestPathID(t *testing.T) {
	cases := map[string]bool{
		"AAAAAAAAAAAAAAAAAAAAAA":    true,
		"az09-_AZaz09-_AZaz09-_":    true,
		"AAAAAAAAAAAAAAAAAAAAA":     false, // 21
		"AAAAAAAAAAAAAAAAAAAAAAA":   false, // 23
		"AAAAAAAAAAAAAAAAAAAAA=":    false, // padding
		"AAAAAAAAAAAAAAAAAAAA+/":    false, // standard base64
		"AAAAAAAAAA\x00AAAAAAAAAAA": false,
		"AAAAAAAAAAAAAAAAAAAA\xff":  false,
		strings.Repeat("é", 11):     false, // 22 bytes
		"":                          false,
	}
	for v, want := range cases {
		r := httptest.NewRequest("POST", "/x", nil)
		r.SetPathValue("id", v)
		got, err := PathID(r, "id")
		if want && (err != nil || got != v) {
			t.Errorf("PathID(%q) = %q, %v", v, got, err)
		}
		if !want && !errors.Is(err, ErrNotFound) {
			t.Errorf("PathID(%q) = %q, %v; want ErrNotFound", v, got, err)
		}
	}
}
