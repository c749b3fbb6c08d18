// Package emailtoken is the emailed magic-link tokens of spec §1, §4.2 and
// §7: an insurer invites an insured person of its policy records by email
// when they enrol in e-documents (edoc), from a broker or agent application
// (BA) or in a marketing campaign (mrkt). The link carries a raw token of 256
// random bits; only its SHA-256 is stored. Reading it (GET
// /api/v1/tokens/{token}) decides, from the person's state at that moment,
// where the visitor goes (the action table of read.go) and opens the
// registration that step needs (internal/registration). A token is single
// use: the account creation, the UBI link or the password reset it leads to
// consumes it in its own transaction.
package emailtoken

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/audit"
	"guichet/internal/brand"
	"guichet/internal/codes"
	"guichet/internal/notify"
	"guichet/internal/policy"
	"guichet/internal/rules"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Sources of spec §9 "Allowed token sources", exact case.
const (
	SourceEdoc = "edoc"
	SourceBA   = "BA"
	SourceMrkt = "mrkt"
)

// Sources lists the allowed sources.
var Sources = []string{SourceEdoc, SourceBA, SourceMrkt}

// Length is the length of a raw token: 32 bytes in base64url without
// padding.
const Length = 43

// ResetAttempts is how many wrong postal codes or phones a password reset
// with an email token allows before the token dies (as recovery's tokens).
const ResetAttempts = 5

// Issuers recorded in issued_by.
const (
	IssuedByCLI   = "cli"
	IssuedByAdmin = "admin"
)

// Domain errors; handler.go maps them to the API's statuses once.
var (
	// ErrSource: not one of Sources.
	ErrSource = errors.New("source must be edoc, BA or mrkt")
	// ErrNoPerson: no insured person of that policy has that email on file
	// (or the policy is unknown).
	ErrNoPerson = errors.New("no insured person of that policy has that email on file")
	// ErrInactive: the policy is not active (cancelled).
	ErrInactive = errors.New("the policy is not active")
	// ErrBrand: not a brand of this deployment.
	ErrBrand = errors.New("unknown brand")
	// ErrNotFound: no usable token (malformed, unknown, another brand's,
	// another source's, not started yet).
	ErrNotFound = errors.New("emailtoken: unknown token")
	// ErrInconsistent: the policy records and the accounts contradict the
	// token: its person already has an account, and the token's email is
	// another account's (spec §8.1 412, the inconsistency roadblock).
	ErrInconsistent = errors.New("emailtoken: the person's account and the token's email disagree")
	// ErrUsed: the token was consumed (or expired) meanwhile.
	ErrUsed = errors.New("emailtoken: token used or expired")
	// ErrRateLimited: too many reads from the client address.
	ErrRateLimited = errors.New("emailtoken: too many requests")
)

// InvalidError is a request field that breaks its rule.
type InvalidError struct{ Field, Problem string }

func (e *InvalidError) Error() string { return e.Field + ": " + e.Problem }

// Token is one stored token (never the raw value).
type Token struct {
	ID, Brand, PersonID, Source, Email, Language, IssuedBy string
	CreatedAt, StartAt, ExpiresAt, UsedAt                  time.Time
	RegistrationID                                         string
	Attempts                                               int
}

// Live reports whether the token may still be used at now: not used, not
// killed by wrong answers, started and not expired.
func (t Token) Live(now time.Time) bool {
	return t.UsedAt.IsZero() && t.Attempts < ResetAttempts && now.Before(t.ExpiresAt) && !now.Before(t.StartAt)
}

// WellFormed reports whether raw has the shape of a token: Length
// characters of base64url.
func WellFormed(raw string) bool { return api.IsBase64URL(raw, Length) }

// Opening asks internal/registration for the registration a token's action
// needs.
type Opening struct {
	Brand, PersonID string
	// Action: ActionAskPassword, ActionAskUsername or ActionRegister.
	Action string
	// Email: the policyholder account's (ask-password), the email taken
	// (ask-username), the username (register).
	Email              string
	Language, Province string
	// Previous is the registration the token's last read opened ("" when
	// none): reused when it is live and still at the action's step, else
	// closed.
	Previous string
}

// Opened is the registration opened (or reused) for a token.
type Opened struct {
	ID                   string
	TwoFactorValidations []Validation
}

// Validation is spec §3's two-factor option as the token answer carries it.
type Validation struct {
	ID          string `json:"id"`
	Method      string `json:"method"`
	MaskedValue string `json:"maskedValue"`
}

