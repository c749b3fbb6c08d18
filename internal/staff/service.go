package staff

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/rules"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Limits of design.md's security baseline for staff.
const (
	IdleTimeout     = 15 * time.Minute // a session unused this long ends
	AbsoluteTimeout = 8 * time.Hour    // a session ends this long after sign-in
	SetupLinkTTL    = 24 * time.Hour   // a set-up link works this long, once
	MaxFailures     = 5                // wrong passwords or codes before a lock
	LockDuration    = 15 * time.Minute
	RecoveryCodes   = 10
	// touchEvery spares a write per request (as the customers' sessions).
	touchEvery = time.Minute
)

// AuditBrand is the audit rows' brand of staff events that concern no
// customer (sign-in, set-up, staff management).
const AuditBrand = "console"

// Domain errors; the handler maps them once.
var (
	ErrInvalidCredentials = errors.New("staff: invalid credentials")
	ErrInvalidCode        = errors.New("staff: invalid code")
	ErrNoSession          = errors.New("staff: no session")
	ErrLinkNotFound       = errors.New("staff: no such set-up link")
	// ErrRateLimited: too many sign-in attempts (passwords and codes) from
	// one client address, whatever accounts they name (wrapped in a
	// throttle.Limited with the wait).
	ErrRateLimited = errors.New("staff: too many sign-in attempts")
	ErrExists      = errors.New("staff: a member has that email")
	ErrUnknown     = errors.New("staff: no such member")
	ErrInvalid     = errors.New("staff: invalid member")
)

// Member is a staff account.
type Member struct {
	ID          string
	Email       string
	Name        string
	Role        Role
	Brands      []string // empty: every brand
	Enrolled    bool
	Disabled    bool
	LockedUntil time.Time
	CreatedAt   time.Time
}

// Principal is the member as a console request's actor.
func (m Member) Principal(factorAt time.Time) Principal {
	return Principal{ID: m.ID, Email: m.Email, Name: m.Name, Role: m.Role, Brands: m.Brands, FactorAt: factorAt}
}

// Service keeps the staff accounts and their sessions.
type Service struct {
	DB     *store.DB
	Hasher *account.Hasher
	Now    func() time.Time
	// TOTPNow is the clock TOTP codes are read on: the authenticator
	// app's, real time; nil is Now. GUICHET_DEV_NOW shifts Now, never this,
	// so staff still sign in with their phone's codes.
	TOTPNow func() time.Time
	// KnownBrand tells whether a brand id exists (nil: any).
	KnownBrand func(string) bool
	// Limiter and SignInLimit bound the sign-in attempts (passwords and
	// codes) per client address: the per-member lockout alone would let
	// one address try a password on every member in turn.
	Limiter     *throttle.Limiter
	SignInLimit throttle.Rule
	// Ended, when set, is told after a sign-out or a disable commits
	// which member's sessions ended (the app notifies Topic(id) through
	// the fan-out: that member's sockets re-check and close at once).
	Ended func(ctx context.Context, staffID string)
	keys  keys
}

func (s *Service) ended(ctx context.Context, staffID string) {
	if s.Ended != nil && staffID != "" {
		s.Ended(context.WithoutCancel(ctx), staffID)
	}
}

// DefaultSignInLimit: 30 attempts per 10 minutes per client address, room
// for a team behind one office address and none for guessing.
var DefaultSignInLimit = throttle.Rule{Scope: "staff.sign_in.ip", Limit: 30, Window: 10 * time.Minute}

// allowAttempt counts one sign-in attempt of ip; beyond the limit it audits
// the refusal and answers ErrRateLimited with the wait, before any hashing.
func (s *Service) allowAttempt(ctx context.Context, e audit.Event) error {
	if s.Limiter == nil {
		return nil
	}
	wait, err := s.Limiter.Check(ctx, s.SignInLimit, throttle.ClientKey(e.IP))
	if err != nil || wait == 0 {
		return err
	}
	e.Outcome, e.Detail = "rate_limited", s.SignInLimit.Scope
	if err := audit.Record(ctx, s.DB, e); err != nil {
		return err
	}
	return &throttle.Limited{Err: ErrRateLimited, RetryAfter: wait}
}

