// Package passkey is the customer's passkeys (issue 31, design.md "The
// customer's own account"), on github.com/go-webauthn/webauthn: added and
// named on My account (after a fresh proof), listed, renamed, removed;
// a sign-in from the login page (discoverable credentials: the button and
// the browser's autofill) that ends in a login ticket the SSO form post
// redeems, so the session opens exactly as after a password; a proof for
// a re-authentication; staff's count and removal from the console. The
// relying party is the brand's host (RP). It owns passkey_users,
// passkeys, passkey_challenges and passkey_offers.
package passkey

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/sso"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Rules.
const (
	// ChallengeTTL is how long a ceremony may take between its two calls.
	ChallengeTTL = 5 * time.Minute
	// MaxPerAccount bounds the passkeys of one account.
	MaxPerAccount = 20
	// MaxName is the longest name, in characters.
	MaxName = 60
)

// Domain errors; handler.go maps them to the API's once.
var (
	// ErrChallenge: no such ceremony, an expired one, one used already,
	// or one begun for another session, brand or host.
	ErrChallenge = errors.New("passkey: no such ceremony")
	// ErrInvalid: the browser's answer did not verify.
	ErrInvalid = errors.New("passkey: invalid answer")
	// ErrRefused: a sign-in refused (an unknown passkey, a locked account,
	// an answer that did not verify), told apart from nothing else.
	ErrRefused = errors.New("passkey: sign-in refused")
	// ErrNotFound: the account has no passkey with that id.
	ErrNotFound = errors.New("passkey: not found")
	// ErrTooMany: the account has MaxPerAccount passkeys.
	ErrTooMany = errors.New("passkey: too many")
	// ErrName: an empty or too long name, or one with control characters.
	ErrName = errors.New("passkey: bad name")
	// ErrRateLimited: the client began too many ceremonies.
	ErrRateLimited = errors.New("passkey: rate limited")
)

// RP is the relying party of a request: the brand's host, as the browser
// reached it (account.Origin: one of the brand's hosts, never one the
// Host header chose).
type RP struct {
	ID     string // the host name: example.com
	Origin string // https://example.com (a port in --dev)
	Name   string // the brand's name in the visitor's language
}

// Passkey is one of an account's passkeys as My account lists it.
type Passkey struct {
	ID         string
	Name       string
	CreatedAt  time.Time
	LastUsedAt time.Time // zero: never used
}

// Service keeps passkeys and runs their ceremonies.
type Service struct {
	DB       *store.DB
	Accounts *account.Service
	Sessions *sso.Service
	Limiter  *throttle.Limiter
	Now      func() time.Time
	Rand     io.Reader
	// BeginLimit bounds the ceremonies a client begins (per IP).
	BeginLimit throttle.Rule
}

// New returns a service on the accounts' store and clock.
func New(accounts *account.Service, sessions *sso.Service) *Service {
	return &Service{DB: accounts.DB, Accounts: accounts, Sessions: sessions, Limiter: accounts.Limiter, Now: accounts.Now,
		Rand: rand.Reader, BeginLimit: throttle.Rule{Scope: "passkey.begin", Limit: 60, Window: time.Minute}}
}

