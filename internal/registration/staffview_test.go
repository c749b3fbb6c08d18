package registration_test

import (
	"slices"
	"testing"
	"time"

	"guichet/internal/policy"
	"guichet/internal/registration"
	"guichet/internal/testenv"
)

// TestOpenFor: the open registrations of an email or of people, newest
// first; closed, expired and other brands' ones left out.
func TestOpenFor(t *testing.T) {
	testenv.EachEnv(t, newEnv, func(t *testing.T, e *env) {
		db, now := e.DB, e.Clock.Now() // newEnv imported the policy file
		ctx := t.Context()
		var ids [2]string
		for i, number := range []string{"REG0001", "REG0002"} {
			found, err := policy.People(ctx, db, "belair", number)
			if err != nil || len(found) != 1 {
				t.Fatalf("People(%s) = %v, %v", number, found, err)
			}
			ids[i] = found[0].ID
		}
		alex, zoe := ids[0], ids[1]
		ms := func(d time.Duration) int64 { return now.Add(d).UnixMilli() }
		for _, r := range []struct {
			id, brand, person, email string
			created, expires, closed int64
		}{
			{"by-email", "belair", zoe, "Alex@Example.com", ms(-2 * time.Hour), ms(time.Hour), 0},
			{"by-person", "belair", alex, "", ms(-time.Hour), ms(time.Hour), 0},
			{"closed", "belair", alex, "", ms(-time.Hour), ms(time.Hour), ms(-time.Minute)},
			{"expired", "belair", alex, "", ms(-3 * time.Hour), ms(-time.Minute), 0},
			{"other-brand", "intact", alex, "alex@example.com", ms(-time.Hour), ms(time.Hour), 0},
			{"someone-else", "belair", zoe, "zoe@example.com", ms(-time.Hour), ms(time.Hour), 0},
		} {
			if _, err := db.Exec(ctx, `INSERT INTO registrations (id, brand, person_id, state, options, email, created_at, expires_at, closed_at)
				VALUES (?, ?, ?, 'identified', '[]', ?, ?, ?, ?)`, r.id, r.brand, r.person, r.email, r.created, r.expires, r.closed); err != nil {
				t.Fatal(err)
			}
		}
		open := func(person ...string) []string {
			t.Helper()
			open, err := registration.OpenFor(ctx, db, "belair", "alex@example.com", person, now)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, o := range open {
				if !o.ExpiresAt.Equal(now.Add(time.Hour)) {
					t.Fatalf("%s expires at %v", o.ID, o.ExpiresAt)
				}
				out = append(out, o.ID)
			}
			return out
		}
		if got, want := open(alex), []string{"by-person", "by-email"}; !slices.Equal(got, want) {
			t.Fatalf("OpenFor = %v, want %v", got, want)
		}
		if got, want := open(), []string{"by-email"}; !slices.Equal(got, want) {
			t.Fatalf("OpenFor without people = %v, want %v", got, want)
		}
	})
}
