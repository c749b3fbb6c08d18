package oidc

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	jose "github.com/go-jose/go-jose/v4"

	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/store"
)

// Kind is a client's type (RFC 6749 §2.1): a confidential client holds a
// secret (a server); a public one cannot (a mobile or browser app) and must
// use PKCE.
type Kind string

// The two kinds of client.
const (
	Public       Kind = "public"
	Confidential Kind = "confidential"
)

// defaultAuth is how a client of the kind authenticates unless registered
// otherwise.
func (k Kind) defaultAuth() AuthMethod {
	if k == Public {
		return AuthNone
	}
	return AuthSecretBasic
}

// Limits on what a client is registered with.
const (
	MaxRedirectURIs = 20
	maxName         = 100
	maxURI          = 2000
)

// Client is a relying party of one brand.
type Client struct {
	ID    string
	Brand string
	Name  string
	Kind  Kind
	// ThirdParty clients show a consent page; first-party ones (the
	// insurer's own applications) do not.
	ThirdParty           bool
	RedirectURIs         []string
	BackchannelLogoutURI string
	// SigningAlg signs the client's tokens: ES256, or RS256 for the
	// clients that need it.
	SigningAlg jose.SignatureAlgorithm
	// AuthMethod is how the client authenticates at the token endpoint.
	AuthMethod AuthMethod
	CreatedAt  time.Time
	DisabledAt time.Time // zero while enabled
	secretHash string
	keys       []jose.JSONWebKey // a private_key_jwt client's public keys
}

// Disabled reports whether the client was disabled.
func (c Client) Disabled() bool { return !c.DisabledAt.IsZero() }

// CheckSecret reports whether secret is a client_secret_basic client's
// secret (in constant time); a public or private_key_jwt client has none.
func (c Client) CheckSecret(secret string) bool {
	if c.AuthMethod != AuthSecretBasic || c.secretHash == "" || secret == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(codes.TokenHash(secret)), []byte(c.secretHash)) == 1
}

// RedirectAllowed reports whether uri is one of the client's redirect URIs,
// to the letter (no prefix, no wildcard, no normalisation).
func (c Client) RedirectAllowed(uri string) bool { return slices.Contains(c.RedirectURIs, uri) }

// NewClient is what `guichet clients add` and the console register.
type NewClient struct {
	Brand                string
	Name                 string
	Kind                 Kind
	RedirectURIs         []string
	ThirdParty           bool
	BackchannelLogoutURI string
	SigningAlg           jose.SignatureAlgorithm // "" is ES256
	// AuthMethod "" is the kind's (none or client_secret_basic);
	// private_key_jwt (confidential clients only) needs JWKS, the
	// client's public keys.
	AuthMethod AuthMethod
	JWKS       []byte
}

// InvalidError is a NewClient field that breaks a rule.
type InvalidError struct {
	Field  string // "name", "type", "redirect-uri", "backchannel-logout-uri", "signing-alg", "auth", "jwks-file"
	Reason string
}

func (e *InvalidError) Error() string { return "oidc: " + e.Field + ": " + e.Reason }

func invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// check validates a new client and returns it trimmed, with its public
// keys when it has some.
func (s *Service) check(in NewClient) (NewClient, []jose.JSONWebKey, error) {
	in, err := s.checkFields(in)
	if err != nil {
		return in, nil, err
	}
	keys, err := checkAuth(&in)
	return in, keys, err
}

// checkAuth settles how a client authenticates: by default its kind's way;
// private_key_jwt for a confidential client with a key set.
func checkAuth(in *NewClient) ([]jose.JSONWebKey, error) {
	if in.AuthMethod == "" {
		in.AuthMethod = in.Kind.defaultAuth()
	}
	switch {
	case in.AuthMethod == AuthPrivateKeyJWT && in.Kind != Confidential:
		return nil, invalid("auth", "private_key_jwt is for a confidential client")
	case in.AuthMethod == AuthPrivateKeyJWT:
		if len(in.JWKS) == 0 {
			return nil, invalid("jwks-file", "private_key_jwt needs the client's public keys (a JSON Web Key Set)")
		}
		return ParseJWKS(in.JWKS)
	case in.AuthMethod != AuthNone && in.AuthMethod != AuthSecretBasic:
		return nil, invalid("auth", "client_secret_basic or private_key_jwt, not %q", in.AuthMethod)
	case (in.AuthMethod == AuthNone) != (in.Kind == Public):
		return nil, invalid("auth", "%s is not for a %s client", in.AuthMethod, in.Kind)
	case len(in.JWKS) != 0:
		return nil, invalid("jwks-file", "a key set is only for a private_key_jwt client")
	}
	return nil, nil
}

