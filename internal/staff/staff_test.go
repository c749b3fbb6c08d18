package staff

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/api"
	"guichet/internal/audit"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
	"guichet/internal/throttle"
)

// TestRFC6238Vectors checks HOTP/TOTP against RFC 6238 appendix B (SHA-1,
// 8 digits, the ASCII secret "12345678901234567890").
func TestRFC6238Vectors(t *testing.T) {
	secret := []byte("12345678901234567890")
	for _, v := range []struct {
		unix int64
		want string
	}{
		{59, "94287082"}, {1111111109, "07081804"}, {1111111111, "14050471"},
		{1234567890, "89005924"}, {2000000000, "69279037"}, {20000000000, "65353130"},
	} {
		if got := hotp(secret, uint64(stepOf(time.Unix(v.unix, 0))), 8); got != v.want {
			t.Errorf("T=%d: %s, want %s", v.unix, got, v.want)
		}
	}
	// The 6-digit code is the 8-digit one's last six.
	if got := TOTP(secret, time.Unix(59, 0)); got != "287082" {
		t.Errorf("6 digits at 59: %s", got)
	}
}

// TestMatchStepWindow: one step early or late is accepted, two are not, and
// a step no later than the last accepted one is refused (replay).
func TestMatchStepWindow(t *testing.T) {
	secret := []byte("12345678901234567890")
	now := time.Unix(1_700_000_015, 0)
	cur := stepOf(now)
	for d, want := range map[int64]bool{-2: false, -1: true, 0: true, 1: true, 2: false} {
		code := hotp(secret, uint64(cur+d), Digits)
		st, ok := matchStep(secret, code, now, 0)
		if ok != want || ok && st != cur+d {
			t.Errorf("step %+d: %d %v, want %v", d, st, ok, want)
		}
	}
	code := TOTP(secret, now)
	if _, ok := matchStep(secret, code, now, cur); ok {
		t.Error("the last accepted step was accepted again")
	}
	if _, ok := matchStep(secret, hotp(secret, uint64(cur-1), Digits), now, cur); ok {
		t.Error("an older step than the last accepted one was accepted")
	}
	for _, bad := range []string{"", "12345", "1234567", "abcdef"} {
		if _, ok := matchStep(secret, bad, now, 0); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRecoveryCodeShape(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		c, err := newRecoveryCode()
		if err != nil {
			t.Fatal(err)
		}
		if len(c) != 14 || c[4] != '-' || c[9] != '-' || normalizeRecoveryCode(c) == "" || seen[c] {
			t.Fatalf("code %q", c)
		}
		seen[c] = true
	}
	if normalizeRecoveryCode("ABCD EFGH JKMN") != "abcdefghjkmn" || normalizeRecoveryCode("abcd-efgh-jkm0") != "" {
		t.Error("normalization")
	}
}

// fixture is a service on a database with a member set up at clock's time.
type fixture struct {
	s      *Service
	clock  *testclock.Clock
	m      Member
	secret []byte
	codes  []string
}

const password = "Console-Pass-2026!"

func newFixture(t *testing.T, db *store.DB) *fixture {
	t.Helper()
	ctx := t.Context()
	clock := testclock.New()
	s, err := New(ctx, db, accounttest.Hasher(), clock.Now, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, token, err := s.Add(ctx, NewMember{Email: "Pat@Example.com", Name: "Pat", Role: RoleSupervisor}, "cli")
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Setup(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	_, codes, err := s.CompleteSetup(ctx, token, password, TOTP(info.Secret, clock.Now()), "")
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{s: s, clock: clock, m: m, secret: info.Secret, codes: codes}
}

// signIn signs in with the password and the next step's code.
func (f *fixture) signIn(t *testing.T) string {
	t.Helper()
	ctx := t.Context()
	pending, err := f.s.SignIn(ctx, f.m.Email, password, "", "")
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(Period)
	opened, err := f.s.Factor(ctx, pending, TOTP(f.secret, f.clock.Now()), "", "")
	if err != nil {
		t.Fatal(err)
	}
	return opened.Token
}

// TestSessionTimeouts: idle 15 minutes, absolute 8 hours, on the clock.
func TestSessionTimeouts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		f := newFixture(t, db)
		tok := f.signIn(t)
		// Used every 14 minutes it lives, until 8 hours after sign-in.
		start := f.clock.Now()
		for f.clock.Now().Sub(start) < AbsoluteTimeout-14*time.Minute {
			f.clock.Advance(14 * time.Minute)
			if _, err := f.s.Lookup(ctx, tok); err != nil {
				t.Fatalf("at %v: %v", f.clock.Now().Sub(start), err)
			}
		}
		f.clock.Advance(start.Add(AbsoluteTimeout).Sub(f.clock.Now()))
		if _, err := f.s.Lookup(ctx, tok); !errors.Is(err, ErrNoSession) {
			t.Fatalf("at 8 h: %v", err)
		}
		tok = f.signIn(t)
		f.clock.Advance(IdleTimeout - time.Millisecond)
		if _, err := f.s.Lookup(ctx, tok); err != nil {
			t.Fatalf("idle just under 15 min: %v", err)
		}
		f.clock.Advance(IdleTimeout)
		if _, err := f.s.Lookup(ctx, tok); !errors.Is(err, ErrNoSession) {
			t.Fatalf("idle 15 min: %v", err)
		}
		if n, err := f.s.Prune(ctx); err != nil || n < 2 {
			t.Fatalf("prune: %d %v", n, err)
		}
	})
}