// New returns the service; root is GUICHET_STAFF_KEY's 32 bytes, or nil for
// the key kept in the database (recovery_secrets "staff").
func New(ctx context.Context, db *store.DB, hasher *account.Hasher, now func() time.Time, root []byte) (*Service, error) {
	k, err := loadKeys(ctx, db, root, now())
	if err != nil {
		return nil, fmt.Errorf("staff keys: %w", err)
	}
	return &Service{DB: db, Hasher: hasher, Now: now, Limiter: throttle.New(db, now), SignInLimit: DefaultSignInLimit, keys: k}, nil
}

func (s *Service) totpNow() time.Time {
	if s.TOTPNow != nil {
		return s.TOTPNow()
	}
	return s.Now()
}

const memberColumns = "id, email, name, role, brands, password_hash, totp_secret, totp_last_step, failed_attempts, locked_until, disabled_at, enrolled_at, created_at"

// row is a member with its secrets, as stored.
type row struct {
	Member
	hash     string
	sealed   string
	lastStep int64
	failures int
}

type scanner interface{ Scan(...any) error }

func scanRow(sc scanner) (row, error) {
	var r row
	var role, brands string
	var locked, disabled, enrolled, created int64
	err := sc.Scan(&r.ID, &r.Email, &r.Name, &role, &brands, &r.hash, &r.sealed, &r.lastStep, &r.failures,
		&locked, &disabled, &enrolled, &created)
	if err != nil {
		return row{}, err
	}
	r.Role, r.Brands = Role(role), splitBrands(brands)
	r.Disabled, r.Enrolled = disabled != 0, enrolled != 0
	if locked != 0 {
		r.LockedUntil = time.UnixMilli(locked).UTC()
	}
	r.CreatedAt = time.UnixMilli(created).UTC()
	return r, nil
}

func splitBrands(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func (s *Service) byEmail(ctx context.Context, q codes.Store, email string) (row, error) {
	r, err := scanRow(q.QueryRow(ctx, "SELECT "+memberColumns+" FROM staff_accounts WHERE email = ?", email))
	if errors.Is(store.NotFound(err), store.ErrNotFound) {
		return row{}, ErrUnknown
	}
	return r, err
}

func (s *Service) byID(ctx context.Context, q codes.Store, id string) (row, error) {
	r, err := scanRow(q.QueryRow(ctx, "SELECT "+memberColumns+" FROM staff_accounts WHERE id = ?", id))
	if errors.Is(store.NotFound(err), store.ErrNotFound) {
		return row{}, ErrUnknown
	}
	return r, err
}

// NormalizeEmail checks an email (the portal's rule) and lower-cases it.
func NormalizeEmail(s string) (string, error) {
	e, err := rules.Email(s)
	if err != nil {
		return "", err
	}
	return strings.ToLower(e), nil
}

// NewMember is what adding a member takes.
type NewMember struct {
	Email  string
	Name   string
	Role   Role
	Brands []string // empty: every brand
}

// Add creates a member who is not set up yet and returns the set-up link's
// token (SetupLinkTTL, single use). actor is who added ("cli" or a
// Principal's Actor()).
func (s *Service) Add(ctx context.Context, in NewMember, actor string) (Member, string, error) {
	email, err := NormalizeEmail(in.Email)
	if err != nil {
		return Member{}, "", fmt.Errorf("%w: email: %v", ErrInvalid, err)
	}
	name := strings.TrimSpace(in.Name)
	if name == "" || len(name) > 100 || !printable(name) {
		return Member{}, "", fmt.Errorf("%w: a name of 1 to 100 characters is required", ErrInvalid)
	}
	if !slices.Contains(Roles, in.Role) {
		return Member{}, "", fmt.Errorf("%w: role %q: want agent, supervisor or admin", ErrInvalid, in.Role)
	}
	var brands []string
	for _, b := range in.Brands {
		b = strings.ToLower(strings.TrimSpace(b))
		if b == "" || slices.Contains(brands, b) {
			continue
		}
		if strings.ContainsAny(b, ", ") || (s.KnownBrand != nil && !s.KnownBrand(b)) {
			return Member{}, "", fmt.Errorf("%w: unknown brand %q", ErrInvalid, b)
		}
		brands = append(brands, b)
	}
	id, err := codes.RandomID(rand.Reader)
	if err != nil {
		return Member{}, "", err
	}
	secret := make([]byte, SecretSize)
	if _, err := rand.Read(secret); err != nil {
		return Member{}, "", err
	}
	sealed, err := s.keys.seal(id, secret)
	if err != nil {
		return Member{}, "", err
	}
	now := s.Now()
	m := Member{ID: id, Email: email, Name: name, Role: in.Role, Brands: brands, CreatedAt: now.UTC()}
	var token string
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO staff_accounts (id, email, name, role, brands, totp_secret, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, email, name, string(in.Role), strings.Join(brands, ","), sealed, now.UnixMilli(), now.UnixMilli())
		if store.IsUniqueViolation(err) {
			return ErrExists
		}
		if err != nil {
			return err
		}
		if token, err = newSetupLink(ctx, tx, id, now); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{At: now, Brand: AuditBrand, AccountID: id, Event: audit.StaffAdd, Outcome: "ok",
			Detail: string(in.Role), Actor: actor})
	})
	if err != nil {
		return Member{}, "", err
	}
	return m, token, nil
}

