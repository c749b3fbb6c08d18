package provider

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	zoidc "github.com/zitadel/oidc/v3/pkg/oidc"

	"guichet/internal/api"
	"guichet/internal/throttle"
)

// The token endpoint's limits. An address is counted before any work (the
// form is not even read). A client is counted once it has proved who it is
// and before zitadel/oidc reads a code (reading trades it: a client refused
// after that would lose its customer's sign-in, and its retry would look
// like a replayed code): its secret checked here (admitSecret),
// or its assertion accepted (assertion.go). Counting the client_id a request
// merely claims would let anyone spend an application's minute from one
// address. Public clients prove nothing at this point (their code or
// refresh token does, later), and their customers come from many
// addresses: they are limited per address only.

// admitAddress counts a token request against its address's limit; over
// it, it answers 429 before any work.
func (p *Provider) admitAddress(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenForm)
	allowed, err := p.Limiter.Allow(r.Context(), p.TokenPerAddress, throttle.ClientKey(api.ClientIP(r)))
	if err != nil {
		api.WriteError(w, r, err)
		return false
	}
	if !allowed {
		rateLimited(w, p.TokenPerAddress)
	}
	return allowed
}

// admitClient counts an authenticated client's token request; over its
// limit it marks the caller (its answer becomes the 429, limitWriter) and
// returns an error that stops zitadel/oidc before it does any work.
func (p *Provider) admitClient(ctx context.Context, clientID string) error {
	c, ok := ctx.Value(callerKey{}).(*caller)
	if !ok || !c.counted {
		return nil // not the token endpoint (introspection, revocation)
	}
	allowed, err := p.Limiter.Allow(ctx, p.TokenPerClient, clientID)
	switch {
	case err != nil:
		return zoidc.ErrServerError().WithParent(err)
	case !allowed:
		c.limited = &p.TokenPerClient
		return zoidc.ErrInvalidClient().WithDescription("rate limited")
	}
	return nil
}

// admitSecret counts a token request whose secret (HTTP Basic, or the
// form's client_id and client_secret, which zitadel/oidc reads too) is an
// enabled confidential client's of this brand (one SHA-256 comparison);
// other credentials are zitadel/oidc's to refuse, uncounted.
func (p *Provider) admitSecret(ctx context.Context, r *http.Request) error {
	id, secret, ok := r.BasicAuth()
	if ok {
		var errID, errSecret error
		id, errID = url.QueryUnescape(id)
		secret, errSecret = url.QueryUnescape(secret)
		if errID != nil || errSecret != nil {
			return nil
		}
	} else if r.ParseForm() == nil {
		// zitadel/oidc reads the same form again: ParseForm keeps what it read.
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id == "" || secret == "" || len(id) > 64 {
		return nil
	}
	c, err := p.OIDC.Client(ctx, id)
	if err != nil || c.Brand != brandOf(ctx) || c.Disabled() || !c.CheckSecret(secret) {
		return nil
	}
	return p.admitClient(ctx, c.ID)
}

// rateLimited is the 429: Retry-After (the rule's window) and the
// protocol's JSON error shape.
func rateLimited(w http.ResponseWriter, rule throttle.Rule) {
	w.Header().Set("Retry-After", strconv.Itoa(int(rule.Window/time.Second)))
	api.JSON(w, http.StatusTooManyRequests, map[string]string{"error": "rate_limited",
		"error_description": "too many token requests; try again later"})
}

// limitWriter answers 429 in place of zitadel/oidc's answer when the
// client went over its limit while the request was served.
type limitWriter struct {
	http.ResponseWriter
	c       *caller
	written bool
}

func (w *limitWriter) WriteHeader(status int) {
	if w.c.limited == nil {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	if !w.written {
		w.written = true
		w.ResponseWriter.Header().Del("Content-Type")
		rateLimited(w.ResponseWriter, *w.c.limited)
	}
}

func (w *limitWriter) Write(b []byte) (int, error) {
	if w.c.limited == nil {
		return w.ResponseWriter.Write(b)
	}
	w.WriteHeader(http.StatusTooManyRequests)
	return len(b), nil // zitadel/oidc's own answer, replaced
}

// maxTokenForm bounds a token request's form (a code or refresh token, a
// verifier, a redirect URI, a client assertion).
const maxTokenForm = 16 << 10