// webAuthn is go-webauthn for the relying party, made for each ceremony:
// it is cheap, and a cache keyed by what the Host header says would grow
// with every spelling of a brand's host an anonymous client sends.
func (s *Service) webAuthn(rp RP) (*webauthn.WebAuthn, error) {
	w, err := webauthn.New(&webauthn.Config{
		RPID: rp.ID, RPDisplayName: rp.Name, RPOrigins: []string{rp.Origin},
		AttestationPreference: protocol.PreferNoAttestation,
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey: protocol.ResidentKeyRequirementRequired, RequireResidentKey: protocol.ResidentKeyRequired(),
			UserVerification: protocol.VerificationRequired,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("webauthn for %s: %w", rp.ID, err)
	}
	return w, nil
}

// user is an account as go-webauthn sees it: its handle under the
// relying party and its credentials there.
type user struct {
	handle      []byte
	account     account.Account
	credentials []webauthn.Credential
	ids         []string // the passkeys' public ids, in the order of credentials
}

func (u *user) WebAuthnID() []byte   { return u.handle }
func (u *user) WebAuthnName() string { return u.account.Email }
func (u *user) WebAuthnDisplayName() string {
	return strings.TrimSpace(u.account.FirstName + " " + u.account.LastName)
}
func (u *user) WebAuthnCredentials() []webauthn.Credential { return u.credentials }

// loadUser reads the account's handle (made when create is set and there
// is none) and credentials under the relying party.
func (s *Service) loadUser(ctx context.Context, tx *store.Tx, rpID string, a account.Account, create bool) (*user, error) {
	u := &user{account: a}
	var handle string
	err := tx.QueryRow(ctx, "SELECT handle FROM passkey_users WHERE rp_id = ? AND account_id = ?", rpID, a.ID).Scan(&handle)
	switch err = store.NotFound(err); {
	case errors.Is(err, store.ErrNotFound) && create:
		b := make([]byte, 32)
		if _, err := io.ReadFull(s.Rand, b); err != nil {
			return nil, err
		}
		// Two first ceremonies at once: the second keeps the first's handle.
		if _, err := tx.Exec(ctx, `INSERT INTO passkey_users (rp_id, account_id, handle) VALUES (?, ?, ?)
			ON CONFLICT (rp_id, account_id) DO NOTHING`, rpID, a.ID, base64.RawURLEncoding.EncodeToString(b)); err != nil {
			return nil, fmt.Errorf("passkey user: %w", err)
		}
		if err := tx.QueryRow(ctx, "SELECT handle FROM passkey_users WHERE rp_id = ? AND account_id = ?", rpID, a.ID).Scan(&handle); err != nil {
			return nil, fmt.Errorf("passkey user: %w", err)
		}
	case errors.Is(err, store.ErrNotFound):
		return u, nil
	case err != nil:
		return nil, err
	}
	if u.handle, err = base64.RawURLEncoding.DecodeString(handle); err != nil {
		return nil, fmt.Errorf("passkey handle: %w", err)
	}
	rows, err := tx.Query(ctx, "SELECT id, credential FROM passkeys WHERE rp_id = ? AND account_id = ? ORDER BY created_at, id", rpID, a.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, raw string
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, err
		}
		var c webauthn.Credential
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			return nil, fmt.Errorf("passkey %s: %w", id, err)
		}
		u.credentials, u.ids = append(u.credentials, c), append(u.ids, id)
	}
	return u, rows.Err()
}

// Ceremony kinds.
const (
	kindRegister = "register"
	kindLogin    = "login"
	kindReauth   = "reauth"
)

// challenge is a ceremony between its two calls.
type challenge struct {
	kind, brand, rpID, accountID, sessionID string
}