// checkFields validates what every client is registered with.
func (s *Service) checkFields(in NewClient) (NewClient, error) {
	if s.KnownBrand == nil || !s.KnownBrand(in.Brand) {
		return in, ErrUnknownBrand
	}
	in.Name = strings.TrimSpace(in.Name)
	switch {
	case in.Name == "":
		return in, invalid("name", "a name is required")
	case len([]rune(in.Name)) > maxName:
		return in, invalid("name", "at most %d characters", maxName)
	case strings.IndexFunc(in.Name, unicode.IsControl) >= 0:
		return in, invalid("name", "no control characters")
	}
	if in.Kind != Public && in.Kind != Confidential {
		return in, invalid("type", "public or confidential, not %q", in.Kind)
	}
	if len(in.RedirectURIs) == 0 {
		return in, invalid("redirect-uri", "at least one redirect URI is required")
	}
	if len(in.RedirectURIs) > MaxRedirectURIs {
		return in, invalid("redirect-uri", "at most %d redirect URIs", MaxRedirectURIs)
	}
	seen := map[string]bool{}
	for _, u := range in.RedirectURIs {
		if err := checkRedirect(in.Kind, u); err != nil {
			return in, err
		}
		if seen[u] {
			return in, invalid("redirect-uri", "%s is given twice", u)
		}
		seen[u] = true
	}
	if in.BackchannelLogoutURI != "" {
		if err := checkWebURI("backchannel-logout-uri", in.BackchannelLogoutURI); err != nil {
			return in, err
		}
	}
	if in.SigningAlg == "" {
		in.SigningAlg = jose.ES256
	}
	if !slices.Contains(Algorithms, in.SigningAlg) {
		return in, invalid("signing-alg", "ES256 or RS256, not %q", in.SigningAlg)
	}
	return in, nil
}

// checkRedirect applies RFC 6749 §3.1.2 and RFC 8252 §7 (native apps): an
// absolute URI without a fragment or a wildcard; https, http to a loopback
// host (a developer's machine, a native app's loopback listener), or, for a
// public client, a private-use scheme in reverse-domain form
// ("ca.belairdirect.app:/callback").
func checkRedirect(kind Kind, raw string) error {
	u, err := parseURI("redirect-uri", raw)
	if err != nil {
		return err
	}
	switch u.Scheme {
	case "https", "http":
		return checkWebURI("redirect-uri", raw)
	}
	if kind != Public || !strings.Contains(u.Scheme, ".") {
		return invalid("redirect-uri", "%s: https (http only to a loopback host); a custom scheme only for a public client, in reverse-domain form (com.example.app:/callback)", raw)
	}
	return nil
}

// checkWebURI: https, or http to a loopback host.
func checkWebURI(field, raw string) error {
	u, err := parseURI(field, raw)
	if err != nil {
		return err
	}
	if u.Host == "" {
		return invalid(field, "%s has no host", raw)
	}
	if u.Scheme == "https" || (u.Scheme == "http" && loopback(u.Hostname())) {
		return nil
	}
	return invalid(field, "%s: https is required (http only to a loopback host)", raw)
}

func parseURI(field, raw string) (*url.URL, error) {
	if raw == "" || len(raw) > maxURI || strings.ContainsAny(raw, "* \t\r\n") {
		return nil, invalid(field, "%q is not an absolute URI without spaces or wildcards", raw)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs():
		return nil, invalid(field, "%q is not an absolute URI", raw)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, invalid(field, "%s: no fragment (#) allowed", raw)
	case u.User != nil:
		return nil, invalid(field, "%s: no user name or password in the URI", raw)
	}
	return u, nil
}

func loopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

const clientColumns = "id, brand, name, kind, secret_hash, third_party, redirect_uris, backchannel_logout_uri, signing_alg, auth_method, jwks, created_at, disabled_at"

