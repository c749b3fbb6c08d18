package provider

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	zoidc "github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"guichet/internal/api"
	"guichet/internal/oidc"
	"guichet/internal/sso"
)

// The consent page of third-party clients (issue 30). The callback of a
// request whose client is third-party, not yet allowed what it asks,
// sends the visitor to the portal's page ConsentPage?id=, which reads the
// client's name and the scopes (ConsentInfo) and posts the answer here
// (ConsentForm): yes goes on to the callback, no sends the client
// access_denied. The customer sees and withdraws what they allowed on
// /my-account (Applications, Withdraw).

// ConsentPage is the portal's page (web/src/features/consent).
const ConsentPage = "/oidc/consent"

// errUnauthenticated answers the consent and applications API without a
// live portal session.
var errUnauthenticated = api.NewError(http.StatusUnauthorized, "UNAUTHENTICATED", "error.unauthenticated")

// askConsent answers a callback whose request must wait for the customer's
// yes: to the consent page, or, when the client wants no page
// (prompt=none), consent_required to the client. False when the callback
// may go on.
func (p *Provider) askConsent(w http.ResponseWriter, r *http.Request, a oidc.AuthRequest) bool {
	c, err := p.OIDC.Client(r.Context(), a.ClientID)
	if err != nil {
		p.expired(w, r, oidc.ErrRequestNotFound)
		return true
	}
	need, err := p.OIDC.NeedsConsent(r.Context(), a, c)
	switch {
	case err != nil:
		api.WriteError(w, r, err)
		return true
	case !need:
		return false
	case slices.Contains(a.Prompt, zoidc.PromptNone):
		op.AuthRequestError(&issWriter{ResponseWriter: w, iss: Issuer(r)}, r, storage{p}.wrap(a), (&zoidc.Error{ErrorType: "consent_required"}).WithDescription("the customer has not allowed this application"), p.op)
		return true
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, ConsentPage+"?id="+url.QueryEscape(a.ID), http.StatusSeeOther)
	return true
}

// consentAnswer is GET /api/v1/oidc/requests/{id}/consent: what the
// consent page shows.
type consentAnswer struct {
	Client string   `json:"client"`
	Scopes []string `json:"scopes"`
	// Account is the email of the customer who would allow it: with single
	// sign-on they may have typed nothing.
	Account string `json:"account"`
}

// ConsentInfo is GET /api/v1/oidc/requests/{id}/consent: the client's name
// and the scopes it asks, for the customer whose portal session completed
// the request and while it waits for their answer; 404 otherwise.
func (p *Provider) ConsentInfo(w http.ResponseWriter, r *http.Request) error {
	a, err := p.waiting(r, r.PathValue("id"))
	if err != nil {
		return err
	}
	c, err := p.OIDC.Client(r.Context(), a.ClientID)
	if errors.Is(err, oidc.ErrUnknownClient) {
		return api.ErrNotFound
	}
	if err != nil {
		return err
	}
	acct, err := p.Account(r.Context(), a.Brand, a.AccountID)
	if err != nil {
		return api.ErrNotFound
	}
	api.JSON(w, http.StatusOK, consentAnswer{Client: c.Name, Scopes: a.Scopes, Account: strings.ToLower(acct.Email)})
	return nil
}

// waiting returns the request id of the site's brand, completed by the
// browser's portal session and not answered yet.
func (p *Provider) waiting(r *http.Request, id string) (oidc.AuthRequest, error) {
	s, err := p.Sessions.Current(r)
	if err != nil {
		return oidc.AuthRequest{}, errUnauthenticated
	}
	if !api.IsID(id) {
		return oidc.AuthRequest{}, api.ErrNotFound
	}
	a, err := p.OIDC.AuthRequest(r.Context(), id)
	switch {
	case errors.Is(err, oidc.ErrRequestNotFound):
		return oidc.AuthRequest{}, api.ErrNotFound
	case err != nil:
		return oidc.AuthRequest{}, err
	case a.Brand != api.SiteOf(r).Brand.ID || s.Brand != a.Brand || a.AccountID != s.AccountID || a.Answered():
		return oidc.AuthRequest{}, api.ErrNotFound
	}
	// Only a third-party client's request asks (first-party ones never
	// reach the page, and must not join the customer's list).
	c, err := p.OIDC.Client(r.Context(), a.ClientID)
	if errors.Is(err, oidc.ErrUnknownClient) || err == nil && !c.ThirdParty {
		return oidc.AuthRequest{}, api.ErrNotFound
	}
	if err != nil {
		return oidc.AuthRequest{}, err
	}
	return a, nil
}