// begin stores the ceremony's session data and returns the id the browser
// sends back (only its hash is kept). The library's own expiry reads the
// machine's clock: ours is expires_at, on the service's.
func (s *Service) begin(ctx context.Context, tx *store.Tx, c challenge, sd *webauthn.SessionData) (string, error) {
	now := s.Now()
	if _, err := tx.Exec(ctx, "DELETE FROM passkey_challenges WHERE expires_at <= ?", now.UnixMilli()); err != nil {
		return "", err
	}
	id, err := codes.RandomID(s.Rand)
	if err != nil {
		return "", err
	}
	sd.Expires = time.Time{}
	data, err := json.Marshal(sd)
	if err != nil {
		return "", err
	}
	_, err = tx.Exec(ctx, `INSERT INTO passkey_challenges (id_hash, kind, brand, rp_id, account_id, session_id, data, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, idHash(id), c.kind, c.brand, c.rpID, c.accountID, c.sessionID, string(data),
		now.Add(ChallengeTTL).UnixMilli())
	if err != nil {
		return "", fmt.Errorf("store passkey challenge: %w", err)
	}
	return id, nil
}

// take spends the ceremony of id in tx (deleted whatever follows: single
// use) and returns its session data when it is unexpired and was begun
// as want (kind, brand, host, account and session).
func (s *Service) take(ctx context.Context, tx *store.Tx, id string, want challenge) (webauthn.SessionData, error) {
	var got challenge
	var data string
	var expires int64
	err := tx.QueryRow(ctx, `DELETE FROM passkey_challenges WHERE id_hash = ?
		RETURNING kind, brand, rp_id, account_id, session_id, data, expires_at`, idHash(id)).
		Scan(&got.kind, &got.brand, &got.rpID, &got.accountID, &got.sessionID, &data, &expires)
	if errors.Is(store.NotFound(err), store.ErrNotFound) {
		return webauthn.SessionData{}, ErrChallenge
	}
	if err != nil {
		return webauthn.SessionData{}, err
	}
	if got != want || expires <= s.Now().UnixMilli() {
		return webauthn.SessionData{}, ErrChallenge
	}
	var sd webauthn.SessionData
	if err := json.Unmarshal([]byte(data), &sd); err != nil {
		return webauthn.SessionData{}, fmt.Errorf("passkey challenge: %w", err)
	}
	return sd, nil
}

func idHash(id string) string {
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:])
}

// starting applies the per-client limit on ceremonies begun and returns
// go-webauthn for the relying party.
func (s *Service) starting(ctx context.Context, rp RP, ip string) (*webauthn.WebAuthn, error) {
	ok, err := s.Limiter.Allow(ctx, s.BeginLimit, throttle.ClientKey(ip))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrRateLimited
	}
	return s.webAuthn(rp)
}

// sessionUser is the session's account as go-webauthn sees it under the
// relying party (its handle made when create is set and it has none).
func (s *Service) sessionUser(ctx context.Context, tx *store.Tx, sess sso.Session, rp RP, create bool) (*user, error) {
	a, err := account.ByID(ctx, tx, sess.Brand, sess.AccountID)
	if err != nil {
		return nil, err
	}
	return s.loadUser(ctx, tx, rp.ID, a, create)
}

// Name checks and normalizes a passkey's name: trimmed, 1 to MaxName
// characters, no control characters.
func Name(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > MaxName {
		return "", ErrName
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return "", ErrName
		}
	}
	return name, nil
}

// BeginRegistration starts adding a passkey to the session's account
// (the handler checked the session is fresh): the options for the
// browser's navigator.credentials.create and the ceremony's id.
func (s *Service) BeginRegistration(ctx context.Context, sess sso.Session, rp RP, ip string) (string, *protocol.CredentialCreation, error) {
	return beginFor(ctx, s, sess, rp, ip, kindRegister, func(w *webauthn.WebAuthn, u *user) (*protocol.CredentialCreation, *webauthn.SessionData, error) {
		if len(u.credentials) >= MaxPerAccount {
			return nil, nil, ErrTooMany
		}
		return w.BeginRegistration(u,
			webauthn.WithExclusions(webauthn.Credentials(u.credentials).CredentialDescriptors()),
			webauthn.WithExtensions(webauthn.WithExtensionCredProps()))
	})
}

// beginFor begins a ceremony of the session's account (kind): options
// makes the options from go-webauthn and the account's user, whose handle
// a registration makes when it has none.
func beginFor[T any](ctx context.Context, s *Service, sess sso.Session, rp RP, ip, kind string,
	options func(*webauthn.WebAuthn, *user) (T, *webauthn.SessionData, error)) (string, T, error) {
	var id string
	var out T
	w, err := s.starting(ctx, rp, ip)
	if err != nil {
		return "", out, err
	}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		u, err := s.sessionUser(ctx, tx, sess, rp, kind == kindRegister)
		if err != nil {
			return err
		}
		var sd *webauthn.SessionData
		if out, sd, err = options(w, u); err != nil {
			return err
		}
		id, err = s.begin(ctx, tx, challenge{kind: kind, brand: sess.Brand, rpID: rp.ID, accountID: sess.AccountID, sessionID: sess.ID}, sd)
		return err
	})
	return id, out, err
}

// FinishRegistration verifies the browser's answer (the
// PublicKeyCredential as JSON) to the ceremony of challengeID and keeps
// the passkey under name.
func (s *Service) FinishRegistration(ctx context.Context, sess sso.Session, rp RP, challengeID, name string, answer []byte, ip string) (Passkey, error) {
	w, err := s.webAuthn(rp)
	if err != nil {
		return Passkey{}, err
	}
	now := s.Now()
	e := audit.Event{At: now, Brand: sess.Brand, AccountID: sess.AccountID, IP: ip, Event: audit.PasskeyAdd}
	var p Passkey
	var answerErr error
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		answerErr = nil
		sd, err := s.take(ctx, tx, challengeID, challenge{kind: kindRegister, brand: sess.Brand, rpID: rp.ID, accountID: sess.AccountID, sessionID: sess.ID})
		if errors.Is(err, ErrChallenge) {
			// Spent all the same: the transaction commits its deletion.
			answerErr = err
			return nil
		}
		if err != nil {
			return err
		}
		u, err := s.sessionUser(ctx, tx, sess, rp, false)
		if err != nil {
			return err
		}
		if len(u.credentials) >= MaxPerAccount {
			// The spent ceremony stays spent (a return with an error
			// would roll its take back).
			e.Outcome, e.Detail, answerErr = "refused", "too_many", ErrTooMany
			return audit.Record(ctx, tx, e)
		}
		parsed, err := protocol.ParseCredentialCreationResponseBytes(answer)
		var c *webauthn.Credential
		if err == nil {
			c, err = w.CreateCredential(u, sd, parsed)
		}
		if err != nil {
			// The spent ceremony stays spent; the refusal is recorded.
			e.Outcome, answerErr = "invalid", ErrInvalid
			return audit.Record(ctx, tx, e)
		}
		raw, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if p.ID, err = codes.RandomID(s.Rand); err != nil {
			return err
		}
		p.Name, p.CreatedAt = name, now
		// A key stored already: no unique violation, which would leave
		// PostgreSQL's transaction unusable for the refusal's audit.
		res, err := tx.Exec(ctx, `INSERT INTO passkeys (id, account_id, brand, rp_id, credential_id, name, credential, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (rp_id, credential_id) DO NOTHING`,
			p.ID, u.account.ID, u.account.Brand, rp.ID, base64.RawURLEncoding.EncodeToString(c.ID), name, string(raw), now.UnixMilli())
		if err == nil {
			if n, _ := res.RowsAffected(); n == 0 {
				e.Outcome, e.Detail, answerErr = "invalid", "duplicate", ErrInvalid
				return audit.Record(ctx, tx, e)
			}
		}
		if err != nil {
			return fmt.Errorf("store passkey: %w", err)
		}
		e.Outcome, e.Detail = "ok", p.ID
		return audit.Record(ctx, tx, e)
	})
	if err != nil {
		return Passkey{}, err
	}
	return p, answerErr
}

// List is the account's passkeys, the newest first.
func (s *Service) List(ctx context.Context, accountID string) ([]Passkey, error) {
	rows, err := s.DB.Query(ctx, "SELECT id, name, created_at, last_used_at FROM passkeys WHERE account_id = ? ORDER BY created_at DESC, id", accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Passkey
	for rows.Next() {
		var p Passkey
		var created, used int64
		if err := rows.Scan(&p.ID, &p.Name, &created, &used); err != nil {
			return nil, err
		}
		p.CreatedAt = time.UnixMilli(created).UTC()
		if used != 0 {
			p.LastUsedAt = time.UnixMilli(used).UTC()
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Count is how many passkeys the account has (the console shows it).
func (s *Service) Count(ctx context.Context, accountID string) (int, error) {
	var n int
	err := s.DB.QueryRow(ctx, "SELECT COUNT(*) FROM passkeys WHERE account_id = ?", accountID).Scan(&n)
	return n, err
}

// Rename names one of the account's passkeys again.
func (s *Service) Rename(ctx context.Context, brand, accountID, id, name, ip string) error {
	return s.change(ctx, audit.Event{Brand: brand, AccountID: accountID, IP: ip, Event: audit.PasskeyRename},
		"UPDATE passkeys SET name = ? WHERE id = ? AND account_id = ?", name, id, accountID)
}

// Remove deletes one of the account's passkeys (ErrNotFound when the
// account has none with that id: another account's passkey stays).
func (s *Service) Remove(ctx context.Context, brand, accountID, id, ip string) error {
	return s.change(ctx, audit.Event{Brand: brand, AccountID: accountID, IP: ip, Event: audit.PasskeyRemove},
		"DELETE FROM passkeys WHERE id = ? AND account_id = ?", id, accountID)
}

// change runs q on one passkey of the account (its id the last but one
// argument) and records e for it; ErrNotFound when q touched none.
func (s *Service) change(ctx context.Context, e audit.Event, q string, args ...any) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.Exec(ctx, q, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotFound
		}
		e.At, e.Outcome, e.Detail = s.Now(), "ok", fmt.Sprint(args[len(args)-2])
		return audit.Record(ctx, tx, e)
	})
}

// RemoveAll deletes every passkey of the account, for staff (actor) from
// the console, and returns how many went.
func (s *Service) RemoveAll(ctx context.Context, brand, accountID, actor, ip string) (int, error) {
	var n int64
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.Exec(ctx, "DELETE FROM passkeys WHERE account_id = ?", accountID)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{At: s.Now(), Brand: brand, AccountID: accountID, IP: ip, Event: audit.PasskeyRemove,
			Outcome: "ok", Detail: fmt.Sprintf("staff_%d", n), Actor: actor})
	})
	return int(n), err
}

// Offer reports whether My account should offer to add a passkey: the
// account has none and was never offered one.
func (s *Service) Offer(ctx context.Context, accountID string) (bool, error) {
	var n int
	err := s.DB.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM passkeys WHERE account_id = ?) +
		(SELECT COUNT(*) FROM passkey_offers WHERE account_id = ?)`, accountID, accountID).Scan(&n)
	return n == 0, err
}

// Offered records that My account made the offer (it is made once).
func (s *Service) Offered(ctx context.Context, accountID string) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO passkey_offers (account_id, offered_at) VALUES (?, ?) ON CONFLICT (account_id) DO NOTHING",
			accountID, s.Now().UnixMilli())
		return err
	})
}