// TestFreshFactorAndReauth: the factor ages; reauth with a new code makes it
// fresh, a replayed code does not.
func TestFreshFactorAndReauth(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		f := newFixture(t, db)
		tok := f.signIn(t)
		used := TOTP(f.secret, f.clock.Now())
		f.clock.Advance(10 * time.Minute)
		p, _ := f.s.Lookup(ctx, tok)
		if !p.FactorFresh(f.clock.Now()) {
			t.Fatal("not fresh at 10 min")
		}
		f.clock.Advance(6 * time.Minute)
		p, _ = f.s.Lookup(ctx, tok)
		if p.FactorFresh(f.clock.Now()) {
			t.Fatal("fresh at 16 min")
		}
		if _, err := f.s.Reauth(ctx, tok, used, ""); !errors.Is(err, ErrInvalidCode) {
			t.Fatalf("old code: %v", err)
		}
		p, err := f.s.Reauth(ctx, tok, TOTP(f.secret, f.clock.Now()), "")
		if err != nil || !p.FactorFresh(f.clock.Now()) {
			t.Fatalf("reauth: %v %v", p, err)
		}
		if p, _ = f.s.Lookup(ctx, tok); !p.FactorAt.Equal(f.clock.Now()) {
			t.Fatalf("factorAt %v, want %v", p.FactorAt, f.clock.Now())
		}
		if _, err := f.s.Reauth(ctx, tok, TOTP(f.secret, f.clock.Now()), ""); !errors.Is(err, ErrInvalidCode) {
			t.Fatalf("the same code twice: %v", err)
		}
	})
}

// TestRecoveryCodesSingleUse: each recovery code signs in once.
func TestRecoveryCodesSingleUse(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		f := newFixture(t, db)
		if len(f.codes) != RecoveryCodes {
			t.Fatalf("%d codes", len(f.codes))
		}
		for i, want := range []error{nil, ErrInvalidCode} {
			pending, err := f.s.SignIn(ctx, f.m.Email, password, "", "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.s.Factor(ctx, pending, "", f.codes[0], ""); !errors.Is(err, want) {
				t.Fatalf("use %d: %v, want %v", i+1, err, want)
			}
		}
		pending, _ := f.s.SignIn(ctx, f.m.Email, password, "", "")
		if _, err := f.s.Factor(ctx, pending, "", "ABCD EFGH JKMN", ""); !errors.Is(err, ErrInvalidCode) {
			t.Fatalf("a made-up code: %v", err)
		}
		// Typed with other case and spaces, the second code works.
		pending, _ = f.s.SignIn(ctx, f.m.Email, password, "", "")
		if _, err := f.s.Factor(ctx, pending, "", " "+toUpper(f.codes[1])+" ", ""); err != nil {
			t.Fatalf("second code: %v", err)
		}
	})
}

func toUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

// TestLockout: 5 wrong passwords or codes lock for 15 minutes (the right
// password refused alike); then it works again.
func TestLockout(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		f := newFixture(t, db)
		for range 3 {
			if _, err := f.s.SignIn(ctx, f.m.Email, "Wrong-Pass-2026!", "", ""); !errors.Is(err, ErrInvalidCredentials) {
				t.Fatal(err)
			}
		}
		pending, err := f.s.SignIn(ctx, f.m.Email, password, "", "")
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // wrong codes count too: the 5th failure locks
			if _, err := f.s.Factor(ctx, pending, "000000", "", ""); !errors.Is(err, ErrInvalidCode) {
				t.Fatal(err)
			}
		}
		f.clock.Advance(Period)
		if _, err := f.s.Factor(ctx, pending, TOTP(f.secret, f.clock.Now()), "", ""); !errors.Is(err, ErrInvalidCode) {
			t.Fatalf("a right code while locked: %v", err)
		}
		if _, err := f.s.SignIn(ctx, f.m.Email, password, "", ""); !errors.Is(err, ErrInvalidCredentials) {
			t.Fatalf("the right password while locked: %v", err)
		}
		var locks int
		_ = db.QueryRow(ctx, "SELECT COUNT(*) FROM audit_events WHERE account_id = ? AND event = ?", f.m.ID, audit.StaffLock).Scan(&locks)
		if locks != 1 {
			t.Fatalf("%d lock audit rows", locks)
		}
		f.clock.Advance(LockDuration)
		if tok := f.signIn(t); tok == "" {
			t.Fatal("no session after the lock")
		}
	})
}

// TestSetupLink: 24 hours, single use, not for a disabled member.
func TestSetupLink(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		f := newFixture(t, db)
		_, token, err := f.s.Add(ctx, NewMember{Email: "late@example.com", Name: "Late", Role: RoleAgent, Brands: []string{"belair"}}, "cli")
		if err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(SetupLinkTTL - time.Second)
		info, err := f.s.Setup(ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := f.s.Setup(ctx, token)
		if EncodeSecret(again.Secret) != EncodeSecret(info.Secret) {
			t.Fatal("the secret changed between two reads of the link")
		}
		f.clock.Advance(time.Second)
		if _, err := f.s.Setup(ctx, token); !errors.Is(err, ErrLinkNotFound) {
			t.Fatalf("at 24 h: %v", err)
		}
		if _, _, err := f.s.CompleteSetup(ctx, token, password, TOTP(info.Secret, f.clock.Now()), ""); !errors.Is(err, ErrLinkNotFound) {
			t.Fatalf("complete at 24 h: %v", err)
		}
		_, token, _ = f.s.Add(ctx, NewMember{Email: "gone@example.com", Name: "Gone", Role: RoleAgent}, "cli")
		if err := f.s.Disable(ctx, "gone@example.com", "cli"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Setup(ctx, token); !errors.Is(err, ErrLinkNotFound) {
			t.Fatalf("disabled member's link: %v", err)
		}
		if _, _, err := f.s.Add(ctx, NewMember{Email: "PAT@example.com", Name: "Pat 2", Role: RoleAgent}, "cli"); !errors.Is(err, ErrExists) {
			t.Fatalf("same email: %v", err)
		}
		for _, bad := range []NewMember{
			{Email: "x@example.com", Name: "X", Role: "root"},
			{Email: "x@example.com", Name: "", Role: RoleAgent},
			{Email: "not an email", Name: "X", Role: RoleAgent},
			{Email: "x@example.com", Name: "X", Role: RoleAgent, Brands: []string{"a,b"}},
		} {
			if _, _, err := f.s.Add(ctx, bad, "cli"); !errors.Is(err, ErrInvalid) {
				t.Errorf("%+v: %v", bad, err)
			}
		}
	})
}

