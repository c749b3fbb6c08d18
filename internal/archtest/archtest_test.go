// Package archtest holds the architecture tests (issue 29): one owner per table,
// the package map of docs/design.md against the packages on disk, package sizes,
// and who may import the dev seeding and the test harness. It has no code of its
// own; it reads the tree as text and Go syntax.
package archtest

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// root is the repository, two levels above this package.
const root = "../.."

// maxLines is the size past which a package's doc comment must say why (a
// line starting "Size:").
const maxLines = 2000

// readOwners reads table_owners.txt: table → owner directory.
func readOwners(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("table_owners.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	owners := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			t.Fatalf("table_owners.txt:%d: want <table> <owner directory>, got %q", n, line)
		}
		if prev, ok := owners[fields[0]]; ok {
			t.Fatalf("table_owners.txt:%d: %s has two owners (%s, %s)", n, fields[0], prev, fields[1])
		}
		owners[fields[0]] = fields[1]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return owners
}

var (
	createTable = regexp.MustCompile(`(?i)\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)`)
	dropTable   = regexp.MustCompile(`(?i)\bDROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?([a-z_][a-z0-9_]*)`)
	renameTable = regexp.MustCompile(`(?i)\bALTER\s+TABLE\s+([a-z_][a-z0-9_]*)\s+RENAME\s+TO\s+([a-z_][a-z0-9_]*)`)
)

// schemaTables replays the migrations' CREATE, DROP and RENAME of tables in
// order and returns the tables that exist at the end, with schema_migrations
// (created by the migrator in Go).
func schemaTables(t *testing.T) map[string]bool {
	t.Helper()
	dir := filepath.Join(root, "internal/store/migrations")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]bool{"schema_migrations": true}
	for _, e := range entries { // ReadDir sorts by name: NNNN_ order
		if !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, stmt := range strings.Split(string(b), ";") {
			if m := createTable.FindStringSubmatch(stmt); m != nil {
				tables[strings.ToLower(m[1])] = true
			}
			if m := dropTable.FindStringSubmatch(stmt); m != nil {
				delete(tables, strings.ToLower(m[1]))
			}
			if m := renameTable.FindStringSubmatch(stmt); m != nil {
				delete(tables, strings.ToLower(m[1]))
				tables[strings.ToLower(m[2])] = true
			}
		}
	}
	return tables
}

// sqlStatement tells a string literal holding SQL from prose: it starts with a
// statement keyword or holds a clause that only SQL has.
var sqlStatement = regexp.MustCompile(`^\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP)\b|\b(?:FROM|JOIN|INTO|WHERE|SET)\b`)

// routePattern is a route of the table ("DELETE /api/v1/me/sessions/{id}"):
// an HTTP method and a path, not SQL, whatever words the path holds.
var routePattern = regexp.MustCompile(`^(?:GET|HEAD|POST|PUT|PATCH|DELETE) /`)

