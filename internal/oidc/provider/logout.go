package provider

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/zitadel/oidc/v3/pkg/crypto"
	zoidc "github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"guichet/internal/notify"
)

// LogoutTokenLifetime bounds how long a back-channel logout token is
// accepted (the specification asks for a short one; the outbox makes a new
// token at every attempt).
const LogoutTokenLifetime = 2 * time.Minute

// SendLogout delivers one back-channel logout (notify.LogoutSender): a
// logout token signed with the brand's key, naming the subject and the
// client, posted as logout_token to the client's URI. 2xx is delivered; a
// 4xx answer is final (the client refuses the token: retrying changes
// nothing); anything else is retried by the outbox.
func (p *Provider) SendLogout(ctx context.Context, l notify.Logout) error {
	alg := Alg
	if c, err := p.OIDC.Client(ctx, l.ClientID); err == nil && c.SigningAlg != "" {
		alg = c.SigningAlg
	}
	key, err := p.OIDC.Signer(ctx, l.Brand, alg)
	if err != nil {
		return err
	}
	signer, err := op.SignerFromKey(signingKey{key})
	if err != nil {
		return notify.Permanent(err)
	}
	var jti [16]byte
	if _, err := rand.Read(jti[:]); err != nil {
		return err
	}
	claims := zoidc.NewLogoutTokenClaims(l.Issuer, l.Subject, zoidc.Audience{l.ClientID}, time.Now().Add(LogoutTokenLifetime),
		hex.EncodeToString(jti[:]), "", 0)
	token, err := crypto.Sign(claims, signer)
	if err != nil {
		return notify.Permanent(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.URI, strings.NewReader(url.Values{"logout_token": {token}}.Encode()))
	if err != nil {
		return notify.Permanent(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := p.logoutClient().Do(req)
	if err != nil {
		return fmt.Errorf("back-channel logout to client %s: %w", l.ClientID, err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 4<<10))
	switch {
	case res.StatusCode >= 200 && res.StatusCode < 300:
		return nil
	case res.StatusCode >= 400 && res.StatusCode < 500:
		return notify.Permanent(fmt.Errorf("back-channel logout: client %s answered %d", l.ClientID, res.StatusCode))
	}
	return fmt.Errorf("back-channel logout: client %s answered %d", l.ClientID, res.StatusCode)
}

// logoutClient posts logout tokens: no redirect is followed (the token
// goes to the registered URI and nowhere else).
func (p *Provider) logoutClient() *http.Client {
	c := http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if p.LogoutTransport != nil {
		c.Transport = p.LogoutTransport
	}
	return &c
}
