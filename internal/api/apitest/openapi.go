package apitest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// Schemas returns the component schemas of api/openapi.yaml, from which the
// SPA's types are generated.
func Schemas(t testing.TB) map[string]map[string]any {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("apitest: cannot locate api/openapi.yaml")
	}
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "..", "api", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]map[string]any `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Components.Schemas
}

// Object decodes a JSON object body; the test fails when it is not one.
func Object(t testing.TB, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		t.Fatalf("body %q is not a JSON object: %v", body, err)
	}
	return m
}

// Conform checks a decoded JSON value against the schema called name: no
// undeclared property, no missing required one, types, enums and patterns
// as declared.
func Conform(schemas map[string]map[string]any, name string, v any) error {
	return conform(schemas, map[string]any{"$ref": "#/components/schemas/" + name}, v, name)
}

func conform(schemas map[string]map[string]any, s map[string]any, v any, path string) error {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		target, ok := schemas[name]
		if !ok {
			return fmt.Errorf("%s: unknown $ref %s", path, ref)
		}
		return conform(schemas, target, v, path)
	}
	if alts, ok := s["oneOf"].([]any); ok {
		var errs []string
		for _, alt := range alts {
			err := conform(schemas, alt.(map[string]any), v, path)
			if err == nil {
				return nil
			}
			errs = append(errs, err.Error())
		}
		return fmt.Errorf("%s: matches no alternative (%s)", path, strings.Join(errs, "; "))
	}
	switch s["type"] {
	case "null":
		if v != nil {
			return fmt.Errorf("%s: want null", path)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: want string, got %T", path, v)
		}
		if enum, ok := s["enum"].([]any); ok && !containsAny(enum, str) {
			return fmt.Errorf("%s: %q not in %v", path, str, enum)
		}
		if pattern, ok := s["pattern"].(string); ok && !regexp.MustCompile(pattern).MatchString(str) {
			return fmt.Errorf("%s: %q does not match %s", path, str, pattern)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: want boolean, got %T", path, v)
		}
	case "integer":
		if f, ok := v.(float64); !ok || f != float64(int64(f)) {
			return fmt.Errorf("%s: want integer, got %v", path, v)
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want array, got %T", path, v)
		}
		for i, item := range arr {
			if err := conform(schemas, s["items"].(map[string]any), item, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want object, got %T", path, v)
		}
		props, _ := s["properties"].(map[string]any)
		for _, req := range asStrings(s["required"]) {
			if _, ok := obj[req]; !ok {
				return fmt.Errorf("%s: required property %q missing", path, req)
			}
		}
		for k, val := range obj {
			if ps, ok := props[k].(map[string]any); ok {
				if err := conform(schemas, ps, val, path+"."+k); err != nil {
					return err
				}
				continue
			}
			if ap, ok := s["additionalProperties"].(map[string]any); ok {
				if err := conform(schemas, ap, val, path+"."+k); err != nil {
					return err
				}
				continue
			}
			return fmt.Errorf("%s: property %q is not in the schema", path, k)
		}
	}
	return nil
}

func asStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

func containsAny(list []any, s string) bool {
	for _, x := range list {
		if fmt.Sprint(x) == s {
			return true
		}
	}
	return false
}