// TestDisableRevokesSessions: a disabled member's sessions end at once.
func TestDisableRevokesSessions(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		f := newFixture(t, db)
		a, b := f.signIn(t), f.signIn(t)
		if err := f.s.Disable(ctx, "pat@example.com", "cli"); err != nil {
			t.Fatal(err)
		}
		for _, tok := range []string{a, b} {
			if _, err := f.s.Lookup(ctx, tok); !errors.Is(err, ErrNoSession) {
				t.Fatalf("after disable: %v", err)
			}
		}
		if err := f.s.Disable(ctx, "nobody@example.com", "cli"); !errors.Is(err, ErrUnknown) {
			t.Fatalf("unknown: %v", err)
		}
	})
}

// TestSecretsSealed: the stored TOTP secret is not the secret, and another
// key cannot open it.
func TestSecretsSealed(t *testing.T) {
	db := storetest.Open(t)
	f := newFixture(t, db)
	var sealed string
	_ = db.QueryRow(t.Context(), "SELECT totp_secret FROM staff_accounts WHERE id = ?", f.m.ID).Scan(&sealed)
	if sealed == "" || sealed == EncodeSecret(f.secret) {
		t.Fatalf("stored %q", sealed)
	}
	other, err := New(t.Context(), db, f.s.Hasher, f.clock.Now, make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.keys.open(f.m.ID, sealed); err == nil {
		t.Fatal("opened with another key")
	}
	if _, err := f.s.keys.open("another-id", sealed); err == nil {
		t.Fatal("opened for another member")
	}
}

// One address may not try passwords on member after member: the per-member
// lockout never fires then, the per-address limit does.
func TestSignInLimitPerAddress(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		f := newFixture(t, db)
		f.s.SignInLimit = throttle.Rule{Scope: "staff.sign_in.ip", Limit: 3, Window: 10 * time.Minute}
		const ip = "203.0.113.7"
		for i := range 3 {
			if _, err := f.s.SignIn(ctx, fmt.Sprintf("member%d@example.com", i), "Wrong-Pass-2026!", "", ip); !errors.Is(err, ErrInvalidCredentials) {
				t.Fatalf("attempt %d: %v", i+1, err)
			}
		}
		_, err := f.s.SignIn(ctx, f.m.Email, password, "", ip)
		if !errors.Is(err, ErrRateLimited) || throttle.RetryAfter(err) <= 0 {
			t.Fatalf("the 4th attempt from one address, right password: %v (wait %v)", err, throttle.RetryAfter(err))
		}
		if got := apiError(err); got.(*api.Error).Status != http.StatusTooManyRequests {
			t.Fatalf("answered %v, want 429", got)
		}
		pending, err := f.s.SignIn(ctx, f.m.Email, password, "", "198.51.100.9")
		if err != nil {
			t.Fatalf("another address: %v", err)
		}
		_, err = f.s.Factor(ctx, pending, TOTP(f.secret, f.clock.Now()), "", ip)
		if !errors.Is(err, ErrRateLimited) {
			t.Fatalf("a code from the limited address: %v", err)
		}
		wait := throttle.RetryAfter(err)
		var refused int
		_ = db.QueryRow(ctx, "SELECT COUNT(*) FROM audit_events WHERE ip = ? AND outcome = 'rate_limited'", ip).Scan(&refused)
		if refused != 2 {
			t.Fatalf("%d rate_limited audit rows, want 2", refused)
		}
		f.clock.Advance(wait) // the Retry-After the refusal gave
		if _, err := f.s.SignIn(ctx, f.m.Email, password, "", ip); err != nil {
			t.Fatalf("after waiting %v as told: %v", wait, err)
		}
	})
}

