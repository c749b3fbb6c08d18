package console

import (
	"net/http"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"guichet/internal/api"
	"guichet/internal/oidc"
	"guichet/internal/staff"
)

// clientForm is what registers an OpenID client (POST /clients).
type clientForm struct {
	Brand                string   `json:"brand"`
	Name                 string   `json:"name"`
	Type                 string   `json:"type"`
	ThirdParty           bool     `json:"thirdParty"`
	RedirectURIs         []string `json:"redirectUris"`
	BackchannelLogoutURI string   `json:"backchannelLogoutUri"`
	SigningAlg           string   `json:"signingAlg"`
}

// clientJSON is an OpenID client as the console shows it: what registered
// it, its id and dates; never its secret.
type clientJSON struct {
	ID string `json:"id"`
	clientForm
	CreatedAt  time.Time  `json:"createdAt"`
	DisabledAt *time.Time `json:"disabledAt"`
}

func clientOf(c oidc.Client, _ time.Time) clientJSON {
	out := clientJSON{ID: c.ID, clientForm: clientForm{Brand: c.Brand, Name: c.Name, Type: string(c.Kind), ThirdParty: c.ThirdParty,
		RedirectURIs: c.RedirectURIs, BackchannelLogoutURI: c.BackchannelLogoutURI, SigningAlg: string(c.SigningAlg)}, CreatedAt: c.CreatedAt}
	if c.Disabled() {
		out.DisabledAt = &c.DisabledAt
	}
	return out
}

// ClientList is GET /api/console/v1/clients (admin): the OpenID clients
// of the brands the admin serves.
func (h *Handler) ClientList(w http.ResponseWriter, r *http.Request) error {
	return list(h, w, r, staff.RoleAdmin, "clients", h.Service.Clients, clientOf)
}

// ClientAdd is POST /api/console/v1/clients (admin) {brand, name, type,
// thirdParty, redirectUris, backchannelLogoutUri, signingAlg}: the client
// registered and, for a confidential one, its secret, shown this once (only
// its hash is kept); audited by oidc (oidc.client_add) with the admin as
// actor, the secret in no row.
func (h *Handler) ClientAdd(w http.ResponseWriter, r *http.Request) error {
	var f clientForm
	c, err := h.callWith(w, r, staff.RoleAdmin, &f)
	if err != nil {
		return err
	}
	cl, secret, err := h.Service.ClientAdd(r.Context(), c, oidc.NewClient{Brand: f.Brand, Name: f.Name, Kind: oidc.Kind(f.Type),
		RedirectURIs: f.RedirectURIs, ThirdParty: f.ThirdParty, BackchannelLogoutURI: f.BackchannelLogoutURI,
		SigningAlg: jose.SignatureAlgorithm(f.SigningAlg)})
	if err != nil {
		return apiError(err)
	}
	out := map[string]any{"client": clientOf(cl, time.Time{})}
	if secret != "" {
		out["clientSecret"] = secret
	}
	api.JSON(w, http.StatusOK, out)
	return nil
}

// ClientDisable is POST /api/console/v1/clients/{id}/disable (admin): the
// client can no longer sign anyone in, trade a code or refresh a token.
func (h *Handler) ClientDisable(w http.ResponseWriter, r *http.Request) error {
	c, id, err := h.adminOn(r)
	if err != nil {
		return err
	}
	cl, err := h.Service.ClientDisable(r.Context(), c, id)
	return api.Reply(w, http.StatusOK, clientOf(cl, time.Time{}), apiError(err))
}