// BeginLogin starts a sign-in by a discoverable passkey (no account
// named: the browser's chooser, or its autofill under conditional
// mediation).
func (s *Service) BeginLogin(ctx context.Context, brand string, rp RP, ip string) (string, *protocol.CredentialAssertion, error) {
	w, err := s.starting(ctx, rp, ip)
	if err != nil {
		return "", nil, err
	}
	assertion, sd, err := w.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return "", nil, err
	}
	var id string
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		id, err = s.begin(ctx, tx, challenge{kind: kindLogin, brand: brand, rpID: rp.ID}, sd)
		return err
	})
	return id, assertion, err
}

// SignedIn is a passkey sign-in's outcome: the login ticket and the
// account's email, which the SSO form post presents together.
type SignedIn struct {
	Ticket string
	Email  string
}

// FinishLogin verifies the browser's assertion for the ceremony of
// challengeID and, through account.AuthenticateByKey (the password
// sign-in's rules: the rate limit, lockout, disabled account), returns a
// login ticket. Errors: ErrChallenge, ErrRefused, account.ErrDisabled,
// account.ErrRateLimited.
func (s *Service) FinishLogin(ctx context.Context, brand string, rp RP, challengeID string, answer []byte, ip string) (SignedIn, error) {
	w, err := s.webAuthn(rp)
	if err != nil {
		return SignedIn{}, err
	}
	e := audit.Event{Brand: brand, IP: ip, Event: audit.PasskeySignIn}
	var sd webauthn.SessionData
	var spent error
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		sd, err = s.take(ctx, tx, challengeID, challenge{kind: kindLogin, brand: brand, rpID: rp.ID})
		if spent = err; errors.Is(err, ErrChallenge) {
			e.At, e.Outcome = s.Now(), "expired"
			return audit.Record(ctx, tx, e)
		}
		return err
	})
	if err == nil {
		err = spent
	}
	if err != nil {
		return SignedIn{}, err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(answer)
	if err != nil {
		return SignedIn{}, s.refuse(ctx, e, "invalid")
	}
	// The account the passkey names, by its user handle under this host.
	var u *user
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		u = nil
		var accountID string
		err := tx.QueryRow(ctx, "SELECT account_id FROM passkey_users WHERE rp_id = ? AND handle = ?",
			rp.ID, base64.RawURLEncoding.EncodeToString(parsed.Response.UserHandle)).Scan(&accountID)
		if errors.Is(store.NotFound(err), store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		a, err := account.ByID(ctx, tx, brand, accountID)
		if errors.Is(err, account.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		u, err = s.loadUser(ctx, tx, rp.ID, a, false)
		return err
	})
	if err != nil {
		return SignedIn{}, err
	}
	if u == nil || credentialIndex(u, parsed.RawID) < 0 {
		return SignedIn{}, s.refuse(ctx, e, "unknown_credential")
	}
	e.AccountID = u.account.ID
	var c *webauthn.Credential
	_, c, err = w.ValidatePasskeyLogin(func([]byte, []byte) (webauthn.User, error) { return u, nil }, sd, parsed)
	proved := err == nil && !c.Authenticator.CloneWarning
	outcome := "ok"
	if !proved {
		outcome = "invalid"
	}
	var out SignedIn
	ticket, err := s.Accounts.AuthenticateByKey(ctx, brand, u.account.ID, ip, proved, func(tx *store.Tx, a account.Account) error {
		if err := s.used(ctx, tx, u, c); err != nil {
			return err
		}
		out.Email = a.Email
		e.At, e.Outcome, e.Detail = s.Now(), outcome, u.ids[credentialIndex(u, c.ID)]
		return audit.Record(ctx, tx, e)
	})
	switch {
	case errors.Is(err, account.ErrWrongPassword):
		// Recorded by account (sso.login: locked, unknown, invalid).
		return SignedIn{}, ErrRefused
	case err != nil:
		return SignedIn{}, err
	}
	out.Ticket = ticket
	return out, nil
}