func newSetupLink(ctx context.Context, tx *store.Tx, staffID string, now time.Time) (string, error) {
	token, err := randomToken()
	if err != nil {
		return "", err
	}
	_, err = tx.Exec(ctx, "INSERT INTO staff_setup_links (token_hash, staff_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
		codes.TokenHash(token), staffID, now.UnixMilli(), now.Add(SetupLinkTTL).UnixMilli())
	return token, err
}

// Disable disables a member and ends their sessions at once.
func (s *Service) Disable(ctx context.Context, email, actor string) error {
	email = strings.ToLower(strings.TrimSpace(email))
	var staffID string
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		staffID = ""
		r, err := s.byEmail(ctx, tx, email)
		if err != nil {
			return err
		}
		if r.Disabled {
			return nil
		}
		staffID = r.ID
		if _, err := tx.Exec(ctx, "UPDATE staff_accounts SET disabled_at = ?, updated_at = ? WHERE id = ?", now.UnixMilli(), now.UnixMilli(), r.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE staff_sessions SET revoked_at = ? WHERE staff_id = ? AND revoked_at = 0", now.UnixMilli(), r.ID); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{At: now, Brand: AuditBrand, AccountID: r.ID, Event: audit.StaffDisable, Outcome: "ok", Actor: actor})
	})
	if err == nil {
		s.ended(ctx, staffID)
	}
	return err
}

// List returns every member, by email.
func (s *Service) List(ctx context.Context) ([]Member, error) {
	rows, err := s.DB.Query(ctx, "SELECT "+memberColumns+" FROM staff_accounts ORDER BY email")
	if err != nil {
		return nil, err
	}
	return store.Collect(rows, func(rows *sql.Rows) (Member, error) {
		r, err := scanRow(rows)
		return r.Member, err
	})
}

// SetupInfo is what the set-up page shows.
type SetupInfo struct {
	Email, Name string
	Secret      []byte
}

