package policy_test

import (
	"errors"
	"testing"
	"time"

	"guichet/internal/policy"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

func TestNormalizeNumber(t *testing.T) {
	cases := map[string]string{"abc-1234": "ABC1234", " ABC 1234 ": "ABC1234", "123456789": "123456789", "": ""}
	for in, want := range cases {
		if got := policy.NormalizeNumber(in); got != want {
			t.Errorf("NormalizeNumber(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCreateLinkAndList(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		now := time.Now()
		if _, err := db.Exec(ctx, `INSERT INTO accounts (id, brand, email, email_normalized, created_at, updated_at)
			VALUES ('acc1', 'belair', 'a@example.com', 'a@example.com', 0, 0)`); err != nil {
			t.Fatal(err)
		}
		var home policy.Policy
		cases := []struct {
			name    string
			p       policy.Policy
			wantErr func(error) bool
		}{
			{"home", policy.Policy{Brand: "belair", Number: "abc-1234", Kind: policy.Home, Province: "QC"}, nil},
			{"auto", policy.Policy{Brand: "belair", Number: "XYZ9876", Kind: policy.Auto, Province: "on"}, nil},
			{"same number, other brand", policy.Policy{Brand: "intact", Number: "ABC1234", Kind: policy.Home, Province: "qc"}, nil},
			{"same number, same brand", policy.Policy{Brand: "belair", Number: "ABC-1234", Kind: policy.Auto, Province: "qc"}, store.IsUniqueViolation},
			{"unknown kind", policy.Policy{Brand: "belair", Number: "AAA1111", Kind: "boat", Province: "qc"}, func(err error) bool { return errors.Is(err, policy.ErrInvalid) }},
			{"no number", policy.Policy{Brand: "belair", Number: "-", Kind: policy.Home, Province: "qc"}, func(err error) bool { return errors.Is(err, policy.ErrInvalid) }},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				err := db.InTx(ctx, func(tx *store.Tx) error {
					p, err := policy.Create(ctx, tx, c.p, now)
					if err != nil {
						return err
					}
					if c.name == "home" {
						home = p
					}
					if p.Brand == "belair" {
						return policy.Link(ctx, tx, "acc1", p.ID, policy.Holder)
					}
					return nil
				})
				if c.wantErr == nil && err != nil || c.wantErr != nil && !c.wantErr(err) {
					t.Fatalf("err %v", err)
				}
			})
		}
		err := db.InTx(ctx, func(tx *store.Tx) error {
			if err := policy.Link(ctx, tx, "acc1", home.ID, policy.Driver); err != nil { // linked twice: the first role stays
				return err
			}
			if err := policy.Link(ctx, tx, "acc1", home.ID, "owner"); !errors.Is(err, policy.ErrInvalid) {
				t.Fatalf("unknown role: %v", err)
			}
			got, err := policy.ByNumber(ctx, tx, "belair", "abc1234")
			if err != nil || got.ID != home.ID || got.Province != "qc" {
				t.Fatalf("ByNumber = %+v, %v", got, err)
			}
			if _, err := policy.ByNumber(ctx, tx, "belair", "NOPE123"); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("ByNumber of an unknown number: %v", err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		list, err := policy.ForAccount(ctx, db, "acc1")
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].Number != "ABC1234" || list[0].Role != policy.Holder || list[1].Kind != policy.Auto {
			t.Fatalf("ForAccount = %+v", list)
		}
		if none, err := policy.ForAccount(ctx, db, "nobody"); err != nil || none == nil || len(none) != 0 {
			t.Fatalf("ForAccount of nobody = %#v, %v (want an empty list)", none, err)
		}
	})
}