// refuse records a sign-in refused before any account was named.
func (s *Service) refuse(ctx context.Context, e audit.Event, outcome string) error {
	e.At, e.Outcome = s.Now(), outcome
	if err := s.DB.InTx(ctx, func(tx *store.Tx) error { return audit.Record(ctx, tx, e) }); err != nil {
		return err
	}
	return ErrRefused
}

func credentialIndex(u *user, id []byte) int {
	for i, c := range u.credentials {
		if string(c.ID) == string(id) {
			return i
		}
	}
	return -1
}

// used writes back what an assertion changes (sign count, flags: the
// library's Storage guidance) and when the passkey was last used.
func (s *Service) used(ctx context.Context, tx *store.Tx, u *user, c *webauthn.Credential) error {
	i := credentialIndex(u, c.ID)
	if i < 0 {
		return ErrNotFound
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, "UPDATE passkeys SET credential = ?, last_used_at = ? WHERE id = ? AND account_id = ?",
		string(raw), s.Now().UnixMilli(), u.ids[i], u.account.ID)
	return err
}

// BeginReauth starts a passkey proof for a re-authentication: the
// session's account's passkeys under this host are the ones allowed.
// ErrNotFound when it has none here.
func (s *Service) BeginReauth(ctx context.Context, sess sso.Session, rp RP, ip string) (string, *protocol.CredentialAssertion, error) {
	return beginFor(ctx, s, sess, rp, ip, kindReauth, func(w *webauthn.WebAuthn, u *user) (*protocol.CredentialAssertion, *webauthn.SessionData, error) {
		if len(u.credentials) == 0 {
			return nil, nil, ErrNotFound
		}
		return w.BeginLogin(u, webauthn.WithUserVerification(protocol.VerificationRequired))
	})
}