// setupLink returns the member of a live link.
func (s *Service) setupLink(ctx context.Context, q codes.Store, token string, now time.Time) (row, error) {
	if token == "" || len(token) > 128 {
		return row{}, ErrLinkNotFound
	}
	var staffID string
	var expires, used int64
	err := q.QueryRow(ctx, "SELECT staff_id, expires_at, used_at FROM staff_setup_links WHERE token_hash = ?", codes.TokenHash(token)).
		Scan(&staffID, &expires, &used)
	if errors.Is(store.NotFound(err), store.ErrNotFound) {
		return row{}, ErrLinkNotFound
	}
	if err != nil {
		return row{}, err
	}
	if used != 0 || now.UnixMilli() >= expires {
		return row{}, ErrLinkNotFound
	}
	r, err := s.byID(ctx, q, staffID)
	if errors.Is(err, ErrUnknown) || err == nil && (r.Disabled || r.Enrolled) {
		return row{}, ErrLinkNotFound
	}
	return r, err
}

// Setup returns the member and TOTP secret of a live set-up link.
func (s *Service) Setup(ctx context.Context, token string) (SetupInfo, error) {
	r, err := s.setupLink(ctx, s.DB, token, s.Now())
	if err != nil {
		return SetupInfo{}, err
	}
	secret, err := s.keys.open(r.ID, r.sealed)
	if err != nil {
		return SetupInfo{}, err
	}
	return SetupInfo{Email: r.Email, Name: r.Name, Secret: secret}, nil
}

// Opened is a session just opened: the cookie's token and who.
type Opened struct {
	Token     string
	Principal Principal
}

