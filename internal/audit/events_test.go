package audit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"guichet/internal/audit"
)

// catalogued is one constant of events.go.
type catalogued struct {
	ident, value string
	documented   bool
}

// catalogue reads the constants of events.go as written.
func catalogue(t *testing.T) []catalogued {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "events.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var out []catalogued
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if len(v.Names) != 1 || len(v.Values) != 1 {
				t.Fatalf("%s: one name and one value a line", v.Names[0].Name)
			}
			if typ, ok := v.Type.(*ast.Ident); !ok || typ.Name != "Name" {
				t.Errorf("%s: not of type Name", v.Names[0].Name)
			}
			lit, ok := v.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Fatalf("%s: the value is not a string literal", v.Names[0].Name)
			}
			value, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, catalogued{ident: v.Names[0].Name, value: value, documented: v.Doc != nil})
		}
	}
	if len(out) == 0 {
		t.Fatal("no event names in events.go")
	}
	return out
}

// TestCatalogue holds every event name to "flow.action" (lower case and
// underscores), unique and documented.
func TestCatalogue(t *testing.T) {
	// Written before the "flow.action" names; stored rows and the docs keep it.
	older := map[string]bool{string(audit.Notification): true}
	shape := regexp.MustCompile(`^[a-z_]+\.[a-z_]+$`)
	seen := map[string]string{}
	for _, c := range catalogue(t) {
		if !shape.MatchString(c.value) && !older[c.value] {
			t.Errorf("%s = %q: not flow.action", c.ident, c.value)
		}
		if other, ok := seen[c.value]; ok {
			t.Errorf("%s and %s are both %q", other, c.ident, c.value)
		}
		seen[c.value] = c.ident
		if !c.documented {
			t.Errorf("%s: no doc comment saying who writes it and when", c.ident)
		}
	}
}

// TestCatalogueUsed fails on a name no production file outside this package
// writes or reads, so the catalogue cannot keep names nobody writes any more.
func TestCatalogueUsed(t *testing.T) {
	used := map[string]bool{}
	fset := token.NewFileSet()
	for _, dir := range []string{"../../internal", "../../cmd"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if filepath.Base(path) == "audit" && filepath.Base(filepath.Dir(path)) == "internal" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			local := ""
			for _, imp := range f.Imports {
				if imp.Path.Value == strconv.Quote("guichet/internal/audit") {
					local = "audit"
					if imp.Name != nil {
						local = imp.Name.Name
					}
				}
			}
			if local == "" {
				return nil
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == local {
						used[sel.Sel.Name] = true
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range catalogue(t) {
		if !used[c.ident] {
			t.Errorf("audit.%s (%q) is used by no production file: remove it, or write it", c.ident, c.value)
		}
	}
}