// tablesNamed returns the tables of known that the SQL in src names: every
// string literal that reads as SQL (upper-case keywords, as the code writes
// them) is searched for each table's name as a whole word, so a comma join or
// a sub-select is found as well as FROM and JOIN. Literals joined with + are
// read as one.
func tablesNamed(t *testing.T, filename string, src []byte, known map[string]bool) []string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), filename, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", filename, err)
	}
	found := map[string]bool{}
	check := func(s string) {
		if !sqlStatement.MatchString(s) || routePattern.MatchString(s) {
			return
		}
		for word := range strings.FieldsFuncSeq(s, func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) {
			if known[word] {
				found[word] = true
			}
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if s, ok := literalSum(n); ok {
				check(s)
				return false
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				if s, err := strconv.Unquote(n.Value); err == nil {
					check(s)
				}
			}
		}
		return true
	})
	names := make([]string, 0, len(found))
	for name := range found {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// literalSum is the text of a + chain, with each operand that is not a string
// literal read as a space (a name or a call between two parts of a query).
func literalSum(e *ast.BinaryExpr) (string, bool) {
	if e.Op != token.ADD {
		return "", false
	}
	var b strings.Builder
	any := false
	var walk func(ast.Expr)
	walk = func(x ast.Expr) {
		switch x := x.(type) {
		case *ast.BinaryExpr:
			if x.Op == token.ADD {
				walk(x.X)
				walk(x.Y)
				return
			}
		case *ast.BasicLit:
			if x.Kind == token.STRING {
				if s, err := strconv.Unquote(x.Value); err == nil {
					b.WriteString(s)
					any = true
					return
				}
			}
		case *ast.ParenExpr:
			walk(x.X)
			return
		}
		b.WriteString(" ")
	}
	walk(e)
	return b.String(), any
}

// goFiles calls fn for every Go file below root's cmd/ and internal/, with its
// directory relative to root.
func goFiles(t *testing.T, fn func(dir, path string, test bool)) {
	t.Helper()
	for _, top := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") {
				return nil
			}
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			fn(filepath.ToSlash(rel), path, strings.HasSuffix(path, "_test.go"))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// testSupport tells a package made for tests (storetest, apitest, fanouttest,
// testenv, testclock): like test files, it may build fixtures in any table.
func testSupport(dir string) bool {
	base := filepath.Base(dir)
	return strings.HasSuffix(base, "test") || strings.HasPrefix(base, "test")
}

// TestTablesHaveOneOwner: every table the migrations leave has one owner in
// table_owners.txt, the file names no other table, and no non-test Go file
// outside a table's owner (test support packages excepted) names it in SQL.
func TestTablesHaveOneOwner(t *testing.T) {
	owners := readOwners(t)
	tables := schemaTables(t)
	for table := range tables {
		if _, ok := owners[table]; !ok {
			t.Errorf("table %s (migrations) has no owner in table_owners.txt", table)
		}
	}
	for table, owner := range owners {
		if !tables[table] {
			t.Errorf("table_owners.txt names %s, which no migration leaves", table)
		}
		if st, err := os.Stat(filepath.Join(root, owner)); err != nil || !st.IsDir() {
			t.Errorf("table_owners.txt: %s's owner %s is not a directory", table, owner)
		}
	}
	perOwner := map[string]int{}
	goFiles(t, func(dir, path string, test bool) {
		if test || testSupport(dir) {
			return
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range tablesNamed(t, path, src, tables) {
			if owners[table] != dir {
				t.Errorf("%s names table %s in SQL; its owner is %s (call the owner's functions)", path, table, owners[table])
			}
		}
	})
	for _, owner := range owners {
		perOwner[owner]++
	}
	t.Logf("%d tables, %d owners", len(owners), len(perOwner))
}

// TestTablesNamedFindsSQL proves the scanner sees what the ownership test
// relies on, and passes prose by.
func TestTablesNamedFindsSQL(t *testing.T) {
	known := map[string]bool{"accounts": true, "policies": true, "audit_events": true}
	cases := []struct {
		src  string
		want []string
	}{
		{"package p\nconst q = `SELECT id FROM accounts WHERE id = ?`", []string{"accounts"}},
		{"package p\nvar q = \"SELECT a.id FROM accounts a, policies p WHERE \" + cond + \" AND p.id = a.id\"", []string{"accounts", "policies"}},
		{"package p\nfunc f() { db.Exec(ctx, \"DELETE FROM \" + \"audit_events WHERE at < ?\") }", []string{"audit_events"}},
		{"package p\nfunc f() { db.Exec(ctx, `UPDATE accounts SET x = (SELECT COUNT(*) FROM policies)`) }", []string{"accounts", "policies"}},
		{"package p\n// accounts and policies in prose\nvar msg = \"no accounts or policies here\"", nil},
		{"package p\nvar msg = \"the policies of the accounts\"", nil},
		{"package p\nvar route = \"DELETE /api/v1/me/sessions/{id}\"", nil},
	}
	for _, c := range cases {
		got := tablesNamed(t, "case.go", []byte(c.src), known)
		if !slices.Equal(got, c.want) {
			t.Errorf("tablesNamed(%q) = %v, want %v", c.src, got, c.want)
		}
	}
}

// shapeEntry is a line of design.md's Shape block naming a folder.
var shapeEntry = regexp.MustCompile(`^(\s*)([a-z0-9_][a-z0-9_./-]*/)(?:\s|$)`)

// documentedPackages reads the folders under internal/ and cmd/ that
// docs/design.md's "## Shape" block names.
func documentedPackages(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs/design.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "## Shape")
	if start < 0 {
		t.Fatal("docs/design.md has no ## Shape section")
	}
	block := text[start:]
	open := strings.Index(block, "```\n")
	if open < 0 {
		t.Fatal("docs/design.md ## Shape has no code block")
	}
	block = block[open+4:]
	block = block[:strings.Index(block, "```")]
	docs := map[string]bool{}
	top := ""
	for _, line := range strings.Split(block, "\n") {
		m := shapeEntry.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := strings.TrimSuffix(m[2], "/")
		if m[1] == "" {
			top = name
			if strings.HasPrefix(name, "cmd/") {
				docs[name] = true
			}
			continue
		}
		if top == "internal" {
			docs["internal/"+name] = true
		}
	}
	return docs
}

// TestDesignPackageMapMatchesTree: the package map of docs/design.md ("## Shape")
// names every Go package under internal/ and cmd/, and no other.
func TestDesignPackageMapMatchesTree(t *testing.T) {
	onDisk := map[string]bool{}
	goFiles(t, func(dir, _ string, _ bool) { onDisk[dir] = true })
	docs := documentedPackages(t)
	for dir := range onDisk {
		if !docs[dir] {
			t.Errorf("package %s is not in docs/design.md's Shape", dir)
		}
	}
	for dir := range docs {
		if !onDisk[dir] {
			t.Errorf("docs/design.md's Shape names %s, which has no Go file", dir)
		}
	}
}

// TestPackageSizes: a package past maxLines non-test lines says why in its doc
// comment, in a paragraph starting "Size:".
func TestPackageSizes(t *testing.T) {
	lines := map[string]int{}
	docs := map[string]string{}
	goFiles(t, func(dir, path string, test bool) {
		if test {
			return
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines[dir] += strings.Count(string(src), "\n")
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			docs[dir] += f.Doc.Text()
		}
	})
	for dir, n := range lines {
		if n > maxLines && !strings.Contains(docs[dir], "Size:") {
			t.Errorf("%s has %d non-test lines (over %d) and its doc comment does not say why (a paragraph starting \"Size:\"): split it or say", dir, n, maxLines)
		}
	}
}

// TestImportBoundaries: only the --dev wiring (internal/app) imports the demo
// seeding, and only tests import the test harness packages.
func TestImportBoundaries(t *testing.T) {
	rules := []struct {
		pkg     string
		allowed func(dir string, test bool) bool
		why     string
	}{
		{"guichet/internal/devseed", func(dir string, test bool) bool {
			return dir == "internal/app" || dir == "internal/devseed" || test
		}, "demo data is seeded by --dev's wiring in internal/app only"},
		{"guichet/internal/testenv", func(dir string, test bool) bool {
			return test || testSupport(dir)
		}, "the test harness is for tests (and the test-support packages built on it, such as fanouttest)"},
		{"guichet/internal/store/storetest", func(dir string, test bool) bool {
			return test || testSupport(dir)
		}, "test databases are for tests"},
	}
	goFiles(t, func(dir, path string, test bool) {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, r := range rules {
				if p == r.pkg && !r.allowed(dir, test) {
					t.Errorf("%s imports %s: %s", path, p, r.why)
				}
			}
		}
	})
}
