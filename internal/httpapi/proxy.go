package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the networks whose hops of X-Forwarded-For are trusted
// (GUICHET_TRUSTED_PROXIES): the load balancers in front of Guichet.
type Proxies []netip.Prefix

// ParseProxies reads a comma-separated list of CIDR networks; a bare
// address is that address alone (/32 or /128). Empty means no proxy.
func ParseProxies(list string) (Proxies, error) {
	var out Proxies
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if strings.Contains(item, "/") {
			p, err := netip.ParsePrefix(item)
			if err != nil {
				return nil, fmt.Errorf("%q is not a CIDR network: %w", item, err)
			}
			if p.Addr().Is4In6() {
				// ::ffff:10.0.0.0/104 is 10.0.0.0/8, the form addresses are compared in.
				if p.Bits() < 96 {
					return nil, fmt.Errorf("%q mixes IPv4-mapped and IPv6 addresses", item)
				}
				p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or CIDR network", item)
		}
		a = a.Unmap().WithZone("")
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// trusts reports whether a is inside one of the networks.
func (p Proxies) trusts(a netip.Addr) bool {
	for _, n := range p {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// parseHop reads one address of RemoteAddr or X-Forwarded-For: a bare
// address or one with a port ("203.0.113.7:4711", "[2001:db8::1]:443"),
// IPv4-mapped IPv6 turned into IPv4, the zone dropped.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, perr := netip.ParseAddrPort(s)
		if perr != nil {
			return netip.Addr{}, false
		}
		a = ap.Addr()
	}
	return a.Unmap().WithZone(""), true
}

// peerTrusted reports whether the direct peer is one of the proxies: only
// then do the X-Forwarded-* headers mean anything.
func (p Proxies) peerTrusted(r *http.Request) bool {
	if len(p) == 0 {
		return false
	}
	peer, ok := parseHop(r.RemoteAddr)
	return ok && p.trusts(peer)
}

// clientIP is the address the request came from. X-Forwarded-For is read
// only when the direct peer is a trusted proxy, and from the right: each
// trusted proxy appended the address it received from, so the first
// untrusted address is the client; entries left of it are whatever the
// client wrote. An entry that is not an address stops the walk at the
// proxy that passed it on.
func (p Proxies) clientIP(r *http.Request) string {
	peer, ok := parseHop(r.RemoteAddr)
	if !ok {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			return r.RemoteAddr
		}
		return host
	}
	if !p.trusts(peer) {
		return peer.String()
	}
	// Several X-Forwarded-For lines are one list, in order (RFC 9110 5.3).
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		if strings.TrimSpace(hops[i]) == "" {
			continue
		}
		a, ok := parseHop(hops[i])
		if !ok {
			break
		}
		client = a
		if !p.trusts(a) {
			break
		}
	}
	return client.String()
}

// forwardedHTTPS reports whether a trusted proxy says the client used
// HTTPS; the nearest proxy's value (the last one) counts.
func (p Proxies) forwardedHTTPS(r *http.Request) bool {
	if !p.peerTrusted(r) {
		return false
	}
	values := r.Header.Values("X-Forwarded-Proto")
	if len(values) == 0 {
		return false
	}
	last := values[len(values)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return strings.EqualFold(strings.TrimSpace(last), "https")
}