// consentOf reports whether a is waiting for the answer of the customer
// signed in on this browser (either session cookie: FormAction runs before
// the brand's middleware), so that the consent page's form-action names
// only the origin of the visitor's own request.
func (p *Provider) consentOf(r *http.Request, a oidc.AuthRequest) bool {
	if !a.Done() || a.Answered() {
		return false
	}
	for _, name := range []string{sso.CookieName, sso.DevCookieName} {
		if c, err := r.Cookie(name); err == nil && c.Value != "" {
			s, err := p.Sessions.Service.Lookup(r.Context(), a.Brand, c.Value)
			return err == nil && s.AccountID == a.AccountID
		}
	}
	return false
}

// maxConsentForm bounds the consent form (an id and a word).
const maxConsentForm = 1 << 10

// ConsentForm is POST /oidc/consent (id, decision=allow|deny), the consent
// page's form: allow goes on to the callback, deny ends the request and
// sends the client access_denied. A request not waiting for this browser's
// customer gets the expired page.
func (p *Provider) ConsentForm(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	r.Body = http.MaxBytesReader(w, r.Body, maxConsentForm)
	if err := r.ParseForm(); err != nil {
		p.expired(w, r, oidc.ErrRequestNotFound)
		return nil
	}
	a, err := p.waiting(r, r.PostForm.Get("id"))
	if err != nil {
		p.expired(w, r, oidc.ErrRequestNotFound)
		return nil
	}
	switch r.PostForm.Get("decision") {
	case "allow":
		err = p.OIDC.GiveConsent(r.Context(), a.ID, a.AccountID)
		if err == nil {
			http.Redirect(w, r, CallbackPath+"?id="+url.QueryEscape(a.ID), http.StatusSeeOther)
			return nil
		}
	case "deny":
		if a, err = p.OIDC.RefuseConsent(r.Context(), a.ID, a.AccountID); err == nil {
			op.AuthRequestError(&issWriter{ResponseWriter: w, iss: Issuer(r)}, r, storage{p}.wrap(a),
				zoidc.ErrAccessDenied().WithDescription("the customer did not allow it"), p.op)
			return nil
		}
	default:
		err = oidc.ErrRequestNotFound
	}
	p.expired(w, r, err)
	return nil
}

// application is one entry of GET /api/v1/me/applications.
type application struct {
	ClientID  string    `json:"clientId"`
	Name      string    `json:"name"`
	Scopes    []string  `json:"scopes"`
	GrantedAt time.Time `json:"grantedAt"`
}

// Applications is GET /api/v1/me/applications: the third-party
// applications the signed-in customer allowed, newest first.
func (p *Provider) Applications(w http.ResponseWriter, r *http.Request) error {
	s, err := p.Sessions.Current(r)
	if err != nil {
		return errUnauthenticated
	}
	consents, err := p.OIDC.Consents(r.Context(), s.Brand, s.AccountID)
	if err != nil {
		return err
	}
	out := struct {
		Applications []application `json:"applications"`
	}{Applications: make([]application, 0, len(consents))}
	for _, c := range consents {
		out.Applications = append(out.Applications, application{ClientID: c.ClientID, Name: c.ClientName, Scopes: c.Scopes, GrantedAt: c.GrantedAt})
	}
	api.JSON(w, http.StatusOK, out)
	return nil
}

// Withdraw is DELETE /api/v1/me/applications/{clientId}: the customer takes
// back what they allowed a third-party application; its grants of them end
// (it is told by back-channel logout) and it must ask again. 404 when there
// was nothing to take back.
func (p *Provider) Withdraw(w http.ResponseWriter, r *http.Request) error {
	s, err := p.Sessions.Current(r)
	if err != nil {
		return errUnauthenticated
	}
	id, err := api.PathID(r, "clientId")
	if err != nil {
		return err
	}
	err = p.OIDC.WithdrawConsent(r.Context(), s.Brand, s.AccountID, id)
	if errors.Is(err, oidc.ErrUnknownClient) {
		return api.ErrNotFound
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