// TestParallelReplaysCount: seven requests at once, each on a pending
// session of its own, prove the same valid code: one signs in, the six
// replays are six failed attempts (audited wrong_code), which lock the
// member at the fifth; a read-then-write count would lose all but one.
func TestParallelReplaysCount(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		f := newFixture(t, db)
		const n = 7
		pending := make([]string, n)
		for i := range pending {
			p, err := f.s.SignIn(ctx, f.m.Email, password, "", "")
			if err != nil {
				t.Fatal(err)
			}
			pending[i] = p
		}
		f.clock.Advance(Period)
		code := TOTP(f.secret, f.clock.Now())
		errs := make(chan error, n)
		start := make(chan struct{})
		for _, p := range pending {
			go func() {
				<-start
				_, err := f.s.Factor(ctx, p, code, "", "")
				errs <- err
			}()
		}
		close(start)
		ok, refused := 0, 0
		for range n {
			switch err := <-errs; {
			case err == nil:
				ok++
			case errors.Is(err, ErrInvalidCode):
				refused++
			default:
				t.Fatal(err)
			}
		}
		if ok != 1 || refused != n-1 {
			t.Fatalf("%d signed in, %d refused; want 1 and %d", ok, refused, n-1)
		}
		count := func(outcome string) int {
			var c int
			if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM audit_events WHERE account_id = ? AND outcome = ?", f.m.ID, outcome).Scan(&c); err != nil {
				t.Fatal(err)
			}
			return c
		}
		if got := count("wrong_code"); got != n-1 {
			t.Fatalf("%d wrong_code audit rows; want %d", got, n-1)
		}
		if got := count("locked"); got != 1 {
			t.Fatalf("%d lock audit rows; want 1 (the fifth replay)", got)
		}
		var failures int
		var lockedUntil int64
		if err := db.QueryRow(ctx, "SELECT failed_attempts, locked_until FROM staff_accounts WHERE id = ?", f.m.ID).Scan(&failures, &lockedUntil); err != nil {
			t.Fatal(err)
		}
		if failures != n-1-MaxFailures || lockedUntil <= f.clock.Now().UnixMilli() {
			t.Fatalf("failed_attempts %d, locked_until %d; want %d and a lock", failures, lockedUntil, n-1-MaxFailures)
		}
	})
}

// TestSeedDevRunsNoHash: at the production parameters the --dev staff get
// the hash made once (a first --dev start runs no argon2id, issue 34), and
// DevPassword signs them in with it; on other parameters each is hashed.
func TestSeedDevRunsNoHash(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for _, c := range []struct {
			name   string
			hasher *account.Hasher
			known  bool
		}{{"production", account.NewHasher(account.DefaultParams), true}, {"cheap", accounttest.Hasher(), false}} {
			t.Run(c.name, func(t *testing.T) {
				ctx := t.Context()
				if _, err := db.Exec(ctx, `DELETE FROM staff_accounts`); err != nil {
					t.Fatal(err)
				}
				clock := testclock.New()
				c.hasher.WaitBudget = 0 // a slow machine must not refuse the sign-in below
				s, err := New(ctx, db, c.hasher, clock.Now, nil)
				if err != nil {
					t.Fatal(err)
				}
				n, err := s.SeedDev(ctx)
				if err != nil || n != len(DevMembers) {
					t.Fatalf("seeded %d, %v; want %d", n, err, len(DevMembers))
				}
				var known int
				if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM staff_accounts WHERE password_hash = ?`, devPasswordHash).Scan(&known); err != nil {
					t.Fatal(err)
				}
				if want := map[bool]int{true: len(DevMembers), false: 0}[c.known]; known != want {
					t.Fatalf("%d members hold the hash made once, want %d", known, want)
				}
				if _, err := s.SignIn(ctx, DevMembers[0].Email, DevPassword, "", ""); err != nil {
					t.Fatalf("DevPassword does not sign in: %v", err)
				}
				if again, err := s.SeedDev(ctx); err != nil || again != 0 {
					t.Fatalf("seeding again created %d, %v", again, err)
				}
			})
		}
	})
}
