package account_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/brand"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
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

// TestPrefixRange: the range holds exactly the strings that start with the
// prefix, in byte order, up to the last code points.
func TestPrefixRange(t *testing.T) {
	for _, c := range []struct {
		p, to   string
		bounded bool
	}{
		{"sam_", "sam`", true}, {"%", "&", true}, {"zoé", "zoê", true}, {"a\uD7FF", "a\uE000", true},
		{"ab\U0010FFFF", "ac", true}, {"\U0010FFFF", "", false}, {"", "", false},
	} {
		from, to, bounded := account.PrefixRange(c.p)
		if from != c.p || to != c.to || bounded != c.bounded {
			t.Errorf("PrefixRange(%q) = %q, %q, %v; want %q, %v", c.p, from, to, bounded, c.to, c.bounded)
		}
		for _, s := range []string{c.p, c.p + "x", c.p + "\U0010FFFF"} {
			if s < from || bounded && s >= to {
				t.Errorf("%q, which starts with %q, is outside [%q, %q)", s, c.p, from, to)
			}
		}
	}
}

// TestStaffSearchFromIndexes: each kind of match of a console search reads
// its own index, with every brand and with some, on both databases (issue
// 34: the search read every account of its brands), and a prefix many
// accounts match still answers the first by email, at most the limit.
func TestStaffSearchFromIndexes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, brands := range [][]string{nil, {"belair", "intact"}} {
			q, args := account.StaffSearchQuery(e.DB.Dialect, account.StaffSearch{Prefix: "Ma", Phone: "4165550123", Brands: brands, Limit: 50})
			plan := storetest.Plan(t, e.DB, q, args...)
			for _, index := range []string{"accounts_search_email", "accounts_search_first", "accounts_search_last", "accounts_search_full", "accounts_search_phone"} {
				if !strings.Contains(plan, index) {
					t.Errorf("brands %v: the search does not read %s:\n%s", brands, index, plan)
				}
			}
			if strings.Contains(plan, "SCAN accounts") || strings.Contains(plan, "Seq Scan") {
				t.Errorf("brands %v: the search scans the accounts:\n%s", brands, plan)
			}
			// A kind's rows come in its index's order: no sort between the
			// index and the kind's limit (the candidates, at most the limit of
			// each kind, are sorted afterwards).
			lines := strings.Split(plan, "\n")
			for i, line := range lines[:len(lines)-1] {
				if strings.Contains(line, "USING INDEX accounts_search_") && strings.Contains(lines[i+1], "TEMP B-TREE") ||
					strings.Contains(line, "->  Limit") && strings.Contains(lines[i+1], "Sort") {
					t.Errorf("brands %v: a kind of match is sorted before its limit:\n%s", brands, plan)
				}
			}
		}
		holders := storetest.Plan(t, e.DB, "SELECT p.id FROM policies p WHERE p.number = ?", "BEL1234")
		if !strings.Contains(holders, "policies_number") {
			t.Errorf("a policy number is not looked up by index:\n%s", holders)
		}

		var want []string
		for i := range 12 {
			email := fmt.Sprintf("ma%02d@example.com", 11-i)
			e.create(belair, email, nil, "")
			want = append(want, strings.ToLower(email))
		}
		slices.Sort(want)
		found, err := account.SearchForStaff(t.Context(), e.DB, account.StaffSearch{Prefix: "MA", Brands: []string{"belair"}, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range found {
			got = append(got, a.Email)
		}
		if !slices.Equal(got, want[:5]) {
			t.Fatalf("a search that 12 accounts match answered %v, want the first 5 by email %v", got, want[:5])
		}
		if found, _ := account.SearchForStaff(t.Context(), e.DB, account.StaffSearch{Prefix: "MA", Brands: []string{"intact"}, Limit: 5}); len(found) != 0 {
			t.Fatalf("another brand's search found %d", len(found))
		}
	})
}