// Registrations opens token registrations in the read's transaction
// (internal/registration.Service).
type Registrations interface {
	OpenForToken(ctx context.Context, tx *store.Tx, o Opening) (Opened, error)
}

// Limits are the server's own limits on reads.
type Limits struct {
	// Reads limits token reads (and deletes) per client address.
	Reads throttle.Rule
}

// DefaultLimits let a person open a few links comfortably and stop a scan.
func DefaultLimits() Limits {
	return Limits{Reads: throttle.Rule{Scope: "emailtoken.read.ip", Limit: 60, Window: 10 * time.Minute}}
}

// Service issues, reads and consumes tokens. Fields may be set before
// first use.
type Service struct {
	DB      *store.DB
	Brands  func(id string) (*brand.Brand, bool)
	Now     func() time.Time
	Rand    io.Reader
	Limiter *throttle.Limiter
	Limits  Limits
	// Registrations opens the registrations reads lead to; nil: reads
	// answer the token-expired and reset-password-login actions only.
	Registrations Registrations
	// Dev: links point to the brand's first dev host on DevAddr's port
	// (http), else to https://<first host>.
	Dev     bool
	DevAddr string
	// Poke, when set, is called after a transaction that queued a message
	// commits (the notify worker's Poke).
	Poke func()
}

// New returns a service with the default limits.
func New(db *store.DB, brands func(string) (*brand.Brand, bool), now func() time.Time) *Service {
	return &Service{DB: db, Brands: brands, Now: now, Rand: rand.Reader, Limiter: throttle.New(db, now),
		Limits: DefaultLimits()}
}

// Request is one token to issue.
type Request struct {
	Brand        string
	PolicyNumber string // any mask, any case
	Email        string // the email on file of the person invited
	Source       string
	Language     string // "" for the person's account language, else the brand's default
	// Start is when the link starts to work; zero: now.
	Start time.Time
	// Expiry is the token's life from Start; zero: the brand's
	// tokens.expiryDays.
	Expiry   time.Duration
	Send     bool   // queue the invitation email too
	IssuedBy string // IssuedByCLI, IssuedByAdmin, later "staff:<id>"
	IP       string // the caller's address, for the audit (admin API)
}

// Issued is a token issued: the only place the raw token appears.
type Issued struct {
	ID        string
	Token     string
	Link      string
	Email     string
	StartAt   time.Time
	ExpiresAt time.Time
}

// Issue issues one token in its own transaction.
func (s *Service) Issue(ctx context.Context, req Request) (Issued, error) {
	var out Issued
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		out, err = s.IssueTx(ctx, tx, req)
		return err
	})
	if err != nil {
		return Issued{}, err
	}
	return out, nil
}

// Check validates a request's fields without touching the store: the brand,
// the source, the email, the language and the expiry.
func (s *Service) Check(req Request) (*brand.Brand, Request, error) {
	b, ok := s.Brands(req.Brand)
	if !ok {
		return nil, req, ErrBrand
	}
	if !slices.Contains(Sources, req.Source) {
		return nil, req, ErrSource
	}
	email, err := rules.Email(req.Email)
	if err != nil {
		return nil, req, &InvalidError{Field: "email", Problem: "not a valid email address"}
	}
	req.Email = strings.ToLower(email)
	if policy.NormalizeNumber(req.PolicyNumber) == "" || len(req.PolicyNumber) > 40 {
		return nil, req, &InvalidError{Field: "policy_number", Problem: "required"}
	}
	switch req.Language {
	case "", "en", "fr":
	default:
		return nil, req, &InvalidError{Field: "language", Problem: "must be en or fr"}
	}
	if req.Expiry == 0 {
		req.Expiry = b.TokenExpiry()
	}
	if req.Expiry < time.Hour || req.Expiry > brand.MaxTokenExpiryDays*24*time.Hour {
		return nil, req, &InvalidError{Field: "days", Problem: fmt.Sprintf("must be 1 to %d", brand.MaxTokenExpiryDays)}
	}
	return b, req, nil
}

