package policy_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"guichet/config"
	"guichet/internal/account/accounttest"
	"guichet/internal/brand"
	"guichet/internal/policy"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

var importNow = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func brands(t testing.TB) func(string) (*brand.Brand, bool) {
	t.Helper()
	reg, err := brand.LoadFS(config.Brands(), "embedded")
	if err != nil {
		t.Fatal(err)
	}
	return reg.ByID
}

func importer(t testing.TB, db *store.DB) *policy.Importer {
	return &policy.Importer{DB: db, Brands: brands(t), Now: importNow}
}

const header = accounttest.PolicyHeader

const goodFile = header +
	"belair,BEL-1234,auto,qc,holder,Jean-François,Côté,1980-04-12,h2x 1y4,,,jf@example.com,514-555-0123,ABCD1234,false,active\n" +
	"belair,BEL1234,auto,qc,driver,Marie,O'Neil,1990-01-02,H2X1Y4,C1234-123456-12,qc,,5145550124,,true,\n" +
	"intact,123456789,home,on,holder,Sam,Roy,1975-06-30,M5V 2T6,,,,,,,cancelled\n"

func TestImportAddsThenLeavesAlone(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		im := importer(t, db)
		res, err := im.Import(ctx, strings.NewReader(goodFile))
		if err != nil || res.String() != "3 rows: 3 added, 0 updated, 0 unchanged" {
			t.Fatalf("first import = %v, %v", res, err)
		}
		before := storetest.Snapshot(t, db, "policies", "insured_people")
		res, err = im.Import(ctx, strings.NewReader(goodFile))
		if err != nil || res.String() != "3 rows: 0 added, 0 updated, 3 unchanged" {
			t.Fatalf("second import = %v, %v", res, err)
		}
		if after := storetest.Snapshot(t, db, "policies", "insured_people"); after != before {
			t.Fatalf("the same file changed the records:\n%s\n%s", before, after)
		}
		// Columns in another order, one value changed, names typed otherwise.
		changed := "status,ubi,pin,cell_phone,email,licence_province,driver_licence,postal_code,date_of_birth,last_name,first_name,role,province,kind,policy_number,brand\n" +
			"active,false,ABCD1234,5145550123,new@example.com,,,H2X 1Y4,1980-04-12,Côté,Jean-François,holder,qc,auto,BEL1234,belair\n" +
			",true,,5145550124,,qc,C1234-123456-12,H2X1Y4,1990-01-02,O'Neil,Marie,driver,qc,auto,bel-1234,belair\n"
		res, err = im.Import(ctx, strings.NewReader(changed))
		if err != nil || res.String() != "2 rows: 0 added, 1 updated, 1 unchanged" {
			t.Fatalf("changed import = %v, %v", res, err)
		}
		p, err := policy.Find(ctx, db, policy.Match{Brand: "belair", Number: "bel1234", FirstName: "JEAN FRANCOIS",
			LastName: "cote", DateOfBirth: "1980-04-12", PostalCode: "H2X 1Y4"})
		if err != nil || p.Email != "new@example.com" || p.Role != policy.Holder || !p.HasPIN(importNow) || p.CellPhone != "5145550123" {
			t.Fatalf("Find = %+v, %v", p, err)
		}
		// A cancelled policy's people are not found.
		if _, err := policy.Find(ctx, db, policy.Match{Brand: "intact", Number: "123456789", FirstName: "Sam",
			LastName: "Roy", DateOfBirth: "1975-06-30", PostalCode: "M5V 2T6"}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("cancelled policy: %v", err)
		}
	})
}

