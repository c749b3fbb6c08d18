package api

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCookieNames(t *testing.T) {
	c := Cookie{Name: "__Host-x", DevName: "x"}
	cases := []struct {
		tls, dev   bool
		name       string
		secure     bool
		withCookie string
		value      string
	}{
		{tls: false, dev: false, name: "__Host-x", secure: true, withCookie: "__Host-x", value: "v"},
		{tls: true, dev: true, name: "__Host-x", secure: true, withCookie: "x", value: ""},
		{tls: false, dev: true, name: "x", secure: false, withCookie: "x", value: "v"},
		{tls: false, dev: true, name: "x", secure: false, withCookie: "__Host-x", value: ""},
	}
	for _, tc := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		if tc.tls {
			r.TLS = &tls.ConnectionState{}
		}
		r.AddCookie(&http.Cookie{Name: tc.withCookie, Value: "v"})
		if name, secure := c.ForDev(r, tc.dev); name != tc.name || secure != tc.secure {
			t.Errorf("ForDev(tls %v, dev %v) = %q, %v; want %q, %v", tc.tls, tc.dev, name, secure, tc.name, tc.secure)
		}
		if v := c.ValueDev(r, tc.dev); v != tc.value {
			t.Errorf("ValueDev(tls %v, dev %v, cookie %q) = %q; want %q", tc.tls, tc.dev, tc.withCookie, v, tc.value)
		}
		// For and Value read --dev from the request's site.
		r = r.WithContext(WithSite(r.Context(), Site{Dev: tc.dev}))
		if name, _ := c.For(r); name != tc.name {
			t.Errorf("For(tls %v, site dev %v) = %q; want %q", tc.tls, tc.dev, name, tc.name)
		}
		if v := c.Value(r); v != tc.value {
			t.Errorf("Value(tls %v, site dev %v) = %q; want %q", tc.tls, tc.dev, v, tc.value)
		}
	}
}
