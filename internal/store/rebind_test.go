package store

import "testing"

func TestRebind(t *testing.T) {
	cases := []struct{ in, pg string }{
		{"SELECT 1", "SELECT 1"},
		{"a = ? AND b = ?", "a = $1 AND b = $2"},
		{"x = '?' AND y = ?", "x = '?' AND y = $1"},
	}
	for _, c := range cases {
		if got := rebind(Postgres, c.in); got != c.pg {
			t.Errorf("rebind(pg, %q) = %q, want %q", c.in, got, c.pg)
		}
		if got := rebind(SQLite, c.in); got != c.in {
			t.Errorf("rebind(sqlite, %q) = %q", c.in, got)
		}
	}
}

func TestSplitDialects(t *testing.T) {
	m := splitDialects("A;\n-- sqlite:\nB;\n-- postgres:\nC;\n-- all:\nD;\n")
	if got := statements(m[SQLite]); len(got) != 3 || got[1] != "B;" || got[2] != "D;" {
		t.Fatalf("sqlite statements = %q", got)
	}
	if got := statements(m[Postgres]); len(got) != 3 || got[1] != "C;" {
		t.Fatalf("postgres statements = %q", got)
	}
}
