package policy_test

import (
	"slices"
	"testing"

	"guichet/internal/account/accounttest"
	"guichet/internal/policy"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

// TestStaffView: the holders of a policy number and an account's people.
func TestStaffView(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		now := importNow
		accounttest.ImportPolicies(t, db, brands(t), now, goodFile)
		for _, id := range []string{"acc1", "acc2"} {
			if _, err := db.Exec(t.Context(), `INSERT INTO accounts (id, brand, email, email_normalized, created_at, updated_at)
				VALUES (?, 'belair', ?, ?, 0, 0)`, id, id+"@example.com", id+"@example.com"); err != nil {
				t.Fatal(err)
			}
		}
		people, err := policy.People(t.Context(), db, "belair", "BEL1234")
		if err != nil || len(people) != 2 {
			t.Fatalf("People = %v, %v", people, err)
		}
		err = db.InTx(t.Context(), func(tx *store.Tx) error {
			for _, p := range people {
				if err := policy.SetAccount(t.Context(), tx, p.ID, "acc1", now); err != nil {
					return err
				}
				if err := policy.Link(t.Context(), tx, "acc1", p.PolicyID, policy.Holder); err != nil {
					return err
				}
			}
			return policy.Link(t.Context(), tx, "acc2", people[0].PolicyID, policy.Driver)
		})
		if err != nil {
			t.Fatal(err)
		}
		holders, err := policy.AccountsHolding(t.Context(), db, "BEL1234")
		if slices.Sort(holders); err != nil || !slices.Equal(holders, []string{"acc1", "acc2"}) {
			t.Fatalf("AccountsHolding = %v, %v", holders, err)
		}
		if none, err := policy.AccountsHolding(t.Context(), db, "BEL9999"); err != nil || len(none) != 0 {
			t.Fatalf("AccountsHolding of no policy = %v, %v", none, err)
		}
		ids, err := policy.PeopleOfAccount(t.Context(), db, "acc1")
		want := []string{people[0].ID, people[1].ID}
		slices.Sort(ids)
		slices.Sort(want)
		if err != nil || !slices.Equal(ids, want) {
			t.Fatalf("PeopleOfAccount = %v, %v; want %v", ids, err, want)
		}
		if none, err := policy.PeopleOfAccount(t.Context(), db, "acc2"); err != nil || len(none) != 0 {
			t.Fatalf("PeopleOfAccount of acc2 = %v, %v", none, err)
		}
	})
}
