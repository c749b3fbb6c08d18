package httpapi

import (
	"net/http"
	"strings"

	"guichet/internal/api"
)

// WildcardKind classifies a path wildcard of the route table for the logs.
type WildcardKind int

// Wildcard kinds.
const (
	// WildcardSecret wildcards are bearer secrets (a magic-link token, a staff
	// set-up token): never written to a log, the log line keeps "{name}".
	WildcardSecret WildcardKind = iota + 1
	// WildcardPublicID wildcards are ids useless without a session, a cookie or a
	// code: logged when the value has an id's shape (api.IsID), "{name}"
	// otherwise.
	WildcardPublicID
)

// wildcards classifies every wildcard name the route table uses. A route
// with a name missing here logs "{name}" (unknown means secret), and
// TestEveryWildcardClassified (internal/app) fails.
var wildcards = map[string]WildcardKind{
	"token":        WildcardSecret,
	"id":           WildcardPublicID,
	"validationId": WildcardPublicID,
	"clientId":     WildcardPublicID,
}

// WildcardClass returns how the logs treat the wildcard name, and whether
// it is classified at all.
func WildcardClass(name string) (WildcardKind, bool) {
	k, ok := wildcards[name]
	return k, ok
}

// logged wraps a route's handler (inside the mux, where the path values
// are known) so that every log line of the request writes the route's
// loggable path instead of the raw one (api.LoggedPath).
func (s *server) logged(rt Route, h http.Handler) http.Handler {
	_, path, found := strings.Cut(rt.Pattern, " ")
	if !found {
		path = rt.Pattern
	}
	if strings.HasSuffix(path, "/") {
		// A subtree: the rest of the path is the client's, unclassified.
		public := func(r *http.Request) bool { return r.URL.Path == path }
		switch rt.Kind {
		case Page:
			// The SPA's own pages (their query string is never logged).
			public = func(r *http.Request) bool { return r.URL.Path == path || s.spa.known(r.URL.Path) }
		case Static:
			// A file that exists: the answer tells (below).
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				api.SetLoggedPath(r.Context(), subtreePath(path, r.URL.Path))
				rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
				h.ServeHTTP(rec, r)
				if rec.status < 400 {
					api.SetLoggedPath(r.Context(), logPath(r.URL.Path))
				}
			})
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := subtreePath(path, r.URL.Path)
			if public(r) {
				p = logPath(r.URL.Path)
			}
			api.SetLoggedPath(r.Context(), p)
			h.ServeHTTP(w, r)
		})
	}
	segs := strings.Split(path, "/")
	if !strings.Contains(path, "{") {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			api.SetLoggedPath(r.Context(), path)
			h.ServeHTTP(w, r)
		})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.SetLoggedPath(r.Context(), fillPattern(segs, r.PathValue))
		h.ServeHTTP(w, r)
	})
}

// fillPattern is a pattern's path (split at "/") with its WildcardPublicID
// wildcards filled with their values when they have an id's shape; every
// other wildcard stays "{name}".
func fillPattern(segs []string, value func(string) string) string {
	out := make([]string, len(segs))
	for i, seg := range segs {
		out[i] = seg
		if !strings.HasPrefix(seg, "{") || !strings.HasSuffix(seg, "}") {
			continue
		}
		name := strings.TrimSuffix(seg[1:len(seg)-1], "...")
		if name == "$" {
			out[i] = ""
			continue
		}
		if k, ok := wildcards[name]; ok && k == WildcardPublicID && api.IsID(value(name)) {
			out[i] = value(name)
		}
	}
	return strings.Join(out, "/")
}

// subtreePath is what the log writes for a path under a subtree pattern
// that is not known to be public: the pattern, "…" and a keyed hash of the
// path.
func subtreePath(pattern, p string) string {
	return pattern + "…#" + api.PathHash(p)
}
