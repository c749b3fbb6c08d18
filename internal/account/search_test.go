package account_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"guichet/internal/account"
	"guichet/internal/store/storetest"
)

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
