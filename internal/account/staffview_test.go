package account_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/brand"
	"guichet/internal/store"
)

// TestStaffView: what the console reads and changes through account.
func TestStaffView(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		now := e.Clock.Now()
		insert := func(b *brand.Brand, email, first, last, phone string) account.Account {
			t.Helper()
			return e.create(b, email, func(a *account.Account) { a.FirstName, a.LastName, a.Phone = first, last, phone }, "")
		}
		alex := insert(belair, "Alex.Martin@example.com", "Alex", "Martin", "4165550123")
		sam := insert(intact, "sam_roy@example.com", "Sam", "Roy", "6135550199")
		other := insert(belair, "zoe@example.com", "Zoé", "Tremblay", "5145550100")

		if b, err := account.BrandOf(t.Context(), e.DB, sam.ID); err != nil || b != "intact" {
			t.Fatalf("BrandOf = %q, %v", b, err)
		}
		if _, err := account.BrandOf(t.Context(), e.DB, "nobody"); !errors.Is(err, account.ErrNotFound) {
			t.Fatalf("BrandOf of no account = %v", err)
		}

		ids := func(found []account.Account) []string {
			var out []string
			for _, a := range found {
				out = append(out, a.ID)
			}
			return out
		}
		for _, c := range []struct {
			name string
			s    account.StaffSearch
			want []string
		}{
			{"email prefix", account.StaffSearch{Prefix: "ALEX.m"}, []string{alex.ID}},
			{"full name", account.StaffSearch{Prefix: "sam r"}, []string{sam.ID}},
			{"like characters are literal", account.StaffSearch{Prefix: "sam_"}, []string{sam.ID}},
			{"percent matches nothing", account.StaffSearch{Prefix: "%"}, nil},
			{"phone", account.StaffSearch{Prefix: "x", Phone: "5145550100"}, []string{other.ID}},
			{"ids", account.StaffSearch{Prefix: "x", IDs: []string{sam.ID, alex.ID}}, []string{alex.ID, sam.ID}},
			{"brands", account.StaffSearch{Prefix: "x", IDs: []string{sam.ID, alex.ID}, Brands: []string{"intact"}}, []string{sam.ID}},
			{"limit", account.StaffSearch{Prefix: "x", IDs: []string{sam.ID, alex.ID}, Limit: 1}, []string{alex.ID}},
		} {
			t.Run(c.name, func(t *testing.T) {
				if c.s.Limit == 0 {
					c.s.Limit = 50
				}
				found, err := account.SearchForStaff(t.Context(), e.DB, c.s)
				if err != nil || !slices.Equal(ids(found), c.want) {
					t.Fatalf("SearchForStaff = %v, %v; want %v", ids(found), err, c.want)
				}
			})
		}
		if found, _ := account.SearchForStaff(t.Context(), e.DB, account.StaffSearch{Prefix: "alex", Limit: 50}); len(found) != 1 ||
			found[0] != alex {
			t.Fatalf("the account found is not ByID's: %+v, want %+v", found, alex)
		}

		expires := now.Add(time.Hour)
		err := e.DB.InTx(t.Context(), func(tx *store.Tx) error {
			if err := account.SetTemporaryPassword(t.Context(), tx, alex.ID, "temp", expires, now); err != nil {
				return err
			}
			return account.Lock(t.Context(), tx, alex.ID, time.Time{}, now)
		})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := e.DB.Exec(t.Context(), "INSERT INTO login_failures (account_id, at) VALUES (?, ?)", alex.ID, now.UnixMilli()); err != nil {
				t.Fatal(err)
			}
		}
		if f, err := account.StaffFactsOf(t.Context(), e.DB, alex.ID); err != nil || f.FailedAttempts != 2 || !f.TemporaryExpiresAt.Equal(expires) {
			t.Fatalf("StaffFactsOf = %+v, %v", f, err)
		}
		unlock := func(id string) bool {
			t.Helper()
			var changed bool
			if err := e.DB.InTx(t.Context(), func(tx *store.Tx) error {
				var err error
				changed, err = account.Unlock(t.Context(), tx, id, now)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return changed
		}
		if !unlock(alex.ID) {
			t.Fatal("Unlock of a locked account changed nothing")
		}
		if a, _ := account.ByID(t.Context(), e.DB, "belair", alex.ID); a.Status != account.Temporary {
			t.Fatalf("after Unlock the status is %q, want the live temporary password's", a.Status)
		}
		if f, _ := account.StaffFactsOf(t.Context(), e.DB, alex.ID); f.FailedAttempts != 0 {
			t.Fatalf("failed attempts kept: %+v", f)
		}
		if unlock(alex.ID) || unlock(sam.ID) {
			t.Fatal("Unlock of an unlocked account changed something")
		}
	})
}