// AddClient registers a client and returns it with its secret (a
// client_secret_basic client's, shown once and stored only as a hash; ""
// for a public or private_key_jwt client). actor is "cli" or "staff:<id>",
// for the audit row.
func (s *Service) AddClient(ctx context.Context, in NewClient, actor string) (Client, string, error) {
	in, keys, err := s.check(in)
	if err != nil {
		return Client{}, "", err
	}
	id, err := codes.RandomID(rand.Reader)
	if err != nil {
		return Client{}, "", err
	}
	now := s.Now()
	c := Client{ID: id, Brand: in.Brand, Name: in.Name, Kind: in.Kind, ThirdParty: in.ThirdParty,
		RedirectURIs: in.RedirectURIs, BackchannelLogoutURI: in.BackchannelLogoutURI, SigningAlg: in.SigningAlg, AuthMethod: in.AuthMethod,
		CreatedAt: time.UnixMilli(now.UnixMilli()).UTC(), keys: keys}
	var secret, jwks string
	if keys != nil {
		b, err := json.Marshal(jose.JSONWebKeySet{Keys: keys})
		if err != nil {
			return Client{}, "", err
		}
		jwks = string(b)
	}
	if in.AuthMethod == AuthSecretBasic {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return Client{}, "", err
		}
		secret = base64.RawURLEncoding.EncodeToString(b[:])
		c.secretHash = codes.TokenHash(secret)
	}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO oidc_clients ("+clientColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
			c.ID, c.Brand, c.Name, string(c.Kind), c.secretHash, boolInt(c.ThirdParty), strings.Join(c.RedirectURIs, "\n"),
			c.BackchannelLogoutURI, string(c.SigningAlg), string(c.AuthMethod), jwks, c.CreatedAt.UnixMilli()); err != nil {
			return fmt.Errorf("add client: %w", err)
		}
		return audit.Record(ctx, tx, audit.Event{At: now, Brand: c.Brand, Event: audit.OIDCClientAdd, Outcome: "ok",
			Detail: "client:" + c.ID, Actor: actor})
	})
	if err != nil {
		return Client{}, "", err
	}
	return c, secret, nil
}

// Client returns a client by id, disabled or not (ErrUnknownClient).
func (s *Service) Client(ctx context.Context, id string) (Client, error) {
	c, err := scanClient(s.DB.QueryRow(ctx, "SELECT "+clientColumns+" FROM oidc_clients WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return Client{}, ErrUnknownClient
	}
	return c, err
}

// Clients lists the clients of a brand ("" for every brand), by brand then
// name.
func (s *Service) Clients(ctx context.Context, brand string) ([]Client, error) {
	q, args := "SELECT "+clientColumns+" FROM oidc_clients", []any{}
	if brand != "" {
		q, args = q+" WHERE brand = ?", append(args, brand)
	}
	rows, err := s.DB.Query(ctx, q+" ORDER BY brand, name, id", args...)
	if err != nil {
		return nil, fmt.Errorf("clients: %w", err)
	}
	return store.Collect(rows, func(r *sql.Rows) (Client, error) { return scanClient(r) })
}

// DisableClient stops a client: it can no longer start a sign-in, exchange
// a code or refresh a token. Disabling a disabled client changes nothing
// and writes no audit row.
func (s *Service) DisableClient(ctx context.Context, id, actor string) error {
	now := s.Now()
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		var brand string
		var disabledAt int64
		err := tx.QueryRow(ctx, "SELECT brand, disabled_at FROM oidc_clients WHERE id = ?", id).Scan(&brand, &disabledAt)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrUnknownClient
		}
		if err != nil || disabledAt != 0 {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE oidc_clients SET disabled_at = ? WHERE id = ?", now.UnixMilli(), id); err != nil {
			return fmt.Errorf("disable client: %w", err)
		}
		return audit.Record(ctx, tx, audit.Event{At: now, Brand: brand, Event: audit.OIDCClientDisable, Outcome: "ok",
			Detail: "client:" + id, Actor: actor})
	})
}

type scanner interface{ Scan(...any) error }

func scanClient(sc scanner) (Client, error) {
	var c Client
	var kind, uris, alg, method, jwks string
	var third int
	var created, disabled int64
	if err := sc.Scan(&c.ID, &c.Brand, &c.Name, &kind, &c.secretHash, &third, &uris, &c.BackchannelLogoutURI, &alg, &method, &jwks,
		&created, &disabled); err != nil {
		return Client{}, err
	}
	c.Kind, c.ThirdParty, c.RedirectURIs, c.SigningAlg = Kind(kind), third != 0, strings.Split(uris, "\n"), jose.SignatureAlgorithm(alg)
	c.AuthMethod = AuthMethod(method)
	if c.AuthMethod == "" { // registered before migration 0017
		c.AuthMethod = c.Kind.defaultAuth()
	}
	if jwks != "" {
		var set jose.JSONWebKeySet
		if err := json.Unmarshal([]byte(jwks), &set); err != nil {
			return Client{}, fmt.Errorf("client %s: its key set: %w", c.ID, err)
		}
		c.keys = set.Keys
	}
	c.CreatedAt = time.UnixMilli(created).UTC()
	if disabled != 0 {
		c.DisabledAt = time.UnixMilli(disabled).UTC()
	}
	return c, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
