package codes_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"guichet/internal/codes"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
	"guichet/internal/throttle"
)

// TestSlot runs the single-use code check on both databases, on a row of
// reauth_codes (a table of the right shape, written here as a fixture).
func TestSlot(t *testing.T) {
	for _, d := range []struct {
		name string
		open func(testing.TB) *store.DB
	}{{"sqlite", storetest.Open}, {"postgres", storetest.OpenPostgres}} {
		t.Run(d.name, func(t *testing.T) { testSlot(t, d.open(t)) })
	}
}

func testSlot(t *testing.T, db *store.DB) {
	ctx := context.Background()
	// At the start of an hour: the limits' windows are an hour, and a start
	// in an hour's last minute and a half put the expiry's Advance(TTL)
	// past the window's end, where the sliding window let one more guess
	// through (the test failed by the clock of the machine).
	clock := testclock.At(time.Now().UTC().Truncate(time.Hour))
	key := []byte("slot test key")
	// A slot keyed by the session alone, its code never emptied.
	slot := func(session string) codes.Slot {
		return codes.Slot{
			Sends:    "SELECT sends FROM reauth_codes WHERE session_id = ?",
			Count:    "UPDATE reauth_codes SET failures = failures + 1 WHERE session_id = ? AND expires_at > ? AND failures < ? RETURNING code_hmac, failures",
			Exceeded: "SELECT COUNT(*) FROM reauth_codes WHERE session_id = ? AND expires_at > ? AND failures >= ?",
			End:      "UPDATE reauth_codes SET failures = ? WHERE session_id = ?",
			Key:      []any{session},
			Account:  "acct", Limiter: throttle.New(db, clock.Now),
			Limits: codes.Limits{
				CodesPerAccount:   throttle.Rule{Scope: "test.codes", Limit: 6, Window: time.Hour},
				GuessesPerAccount: throttle.Rule{Scope: "test.guesses", Limit: 8, Window: time.Hour},
			},
		}
	}
	store1 := func(session string, sends int, bound ...string) {
		t.Helper()
		if _, err := db.Exec(ctx, `INSERT INTO reauth_codes (session_id, account_id, code_hmac, expires_at, failures, sends)
			VALUES (?, 'acct', ?, ?, 0, ?)`, session, codes.HMAC(key, bound...), clock.Now().Add(codes.TTL).UnixMilli(), sends); err != nil {
			t.Fatal(err)
		}
	}
	try := func(session, code string) error {
		t.Helper()
		var answer error
		err := db.InTx(ctx, func(tx *store.Tx) error {
			var err error
			answer, err = slot(session).Try(ctx, tx, clock.Now(), func() string { return codes.HMAC(key, code) })
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return answer
	}
	maySend := func(session string) error {
		t.Helper()
		return db.InTx(ctx, func(tx *store.Tx) error { return slot(session).MaySend(ctx, tx) })
	}
	check := func(got, want error, what string) {
		t.Helper()
		if !errors.Is(got, want) {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
	}

	check(try("none", "123456"), codes.ErrExpired, "no row")
	check(maySend("none"), nil, "first send")

	// MaxFailures tries end a code: the last wrong one is exceeded, and so
	// is the right one after it.
	store1("a", 1, "123456")
	for i := 1; i < codes.MaxFailures; i++ {
		check(try("a", "000000"), codes.ErrWrong, "wrong try")
	}
	check(try("a", "000000"), codes.ErrExceeded, "last wrong try")
	check(try("a", "123456"), codes.ErrExceeded, "right code after the last try")

	// A right code answers nil (the caller spends it); an expired one is
	// expired, never exceeded.
	store1("b", codes.MaxSends, "654321")
	check(try("b", "654321"), nil, "right code")
	check(maySend("b"), codes.ErrSendLimit, "row sent MaxSends codes")
	// A code bound to a column Count returns is compared once that is read.
	store1("f", 1, "acct", "333333")
	bound := slot("f")
	bound.Count = "UPDATE reauth_codes SET failures = failures + 1 WHERE session_id = ? AND expires_at > ? AND failures < ? RETURNING code_hmac, failures, account_id"
	var account string
	err := db.InTx(ctx, func(tx *store.Tx) error {
		answer, err := bound.Try(ctx, tx, clock.Now(), func() string { return codes.HMAC(key, account, "333333") }, &account)
		if err == nil && (answer != nil || account != "acct") {
			return fmt.Errorf("bound code: %v, account %q", answer, account)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	store1("c", 1, "111111")
	clock.Advance(codes.TTL)
	check(try("c", "111111"), codes.ErrExpired, "expired code")

	// The account's guesses run out across its rows (5 + 1 + 1 counted so
	// far, 8 allowed; a try no live code took is not counted): the try over
	// the limit ends the code, right or wrong.
	store1("d", 1, "222222")
	check(try("d", "000000"), codes.ErrWrong, "eighth guess")
	check(try("d", "222222"), codes.ErrExceeded, "ninth guess, over the account's limit")
	check(try("d", "222222"), codes.ErrExceeded, "the code ended")

	// The account's sends: six allowed, one counted above.
	for i := range 5 {
		check(maySend("e"), nil, fmt.Sprint("send ", i+2))
	}
	check(maySend("e"), codes.ErrSendLimit, "seventh send")

	for answer, want := range map[error]string{nil: "ok", codes.ErrWrong: "wrong_code", codes.ErrExceeded: "exceeded", codes.ErrExpired: "expired"} {
		if got := codes.Outcome(answer); got != want {
			t.Errorf("Outcome(%v) = %q, want %q", answer, got, want)
		}
	}
}