// FinishReauth verifies the assertion for the session's account and marks
// the session fresh (sso.MarkFresh). ErrChallenge, ErrInvalid.
func (s *Service) FinishReauth(ctx context.Context, sess sso.Session, rp RP, challengeID string, answer []byte, ip string) error {
	w, err := s.webAuthn(rp)
	if err != nil {
		return err
	}
	var answerErr error
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		answerErr = nil
		e := audit.Event{At: s.Now(), Brand: sess.Brand, AccountID: sess.AccountID, IP: ip, Event: audit.PasskeyReauth}
		sd, err := s.take(ctx, tx, challengeID, challenge{kind: kindReauth, brand: sess.Brand, rpID: rp.ID, accountID: sess.AccountID, sessionID: sess.ID})
		if errors.Is(err, ErrChallenge) {
			e.Outcome, answerErr = "expired", err
			return audit.Record(ctx, tx, e)
		}
		if err != nil {
			return err
		}
		u, err := s.sessionUser(ctx, tx, sess, rp, false)
		if err != nil {
			return err
		}
		parsed, err := protocol.ParseCredentialRequestResponseBytes(answer)
		var c *webauthn.Credential
		if err == nil {
			c, err = w.ValidateLogin(u, sd, parsed)
		}
		if err != nil || c.Authenticator.CloneWarning {
			e.Outcome, answerErr = "invalid", ErrInvalid
			return audit.Record(ctx, tx, e)
		}
		if err := s.used(ctx, tx, u, c); err != nil {
			return err
		}
		if err := s.Sessions.MarkFresh(ctx, tx, sess.ID); err != nil {
			return err
		}
		e.Outcome, e.Detail = "ok", u.ids[credentialIndex(u, c.ID)]
		return audit.Record(ctx, tx, e)
	})
	if err != nil {
		return err
	}
	return answerErr
}

// Prune deletes the ceremonies past their end (the janitor calls it).
func (s *Service) Prune(ctx context.Context) (int64, error) {
	return s.DB.DeleteExpired(ctx, "passkey_challenges", s.Now())
}
