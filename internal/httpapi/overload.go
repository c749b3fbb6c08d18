package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"guichet/internal/api"
)

// Spec §7 gives two paths to both sign-in (internal/account) and legacy
// registration (internal/registration); the route table dispatches them
// here, so neither domain holds the other's handlers.

// FindOverload is POST /api/v1/accounts/find: a body naming a policyNumber
// is registration's find, any other body the sign-in's.
func FindOverload(signIn, registration api.Handler) api.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, api.MaxBody))
		if err != nil {
			return api.ErrBodyTooLarge
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		var keys map[string]json.RawMessage
		if json.Unmarshal(raw, &keys) == nil {
			if _, ok := keys["policyNumber"]; ok {
				return registration(w, r)
			}
		}
		return signIn(w, r)
	}
}

// AuthenticationOverload is POST /api/v1/accounts/{id}/authentication:
// when {id} is a registration of the brand (isRegistration), the UBI link
// of an email token (registration's link); otherwise the sign-in's.
func AuthenticationOverload(signIn, link api.Handler, isRegistration func(ctx context.Context, brand, id string) (bool, error)) api.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := api.PathID(r, "id")
		if err != nil {
			return err
		}
		is, err := isRegistration(r.Context(), api.SiteOf(r).Brand.ID, id)
		if err != nil {
			return err
		}
		if is {
			return link(w, r)
		}
		return signIn(w, r)
	}
}
