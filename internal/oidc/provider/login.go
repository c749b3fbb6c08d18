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

// The sign-in hand-off. /oidc/authorize (zitadel/oidc) stores the request
// and sends the visitor to Login. A visitor signed in to the portal already
// goes straight back to the client (single sign-on), unless the client asked
// for prompt=login or a max_age the session is older than. Otherwise the
// request's id goes into a cookie and the visitor to the portal's own login
// page, in the language the client asked for: the login, the registration's
// end and the password reset's end all post the SSO form
// (POST /pkmslogin.form), whose success calls Continue, which completes the
// request and sends the visitor to the callback, which sends them to the
// client with a code.

// Cookie names of the pending request (the sso package's convention: __Host-
// and Secure except over plain http in --dev).
const (
	PendingCookie    = "__Host-guichet_oidc"
	DevPendingCookie = "guichet_oidc"
)

// AMRPassword is how every portal sign-in proves itself today: a password
// (the ticket a password gave is the same proof).
const AMRPassword = "pwd"

// Login is GET /oidc/login?id=: see above.
func (p *Provider) Login(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	site := api.SiteOf(r)
	a, err := p.OIDC.AuthRequest(r.Context(), r.URL.Query().Get("id"))
	if err == nil && (a.Brand != site.Brand.ID || a.Done()) {
		err = oidc.ErrRequestNotFound
	}
	if err != nil {
		p.expired(w, r, err)
		return
	}
	s, err := p.Sessions.Current(r)
	if err == nil && !slices.Contains(a.Prompt, zoidc.PromptLogin) && (a.MaxAge < 0 || p.OIDC.Now().Sub(s.CreatedAt) <= a.MaxAge) {
		if target, ok := p.complete(r, a.ID, s); ok {
			http.Redirect(w, r, target, http.StatusSeeOther)
			return
		}
	}
	if slices.Contains(a.Prompt, zoidc.PromptNone) {
		op.AuthRequestError(&issWriter{ResponseWriter: w, iss: Issuer(r)}, r, storage{p}.wrap(a), zoidc.ErrLoginRequired(), p.op)
		return
	}
	name, secure := pendingCookie(r)
	http.SetCookie(w, &http.Cookie{Name: name, Value: a.ID, Path: "/", MaxAge: int(oidc.AuthRequestTTL / time.Second),
		HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/?lang="+url.QueryEscape(languageOf(a.UILocales, site.Language)), http.StatusSeeOther)
}

// Continue is the SSO form's success when an authorization request is
// pending in this browser: it completes the request with the session the
// form just opened (read with session, only then) and returns the callback
// to send the visitor to. Without a live pending request of this brand it
// returns false (the portal's own /my-account then).
func (p *Provider) Continue(w http.ResponseWriter, r *http.Request, session func() (sso.Session, error)) (string, bool) {
	name, secure := pendingCookie(r)
	c, err := r.Cookie(name)
	if err != nil || c.Value == "" {
		return "", false
	}
	s, err := session()
	if err != nil {
		return "", false
	}
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode})
	return p.complete(r, c.Value, s)
}

// complete records who signed in for a live request of the site's brand
// and returns its callback.
func (p *Provider) complete(r *http.Request, id string, s sso.Session) (string, bool) {
	a, err := p.OIDC.AuthRequest(r.Context(), id)
	if err != nil || a.Brand != api.SiteOf(r).Brand.ID || s.Brand != a.Brand {
		return "", false
	}
	if err := p.OIDC.CompleteAuthRequest(r.Context(), a.ID, s.AccountID, s.CreatedAt, []string{AMRPassword}); err != nil {
		return "", false
	}
	return CallbackPath + "?id=" + url.QueryEscape(a.ID), true
}

// expired answers a hand-off whose request is unknown or gone: a page in
// the site's language sending the visitor back to the application.
func (p *Provider) expired(w http.ResponseWriter, r *http.Request, err error) {
	if !errors.Is(err, oidc.ErrRequestNotFound) {
		api.WriteError(w, r, err)
		return
	}
	msg := "This sign-in request has expired or was already used. Go back to the application and sign in again."
	if api.SiteOf(r).Language == "fr" {
		msg = "Cette demande de connexion a expiré ou a déjà servi. Retournez à l’application et connectez-vous de nouveau."
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write([]byte(msg + "\n"))
}

// languageOf is the first of the client's ui_locales the portal speaks, or
// the site's language.
func languageOf(uiLocales []string, fallback string) string {
	for _, l := range uiLocales {
		base, _, _ := strings.Cut(strings.ToLower(l), "-")
		if base == "fr" || base == "en" {
			return base
		}
	}
	return fallback
}

func pendingCookie(r *http.Request) (string, bool) {
	if r.TLS == nil && api.SiteOf(r).Dev {
		return DevPendingCookie, false
	}
	return PendingCookie, true
}

// FormAction is the CSP form-action source a page of the brand's host needs
// while this browser has a pending authorization request: the origin of the
// request's redirect URI (scheme://host[:port], or "scheme:" for an app's
// custom scheme). Chromium applies form-action to every redirect that
// follows a form post, and the SSO form post's success ends at the client
// (sso.LoginForm, Continue, the callback), and so does the consent page's
// (ConsentForm). "" without a live pending request for this host.
func (p *Provider) FormAction(r *http.Request) string {
	// Called before the brand's middleware (the security headers come
	// first), so either cookie name: the request must be of this host.
	// The consent page's form answers the request it names.
	id := r.URL.Query().Get("id")
	if r.URL.Path != ConsentPage {
		c, err := r.Cookie(PendingCookie)
		if err != nil {
			c, err = r.Cookie(DevPendingCookie)
		}
		if err != nil {
			return ""
		}
		id = c.Value
	}
	if id == "" || len(id) > 64 {
		return ""
	}
	a, err := p.OIDC.AuthRequest(r.Context(), id)
	if err != nil || r.URL.Path == ConsentPage && !p.consentOf(r, a) {
		return ""
	}
	iss, err := url.Parse(a.Issuer)
	if err != nil || !strings.EqualFold(iss.Host, r.Host) {
		return ""
	}
	u, err := url.Parse(a.RedirectURI)
	if err != nil || u.Scheme == "" {
		return ""
	}
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return u.Scheme + "://" + u.Host
}
