package api

import "net/http"

// Cookie is a cookie the API sets under two names: Name (a __Host- name,
// Secure) and DevName, the name it takes over plain http in --dev, where a
// browser refuses a Secure cookie. The session, device, staff, chat
// visitor and co-browse cookies are each one.
type Cookie struct {
	Name, DevName string
}

// For is the cookie's name and Secure flag for a request, --dev read from
// the request's site.
func (c Cookie) For(r *http.Request) (name string, secure bool) {
	return c.ForDev(r, SiteOf(r).Dev)
}

// ForDev is For where the caller knows whether the server runs with --dev
// (the console, whose requests carry no site).
func (c Cookie) ForDev(r *http.Request, dev bool) (name string, secure bool) {
	if r.TLS == nil && dev {
		return c.DevName, false
	}
	return c.Name, true
}

// Value is the request's value of the cookie, "" without one.
func (c Cookie) Value(r *http.Request) string { return c.ValueDev(r, SiteOf(r).Dev) }

// ValueDev is Value as ForDev names the cookie.
func (c Cookie) ValueDev(r *http.Request, dev bool) string {
	name, _ := c.ForDev(r, dev)
	v, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return v.Value
}