// IssueTx issues one token inside the caller's transaction (the CSV
// campaign, the admin API, the staff console): the person is the insured
// person of that active policy whose email on file is req.Email; with Send,
// the invitation email is queued in tx.
func (s *Service) IssueTx(ctx context.Context, tx *store.Tx, req Request) (Issued, error) {
	b, req, err := s.Check(req)
	if err != nil {
		return Issued{}, err
	}
	now := s.Now()
	if req.Start.IsZero() {
		req.Start = now
	}
	// Stored in milliseconds: the answer says what is stored.
	req.Start = req.Start.Truncate(time.Millisecond)
	pol, err := policy.ByNumber(ctx, tx, b.ID, req.PolicyNumber)
	if errors.Is(err, store.ErrNotFound) {
		return Issued{}, ErrNoPerson
	}
	if err != nil {
		return Issued{}, fmt.Errorf("token policy: %w", err)
	}
	if pol.Status != policy.Active {
		return Issued{}, ErrInactive
	}
	personID, err := policy.PersonIDByEmail(ctx, tx, pol.ID, req.Email)
	if errors.Is(err, store.ErrNotFound) {
		return Issued{}, ErrNoPerson
	}
	if err != nil {
		return Issued{}, fmt.Errorf("token person: %w", err)
	}
	p, err := policy.PersonByID(ctx, tx, b.ID, personID)
	if err != nil {
		return Issued{}, err
	}
	language := req.Language
	if language == "" {
		language = b.DefaultLanguage
		if p.AccountID != "" {
			if a, err := account.ByID(ctx, tx, b.ID, p.AccountID); err == nil && a.Language != "" {
				language = a.Language
			}
		}
	}
	var raw [32]byte
	if _, err := io.ReadFull(s.Rand, raw[:]); err != nil {
		return Issued{}, fmt.Errorf("token: random: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	id, err := codes.RandomID(s.Rand)
	if err != nil {
		return Issued{}, err
	}
	expires := req.Start.Add(req.Expiry)
	if req.Send && !expires.After(now) {
		return Issued{}, &InvalidError{Field: "start", Problem: "the link would be expired already: nothing to send"}
	}
	_, err = tx.Exec(ctx, `INSERT INTO email_tokens (id, token_hash, brand, person_id, source, email, language, issued_by,
		created_at, start_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, codes.TokenHash(token), b.ID, p.ID, req.Source, req.Email, language, req.IssuedBy,
		now.UnixMilli(), req.Start.UnixMilli(), expires.UnixMilli())
	if err != nil {
		return Issued{}, fmt.Errorf("insert token: %w", err)
	}
	out := Issued{ID: id, Token: token, Link: s.link(b, token, req.Source, language), Email: req.Email,
		StartAt: req.Start.UTC(), ExpiresAt: expires.UTC()}
	if req.Send {
		data := map[string]string{notify.DataLink: out.Link, notify.DataExpires: expires.UTC().Format(time.DateOnly)}
		if p.FirstName != "" {
			data[notify.DataFirstName] = p.FirstName
		}
		if pol.Province != "" {
			data[notify.DataProvince] = pol.Province
		}
		if err := notify.Queue(ctx, tx, notify.Message{Brand: b.ID, Language: language, Channel: notify.ChannelEmail,
			To: req.Email, Template: Template(req.Source), Data: data, ExpiresAt: expires}, s.Poke); err != nil {
			return Issued{}, err
		}
	}
	detail := req.Source
	if req.Send {
		detail += " sent"
	}
	return out, audit.Record(ctx, tx, audit.Event{At: now, Brand: b.ID, AccountID: p.AccountID, IP: req.IP,
		Event: audit.TokenIssue, Outcome: "ok", Detail: detail, Actor: req.IssuedBy})
}

// Template is the invitation email of a source.
func Template(source string) string {
	switch source {
	case SourceBA:
		return notify.TemplateInvitationBA
	case SourceMrkt:
		return notify.TemplateInvitationMrkt
	}
	return notify.TemplateInvitationEdoc
}

// link is the invitation's address: the SPA's entry page for links.
func (s *Service) link(b *brand.Brand, token, source, language string) string {
	return LinkBase(b, s.Dev, s.DevAddr) + "/registration/link?token=" + token + "&src=" + source + "&lang=" + language
}

// LinkBase is where a brand's links point: https://<first host>, or in
// --dev http://<first dev host>:<port of addr>.
func LinkBase(b *brand.Brand, dev bool, addr string) string {
	if dev && len(b.DevHosts) > 0 {
		host := b.DevHosts[0]
		if _, port, err := net.SplitHostPort(addr); err == nil && port != "" && port != "0" {
			host = net.JoinHostPort(host, port)
		}
		return "http://" + host
	}
	if len(b.Hosts) > 0 {
		return "https://" + b.Hosts[0]
	}
	return "https://" + b.ID + ".example"
}

const selectToken = `SELECT id, brand, person_id, source, email, language, issued_by, created_at, start_at, expires_at,
	used_at, registration_id, attempts FROM email_tokens`

func scan(row *sql.Row) (Token, error) {
	var t Token
	var created, start, expires, used int64
	err := row.Scan(&t.ID, &t.Brand, &t.PersonID, &t.Source, &t.Email, &t.Language, &t.IssuedBy, &created, &start,
		&expires, &used, &t.RegistrationID, &t.Attempts)
	if errors.Is(err, sql.ErrNoRows) {
		return Token{}, ErrNotFound
	}
	if err != nil {
		return Token{}, fmt.Errorf("load token: %w", err)
	}
	t.CreatedAt, t.StartAt, t.ExpiresAt = time.UnixMilli(created).UTC(), time.UnixMilli(start).UTC(), time.UnixMilli(expires).UTC()
	if used != 0 {
		t.UsedAt = time.UnixMilli(used).UTC()
	}
	return t, nil
}

// Querier is a *store.DB or a *store.Tx.
type Querier interface {
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

// Lookup returns the brand's token of a raw value: ErrNotFound when
// malformed (before any query), unknown or another brand's.
func Lookup(ctx context.Context, q Querier, brand, raw string) (Token, error) {
	if !WellFormed(raw) {
		return Token{}, ErrNotFound
	}
	t, err := scan(q.QueryRow(ctx, selectToken+" WHERE token_hash = ?", codes.TokenHash(raw)))
	if err == nil && t.Brand != brand {
		return Token{}, ErrNotFound
	}
	return t, err
}

// ForRegistration returns the token whose read opened a registration;
// ErrNotFound when it is not a token registration.
func ForRegistration(ctx context.Context, q Querier, brand, registrationID string) (Token, error) {
	return scan(q.QueryRow(ctx, selectToken+" WHERE brand = ? AND registration_id = ?", brand, registrationID))
}

// ConsumeForRegistration spends, in tx, the live token whose registration
// is registrationID: ErrUsed when it was spent (or expired) meanwhile, so
// of concurrent creates with one token only one commits.
func ConsumeForRegistration(ctx context.Context, tx *store.Tx, brand, registrationID, detail string, now time.Time) (Token, error) {
	t, err := ForRegistration(ctx, tx, brand, registrationID)
	if err != nil {
		return Token{}, err
	}
	return t, consume(ctx, tx, t, detail, now)
}

// Consume spends a live token in tx (the password reset with an email
// token): ErrUsed when it was spent or expired meanwhile.
func Consume(ctx context.Context, tx *store.Tx, t Token, detail string, now time.Time) error {
	return consume(ctx, tx, t, detail, now)
}

func consume(ctx context.Context, tx *store.Tx, t Token, detail string, now time.Time) error {
	res, err := tx.Exec(ctx, `UPDATE email_tokens SET used_at = ? WHERE id = ? AND used_at = 0 AND expires_at > ?
		AND start_at <= ? AND attempts < ?`, now.UnixMilli(), t.ID, now.UnixMilli(), now.UnixMilli(), ResetAttempts)
	if err != nil {
		return fmt.Errorf("consume token: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		if err != nil {
			return err
		}
		return ErrUsed
	}
	return audit.Record(ctx, tx, audit.Event{At: now, Brand: t.Brand, Event: audit.TokenConsume, Outcome: "ok", Detail: detail})
}

// CountWrong counts a wrong postal code or phone given with the token (a
// password reset); the ResetAttempts-th kills it. It reports whether the
// token is dead now.
func CountWrong(ctx context.Context, tx *store.Tx, t Token) (bool, error) {
	var n int
	err := tx.QueryRow(ctx, `UPDATE email_tokens SET attempts = attempts + 1 WHERE id = ? AND used_at = 0
		RETURNING attempts`, t.ID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("count wrong answer: %w", err)
	}
	return n >= ResetAttempts, nil
}

// Kill makes a token unusable for a reset (a wrong cell phone).
func Kill(ctx context.Context, tx *store.Tx, t Token) error {
	if _, err := tx.Exec(ctx, "UPDATE email_tokens SET attempts = ? WHERE id = ?", ResetAttempts, t.ID); err != nil {
		return fmt.Errorf("kill token: %w", err)
	}
	return nil
}

// keep is how long a dead token row stays (audit aside, nothing reads it).
const keep = 30 * 24 * time.Hour

// Prune deletes tokens expired more than 30 days ago; the janitor calls it.
func (s *Service) Prune(ctx context.Context) (int64, error) {
	res, err := s.DB.Exec(ctx, "DELETE FROM email_tokens WHERE expires_at <= ?", s.Now().Add(-keep).UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("token prune: %w", err)
	}
	return res.RowsAffected()
}