// CompleteSetup sets the password (the portal's rule, with the member's
// email), checks a first code of the secret, spends the link and signs in.
// It returns the recovery codes (shown once). Errors: ErrLinkNotFound, a
// rules field error, ErrInvalidCode.
func (s *Service) CompleteSetup(ctx context.Context, token, password, code, ip string) (Opened, []string, error) {
	now := s.Now()
	r, err := s.setupLink(ctx, s.DB, token, now)
	if err != nil {
		return Opened{}, nil, err
	}
	normalized, err := rules.Password(password, r.Email)
	if err != nil {
		return Opened{}, nil, err
	}
	secret, err := s.keys.open(r.ID, r.sealed)
	if err != nil {
		return Opened{}, nil, err
	}
	st, ok := matchStep(secret, code, s.totpNow(), r.lastStep)
	if !ok {
		return Opened{}, nil, ErrInvalidCode
	}
	hash, err := s.Hasher.Hash(ctx, normalized)
	if err != nil {
		return Opened{}, nil, err
	}
	recovery := make([]string, RecoveryCodes)
	for i := range recovery {
		if recovery[i], err = newRecoveryCode(); err != nil {
			return Opened{}, nil, err
		}
	}
	var opened Opened
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.Exec(ctx, "UPDATE staff_setup_links SET used_at = ? WHERE token_hash = ? AND used_at = 0", now.UnixMilli(), codes.TokenHash(token))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return errors.Join(ErrLinkNotFound, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE staff_accounts SET password_hash = ?, enrolled_at = ?, totp_last_step = ?,
			failed_attempts = 0, locked_until = 0, updated_at = ? WHERE id = ?`, hash, now.UnixMilli(), st, now.UnixMilli(), r.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM staff_recovery_codes WHERE staff_id = ?", r.ID); err != nil {
			return err
		}
		for _, c := range recovery {
			if _, err := tx.Exec(ctx, "INSERT INTO staff_recovery_codes (staff_id, code_hash) VALUES (?, ?)",
				r.ID, s.recoveryHash(r.ID, c)); err != nil {
				return err
			}
		}
		if opened.Token, err = openSession(ctx, tx, r.ID, "", now, true); err != nil {
			return err
		}
		opened.Principal = r.Principal(time.UnixMilli(now.UnixMilli()).UTC())
		return audit.Record(ctx, tx, audit.Event{At: now, Brand: AuditBrand, AccountID: r.ID, IP: ip, Event: audit.StaffSetup,
			Outcome: "ok", Actor: "staff:" + r.ID})
	})
	if err != nil {
		return Opened{}, nil, err
	}
	return opened, recovery, nil
}

// SignIn checks the password and opens a pending session (the second
// factor follows), replacing oldToken's. Unknown, wrong, not set up,
// locked or disabled: ErrInvalidCredentials alike, after the same hash work.
func (s *Service) SignIn(ctx context.Context, email, password, oldToken, ip string) (string, error) {
	email = strings.ToLower(email)
	if err := s.allowAttempt(ctx, audit.Event{At: s.Now(), Brand: AuditBrand, IP: ip, Event: audit.StaffSignIn}); err != nil {
		return "", err
	}
	r, err := s.byEmail(ctx, s.DB, email)
	if err != nil && !errors.Is(err, ErrUnknown) {
		return "", err
	}
	known := err == nil
	match, _, err := s.Hasher.Verify(ctx, password, r.hash) // "" (unknown, not set up): the dummy hash
	if err != nil && !errors.Is(err, account.ErrMalformedHash) {
		return "", err
	}
	now := s.Now()
	e := audit.Event{At: now, Brand: AuditBrand, AccountID: r.ID, IP: ip, Event: audit.StaffSignIn}
	switch {
	case !known:
		e.Outcome = "unknown"
	case r.Disabled:
		e.Outcome = "disabled"
	case !r.Enrolled:
		e.Outcome = "not_set_up"
	case now.Before(r.LockedUntil):
		e.Outcome = "locked"
	case !match:
		e.Outcome = "wrong_password"
	}
	if e.Outcome != "" {
		if e.Outcome == "wrong_password" {
			e.Actor = "staff:" + r.ID
			if err := s.fail(ctx, r.ID, e); err != nil {
				return "", err
			}
		} else if err := audit.Record(ctx, s.DB, e); err != nil {
			return "", err
		}
		return "", ErrInvalidCredentials
	}
	var token string
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if token, err = openSession(ctx, tx, r.ID, oldToken, now, false); err != nil {
			return err
		}
		e.Outcome, e.Detail, e.Actor = "password_ok", "pending_totp", "staff:"+r.ID
		return audit.Record(ctx, tx, e)
	})
	return token, err
}

// fail records a failed attempt (wrong password or code, a replayed code
// included) and its audit row; the MaxFailures-th locks the member for
// LockDuration. The count is one atomic increment, so that failures at
// the same time (seven requests replaying one used code) each count: a
// read then a write would let them overwrite each other's.
func (s *Service) fail(ctx context.Context, staffID string, e audit.Event) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, "UPDATE staff_accounts SET failed_attempts = failed_attempts + 1, updated_at = ? WHERE id = ? RETURNING failed_attempts",
			e.At.UnixMilli(), staffID).Scan(&n); err != nil {
			return err
		}
		locked := n >= MaxFailures
		if locked {
			if _, err := tx.Exec(ctx, "UPDATE staff_accounts SET failed_attempts = 0, locked_until = ? WHERE id = ?",
				e.At.Add(LockDuration).UnixMilli(), staffID); err != nil {
				return err
			}
		}
		if err := audit.Record(ctx, tx, e); err != nil {
			return err
		}
		if locked {
			l := e
			l.Event, l.Outcome, l.Detail = audit.StaffLock, "locked", ""
			return audit.Record(ctx, tx, l)
		}
		return nil
	})
}

// Factor proves the second factor of a pending session: a TOTP code or a
// recovery code (single use). The pending session is replaced by a signed-
// in one with a new id. Errors: ErrNoSession, ErrInvalidCode.
func (s *Service) Factor(ctx context.Context, token, code, recoveryCode, ip string) (Opened, error) {
	sess, r, err := s.session(ctx, token)
	if err != nil {
		return Opened{}, err
	}
	if !sess.pending {
		return Opened{}, ErrNoSession
	}
	now := s.Now()
	e := audit.Event{At: now, Brand: AuditBrand, AccountID: r.ID, IP: ip, Event: audit.StaffSignIn, Actor: "staff:" + r.ID}
	if err := s.allowAttempt(ctx, e); err != nil {
		return Opened{}, err
	}
	var opened Opened
	ok := false
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if ok, err = s.prove(ctx, tx, r, code, recoveryCode, now); err != nil || !ok {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE staff_accounts SET failed_attempts = 0, updated_at = ? WHERE id = ?", now.UnixMilli(), r.ID); err != nil {
			return err
		}
		if opened.Token, err = openSession(ctx, tx, r.ID, token, now, true); err != nil {
			return err
		}
		opened.Principal = r.Principal(time.UnixMilli(now.UnixMilli()).UTC())
		e.Outcome, e.Detail = "ok", factorKind(code)
		return audit.Record(ctx, tx, e)
	})
	if err != nil {
		return Opened{}, err
	}
	if !ok {
		e.Outcome, e.Detail = "wrong_code", factorKind(code)
		if err := s.fail(ctx, r.ID, e); err != nil {
			return Opened{}, err
		}
		return Opened{}, ErrInvalidCode
	}
	return opened, nil
}

func factorKind(code string) string {
	if code != "" {
		return "totp"
	}
	return "recovery_code"
}

// prove checks a code in tx and spends it: the TOTP step (later than the
// last accepted one) or the recovery code. A locked member proves nothing.
func (s *Service) prove(ctx context.Context, tx *store.Tx, r row, code, recoveryCode string, now time.Time) (bool, error) {
	if now.Before(r.LockedUntil) {
		return false, nil
	}
	if code != "" {
		secret, err := s.keys.open(r.ID, r.sealed)
		if err != nil {
			return false, err
		}
		st, ok := matchStep(secret, code, s.totpNow(), r.lastStep)
		if !ok {
			return false, nil
		}
		// Conditional: two requests with the same code, only one passes.
		res, err := tx.Exec(ctx, "UPDATE staff_accounts SET totp_last_step = ? WHERE id = ? AND totp_last_step < ?", st, r.ID, st)
		if err != nil {
			return false, err
		}
		n, err := res.RowsAffected()
		return n == 1, err
	}
	c := normalizeRecoveryCode(recoveryCode)
	if c == "" {
		return false, nil
	}
	res, err := tx.Exec(ctx, "UPDATE staff_recovery_codes SET used_at = ? WHERE staff_id = ? AND code_hash = ? AND used_at = 0",
		now.UnixMilli(), r.ID, s.recoveryHash(r.ID, c))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Reauth proves a fresh TOTP code on a signed-in session: its factor time
// becomes now. Errors: ErrNoSession, ErrInvalidCode.
func (s *Service) Reauth(ctx context.Context, token, code, ip string) (Principal, error) {
	sess, r, err := s.session(ctx, token)
	if err != nil {
		return Principal{}, err
	}
	if sess.pending {
		return Principal{}, ErrNoSession
	}
	now := s.Now()
	e := audit.Event{At: now, Brand: AuditBrand, AccountID: r.ID, IP: ip, Event: audit.StaffReauth, Actor: "staff:" + r.ID, Detail: "totp"}
	ok := false
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if ok, err = s.prove(ctx, tx, r, code, "", now); err != nil || !ok {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE staff_sessions SET factor_at = ?, last_seen_at = ? WHERE id_hash = ?", now.UnixMilli(), now.UnixMilli(), codes.TokenHash(token)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE staff_accounts SET failed_attempts = 0, updated_at = ? WHERE id = ?", now.UnixMilli(), r.ID); err != nil {
			return err
		}
		e.Outcome = "ok"
		return audit.Record(ctx, tx, e)
	})
	if err != nil {
		return Principal{}, err
	}
	if !ok {
		e.Outcome = "wrong_code"
		if err := s.fail(ctx, r.ID, e); err != nil {
			return Principal{}, err
		}
		return Principal{}, ErrInvalidCode
	}
	return r.Principal(time.UnixMilli(now.UnixMilli()).UTC()), nil
}

// Lookup returns the signed-in staff member of a session token (not a
// pending one), or ErrNoSession.
func (s *Service) Lookup(ctx context.Context, token string) (Principal, error) {
	return s.signedIn(ctx, token, true)
}

// Check is Lookup without counting as activity: an open chat socket
// re-checks its session (signed out, expired, idle, account disabled) with
// it and does not keep the session alive by doing so.
func (s *Service) Check(ctx context.Context, token string) (Principal, error) {
	return s.signedIn(ctx, token, false)
}

// signedIn is the staff member of a signed-in session (sessionOf, touch
// as it says), or ErrNoSession for a pending one.
func (s *Service) signedIn(ctx context.Context, token string, touch bool) (Principal, error) {
	sess, r, err := s.sessionOf(ctx, token, touch)
	if err != nil {
		return Principal{}, err
	}
	if sess.pending {
		return Principal{}, ErrNoSession
	}
	p := r.Principal(sess.factorAt)
	p.Session = codes.TokenHash(token)
	return p, nil
}

// SignOut revokes a session (no error when there is none).
func (s *Service) SignOut(ctx context.Context, token, ip string) error {
	if token == "" || len(token) > 128 {
		return nil
	}
	var staffID string
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		staffID = ""
		err := tx.QueryRow(ctx, "SELECT staff_id FROM staff_sessions WHERE id_hash = ? AND revoked_at = 0", codes.TokenHash(token)).Scan(&staffID)
		if errors.Is(store.NotFound(err), store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE staff_sessions SET revoked_at = ? WHERE id_hash = ?", now.UnixMilli(), codes.TokenHash(token)); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{At: now, Brand: AuditBrand, AccountID: staffID, IP: ip, Event: audit.StaffSignOut,
			Outcome: "ok", Actor: "staff:" + staffID})
	})
	if err == nil {
		s.ended(ctx, staffID)
	}
	return err
}

// Prune deletes ended sessions and dead set-up links (the janitor).
func (s *Service) Prune(ctx context.Context) (int64, error) {
	now := s.Now()
	var n int64
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.Exec(ctx, "DELETE FROM staff_sessions WHERE expires_at <= ? OR last_seen_at <= ? OR revoked_at != 0",
			now.UnixMilli(), now.Add(-IdleTimeout).UnixMilli())
		if err != nil {
			return err
		}
		a, _ := res.RowsAffected()
		res, err = tx.Exec(ctx, "DELETE FROM staff_setup_links WHERE expires_at <= ?", now.Add(-SetupLinkTTL).UnixMilli())
		if err != nil {
			return err
		}
		b, _ := res.RowsAffected()
		n = a + b
		return nil
	})
	return n, err
}

// printable: valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func randomToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// recoveryAlphabet: lower-case letters and digits without 0/o, 1/l/i.
const recoveryAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// newRecoveryCode is 12 characters (~59 bits) shown as xxxx-xxxx-xxxx.
func newRecoveryCode() (string, error) {
	var b [12]byte
	out := make([]byte, 0, 14)
	for i := 0; i < 12; {
		if _, err := rand.Read(b[:1]); err != nil {
			return "", err
		}
		if int(b[0]) >= 256/len(recoveryAlphabet)*len(recoveryAlphabet) {
			continue
		}
		if i == 4 || i == 8 {
			out = append(out, '-')
		}
		out = append(out, recoveryAlphabet[int(b[0])%len(recoveryAlphabet)])
		i++
	}
	return string(out), nil
}

// normalizeRecoveryCode drops dashes and spaces and lower-cases; "" for
// anything that cannot be a recovery code.
func normalizeRecoveryCode(s string) string {
	var out []byte
	for _, c := range []byte(strings.ToLower(s)) {
		switch {
		case c == '-' || c == ' ':
		case strings.IndexByte(recoveryAlphabet, c) >= 0:
			out = append(out, c)
		default:
			return ""
		}
	}
	if len(out) != 12 {
		return ""
	}
	return string(out)
}

func (s *Service) recoveryHash(staffID, code string) string {
	return codes.HMAC(s.keys.recovery, staffID, normalizeRecoveryCode(code))
}
