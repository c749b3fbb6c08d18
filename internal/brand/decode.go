package brand

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Limits that keep a hostile or broken file (alias bombs, deep nesting) from
// costing more than a real brand file ever could.
const (
	maxNodes = 100_000
	maxDepth = 32
)

// problem is one thing wrong in a brand file: the dotted path of the field
// (empty for the whole file) and what is wrong with it.
type problem struct{ field, message string }

type problems []problem

func (ps *problems) add(field, format string, args ...any) {
	*ps = append(*ps, problem{field: field, message: fmt.Sprintf(format, args...)})
}

// decodeStrict parses one YAML document into b. Unknown fields, missing
// required fields (tag brand:"required"), duplicate keys and values of the
// wrong kind are reported by path, all of them. filled says whether b holds
// what could be decoded (despite the problems), so that it can be validated
// too.
func decodeStrict(data []byte, b *Brand) (ps problems, filled bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			ps.add("", "the file is empty")
		} else {
			ps.add("", "not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		return ps, false
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		ps.add("", "the file must hold exactly one YAML document")
		return ps, false
	}
	root := &doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		root = doc.Content[0]
	}
	w := walker{ps: &ps}
	w.check(root, reflect.TypeFor[Brand](), "", 0)
	if w.stopped || root.Kind != yaml.MappingNode {
		return ps, false
	}
	// yaml.v3 skips the fields it cannot decode and goes on; the walker has
	// already reported them.
	err := root.Decode(b)
	if err == nil {
		return ps, true
	}
	if len(ps) == 0 { // the walker missed something: report it as yaml.v3 does
		ps.add("", "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		return ps, false
	}
	var typeErr *yaml.TypeError
	return ps, errors.As(err, &typeErr)
}

// walker checks a YAML node tree against the Go type it will decode into.
type walker struct {
	ps      *problems
	visited int
	stopped bool
}

func (w *walker) check(n *yaml.Node, t reflect.Type, path string, depth int) {
	if w.stopped {
		return
	}
	w.visited++
	if w.visited > maxNodes || depth > maxDepth {
		w.ps.add(path, "the document is too large or too deeply nested")
		w.stopped = true
		return
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			w.ps.add(path, "alias to nothing")
			return
		}
		n = n.Alias
	}
	if t.Kind() == reflect.Pointer {
		if isNull(n) {
			return
		}
		t = t.Elem()
	}
	if t == reflect.TypeFor[Name]() && n.Kind != yaml.MappingNode {
		// A name the same in every language is written as one text.
		w.checkScalar(n, reflect.TypeFor[string](), path)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		w.checkStruct(n, t, path, depth)
	case reflect.Slice:
		if !w.walkable(n, yaml.SequenceNode, "a list", path) {
			return
		}
		for i, c := range n.Content {
			item := fmt.Sprintf("%s[%d]", path, i)
			if isNull(unalias(c)) {
				w.ps.add(item, "empty list item")
				continue
			}
			w.check(c, t.Elem(), item, depth+1)
		}
	case reflect.Map:
		if !w.walkable(n, yaml.MappingNode, "a mapping", path) {
			return
		}
		w.eachPair(n, path, func(key string, value *yaml.Node) {
			w.check(value, t.Elem(), join(path, key), depth+1)
		})
	default:
		w.checkScalar(n, t, path)
	}
}

// walkable reports whether n is a node of kind to walk: null (an empty
// list or map) has nothing to walk, and a node of another kind is reported
// as not what (a list, a mapping) was expected.
func (w *walker) walkable(n *yaml.Node, kind yaml.Kind, what, path string) bool {
	if isNull(n) {
		return false
	}
	if n.Kind != kind {
		w.ps.add(path, "expected %s, found %s", what, describe(n))
		return false
	}
	return true
}

func (w *walker) checkStruct(n *yaml.Node, t reflect.Type, path string, depth int) {
	if n.Kind != yaml.MappingNode {
		w.ps.add(path, "expected a mapping, found %s", describe(n))
		return
	}
	type field struct {
		typ      reflect.Type
		required bool
	}
	fields := map[string]field{}
	var names []string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || name == "" {
			continue
		}
		fields[name] = field{typ: f.Type, required: f.Tag.Get("brand") == "required"}
		names = append(names, name)
	}
	seen := map[string]bool{}
	w.eachPair(n, path, func(key string, value *yaml.Node) {
		f, ok := fields[key]
		if !ok {
			w.ps.add(join(path, key), "unknown field (expected one of: %s)", strings.Join(names, ", "))
			return
		}
		seen[key] = true
		w.check(value, f.typ, join(path, key), depth+1)
	})
	for _, name := range names {
		if fields[name].required && !seen[name] {
			w.ps.add(join(path, name), "required field is missing")
		}
	}
}

// eachPair calls fn for every key of a mapping, reporting duplicate keys,
// keys that are not plain text and merge keys.
func (w *walker) eachPair(n *yaml.Node, path string, fn func(key string, value *yaml.Node)) {
	lines := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			w.ps.add(path, "keys must be plain text, found %s", describe(k))
			continue
		}
		if k.Tag == "!!merge" {
			w.ps.add(join(path, k.Value), "merge keys are not supported; use an alias (*name) for the whole value")
			continue
		}
		if line, dup := lines[k.Value]; dup {
			w.ps.add(join(path, k.Value), "duplicate key (first on line %d)", line)
			continue
		}
		lines[k.Value] = k.Line
		fn(k.Value, v)
	}
}

func (w *walker) checkScalar(n *yaml.Node, t reflect.Type, path string) {
	want := map[reflect.Kind]string{reflect.Bool: "true or false", reflect.Int: "a whole number"}[t.Kind()]
	if want == "" {
		want = "a text value"
	}
	if n.Kind != yaml.ScalarNode {
		w.ps.add(path, "expected %s, found %s", want, describe(n))
		return
	}
	if isNull(n) {
		return // zero value; validation says whether it may be empty
	}
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		w.ps.add(path, "%q is not %s", n.Value, want)
	}
}

// unalias follows an alias to the node it names (one step: the parser
// resolves chains).
func unalias(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func describe(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case isNull(n):
		return "nothing"
	case n.Kind == yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "an unexpected node"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
