package testenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"testing"
)

// Scenario is one HTTP request and what its answer must be, in the style
// of pocketbase's tests.ApiScenario: a table of them is run against a
// handler by Run. Every expectation left at its zero value is not checked,
// except Status (the zero value means 200).
type Scenario struct {
	Name string
	Request
	// Before runs before the request (seed the database, move the clock).
	Before func(t testing.TB)

	Status int // 200 when zero
	// Code is the errorCode the JSON body must carry.
	Code string
	// JSON lists members of the JSON body and their values (compared as
	// decoded from JSON: numbers are float64); a nil value only wants the
	// member present.
	JSON map[string]any
	// Contains and NotContains are substrings the body must and must not
	// hold (JSON bodies are compacted first).
	Contains, NotContains []string
	// Headers are headers the answer must carry with these values; an
	// empty value wants the header absent.
	Headers map[string]string
	// After runs once the answer is checked, on success or failure: side
	// effects in the database, what a fake received.
	After func(t testing.TB, a Answer)
}

// Run runs each scenario as a subtest named after it, against h.
func Run(t *testing.T, h http.Handler, scenarios ...Scenario) {
	t.Helper()
	for _, s := range scenarios {
		t.Run(s.Name, func(t *testing.T) { s.Test(t, h) })
	}
}

// Test runs the scenario against h and reports every way the answer
// differs from what the scenario expects, each prefixed with the
// scenario's name, then runs After.
func (s Scenario) Test(t testing.TB, h http.Handler) Answer {
	t.Helper()
	if s.Before != nil {
		s.Before(t)
	}
	a := Do(t, h, s.Request)
	for _, problem := range s.differences(a) {
		t.Errorf("[%s] %s %s: %s", s.label(), s.methodOrGet(), s.Path, problem)
	}
	if s.After != nil {
		s.After(t, a)
	}
	return a
}

func (s Scenario) label() string {
	if s.Name != "" {
		return s.Name
	}
	return s.methodOrGet() + " " + s.Path
}

func (s Scenario) methodOrGet() string {
	if s.Method == "" {
		return http.MethodGet
	}
	return s.Method
}

// differences lists what differs between the answer and the scenario.
func (s Scenario) differences(a Answer) []string {
	var out []string
	body := a.Body
	var compact bytes.Buffer
	if json.Compact(&compact, a.Body) == nil {
		body = compact.Bytes()
	}
	shown := string(body)
	if len(shown) > 300 {
		shown = shown[:300] + "…"
	}
	want := s.Status
	if want == 0 {
		want = http.StatusOK
	}
	if a.Status != want {
		out = append(out, fmt.Sprintf("status %d, want %d; body %s", a.Status, want, shown))
	}
	if s.Code != "" || len(s.JSON) > 0 {
		var m map[string]any
		if err := json.Unmarshal(a.Body, &m); err != nil {
			out = append(out, fmt.Sprintf("body is not a JSON object (%v): %s", err, shown))
		} else {
			if got, _ := m["errorCode"].(string); s.Code != "" && got != s.Code {
				out = append(out, fmt.Sprintf("errorCode %q, want %q", got, s.Code))
			}
			for _, k := range sortedKeys(s.JSON) {
				got, ok := m[k]
				switch {
				case !ok:
					out = append(out, fmt.Sprintf("no member %q in %s", k, shown))
				case s.JSON[k] != nil && !reflect.DeepEqual(got, s.JSON[k]):
					out = append(out, fmt.Sprintf("%s = %#v, want %#v", k, got, s.JSON[k]))
				}
			}
		}
	}
	for _, sub := range s.Contains {
		if !bytes.Contains(body, []byte(sub)) {
			out = append(out, fmt.Sprintf("body lacks %q: %s", sub, shown))
		}
	}
	for _, sub := range s.NotContains {
		if bytes.Contains(body, []byte(sub)) {
			out = append(out, fmt.Sprintf("body holds %q, which it must not: %s", sub, shown))
		}
	}
	for _, k := range sortedKeys(s.Headers) {
		if got := a.Header.Get(k); got != s.Headers[k] {
			out = append(out, fmt.Sprintf("header %s = %q, want %q", k, got, s.Headers[k]))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
