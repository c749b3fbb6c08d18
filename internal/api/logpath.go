package api

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
)

// A request's path may carry a bearer token (/api/v1/tokens/{token},
// /api/console/v1/setup/{token}), so no log line writes r.URL.Path: the
// access log installs a holder, the matched route fills it with its pattern
// (only wildcards classified public filled in; internal/httpapi/routes.go),
// and every log line of the request writes LoggedPath.

type loggedPathKey struct{}

type loggedPath struct{ path string }

// WithLoggedPath returns a context with an empty holder for the request's
// loggable path (set by SetLoggedPath once a route matched).
func WithLoggedPath(ctx context.Context) context.Context {
	return context.WithValue(ctx, loggedPathKey{}, &loggedPath{})
}

// SetLoggedPath records the request's loggable path (no secret in it).
func SetLoggedPath(ctx context.Context, p string) {
	if h, ok := ctx.Value(loggedPathKey{}).(*loggedPath); ok {
		h.path = p
	}
}

// LoggedPath is the path a log line may write: the one the matched route set,
// or, for a request no route took (or one of a subtree route that set none),
// RedactedPath of the raw path.
func LoggedPath(r *http.Request) string {
	if h, ok := r.Context().Value(loggedPathKey{}).(*loggedPath); ok && h.path != "" {
		return h.path
	}
	return RedactedPath(r.URL.Path)
}

// pathKey keys the paths' hashes: a per-process random key, so that a hash
// of a path holding a short secret cannot be reversed by trying values.
var pathKey = func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}()

// RedactedPath is what a log line writes for a path of unknown content:
// "unmatched#" and a short keyed hash (equal paths hash equal within one
// process, so one client's retries can still be followed).
func RedactedPath(p string) string {
	return "unmatched#" + PathHash(p)
}

// PathHash is a short keyed, non-reversible hash of s.
func PathHash(s string) string {
	m := hmac.New(sha256.New, pathKey)
	m.Write([]byte(s))
	return hex.EncodeToString(m.Sum(nil)[:6])
}