func TestImportRefusesBadRows(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		bad := header +
			"belair,BEL1234,auto,qc,holder,Jean,Côté,1980-04-12,H2X 1Y4,,,,,,,\n" +
			"nobrand,BEL1234,auto,qc,holder,Jean,Côté,1980-04-12,H2X 1Y4,,,,,,,\n" +
			"belair,BEL12,boat,yk,owner,J,C0té,1980-02-30,123,,,not-an-email,12,ABC,maybe,gone\n" +
			"belair,BEL1234,auto,qc,holder,jean,cote,1980-04-12,H2X 1Y4,,,,,,,\n" +
			"belair,BEL1234,home,qc,driver,Ann,Roy,1980-04-12,H2X 1Y4,,,,,,,\n" +
			"belair,\"BEL1234,auto\n"
		res, err := importer(t, db).Import(ctx, strings.NewReader(bad))
		var problems policy.ImportErrors
		if !errors.As(err, &problems) {
			t.Fatalf("Import = %v, %v; want ImportErrors", res, err)
		}
		got := err.Error()
		for _, want := range []string{
			"line 3: brand: unknown brand",
			"line 4: kind: want home or auto",
			"line 4: province: not a province of brand belair",
			"line 4: role: want holder or driver",
			"line 4: first_name: errorFirstNameLength",
			"line 4: last_name: errorLastNameFormat",
			"line 4: date_of_birth: errorDateOfBirthFormat",
			"line 4: postal_code: errorPostalCodeFormat",
			"line 4: email: errorEmailFormat",
			"line 4: cell_phone: errorPhoneFormat",
			"line 4: pin: errorPinFormat",
			"line 4: ubi: want true or false",
			"line 4: status: want active or cancelled",
			"line 5: first_name: the same person as line 2",
			"line 6: kind: differs from line 2 for the same policy",
			"line 7: row: not RFC 4180",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("errors lack %q:\n%s", want, got)
			}
		}
		if n := count(t, db, "policies") + count(t, db, "insured_people"); n != 0 {
			t.Fatalf("%d rows written by a refused file", n)
		}
		_, err = importer(t, db).Import(ctx, strings.NewReader("brand,policy_number,colour\n"))
		if err == nil || !strings.Contains(err.Error(), "line 1: colour: unknown column") || !strings.Contains(err.Error(), "line 1: kind: missing column") {
			t.Fatalf("bad header: %v", err)
		}
	})
}

func TestImportDryRunWritesNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		im := importer(t, db)
		im.DryRun = true
		res, err := im.Import(t.Context(), strings.NewReader(goodFile))
		if err != nil || res.String() != "3 rows: 3 added, 0 updated, 0 unchanged" {
			t.Fatalf("dry run = %v, %v", res, err)
		}
		if n := count(t, db, "policies") + count(t, db, "insured_people") + count(t, db, "recovery_secrets"); n != 0 {
			t.Fatalf("dry run wrote %d rows", n)
		}
	})
}

func TestNameKey(t *testing.T) {
	same := [][]string{
		{"Jean-François", "jean francois", "JEANFRANCOIS", " Jean – François "},
		{"O'Neil", "O’Neil", "oneil", "O Neil"},
		{"Côté", "COTE", "cote"},
	}
	for _, group := range same {
		for _, s := range group[1:] {
			if policy.NameKey(s) != policy.NameKey(group[0]) {
				t.Errorf("NameKey(%q) = %q, NameKey(%q) = %q", s, policy.NameKey(s), group[0], policy.NameKey(group[0]))
			}
		}
	}
	if policy.NameKey("Côté") == policy.NameKey("Coté-Roy") {
		t.Error("different names share a key")
	}
}

func count(t testing.TB, db *store.DB, table string) int {
	var n int
	if err := db.QueryRow(t.Context(), "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// BenchmarkImport100k imports a file of 100,000 rows (issue 13: under 30 s
// on SQLite; scripts/bench.sh reports it in docs/benchmarks.md).
func BenchmarkImport100k(b *testing.B) {
	file := PolicyFile(100_000)
	for b.Loop() {
		b.StopTimer()
		db := storetest.Open(b)
		b.StartTimer()
		res, err := importer(b, db).Import(b.Context(), strings.NewReader(file))
		if err != nil || res.Added != 100_000 {
			b.Fatal(res, err)
		}
	}
}

// PolicyFile is a valid file of n rows for belair: one auto policy per two
// people (a holder and a driver).
func PolicyFile(n int) string {
	var s strings.Builder
	s.WriteString(header)
	for i := range n {
		role, first := "holder", "Alex"
		if i%2 == 1 {
			role, first = "driver", "Sam"
		}
		fmt.Fprintf(&s, "belair,B%06d,auto,qc,%s,%s,Côté-%s,1980-04-12,H2X 1Y4,,,p%d@example.com,5145550123,ABCD1234,false,active\n",
			i/2, role, first, letters(i), i)
	}
	return s.String()
}

// letters spells n in letters (names hold no digits).
func letters(n int) string {
	s := ""
	for {
		s = string(rune('a'+n%26)) + s
		n /= 26
		if n == 0 {
			return s
		}
	}
}
