// Package apitest holds what the Go tests of several packages share about
// the HTTP contract: the answers of testdata/api/answers.json, which the
// SPA's error catalogue test maps to roadblocks, so both sides test against
// the same bodies.
package apitest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Answer returns the status and decoded body of the answer called name in
// testdata/api/answers.json; the test fails when there is none.
func Answer(t testing.TB, name string) (int, any) {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("apitest: cannot locate testdata/api/answers.json")
	}
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "..", "testdata", "api", "answers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Answers map[string]struct {
			Status int `json:"status"`
			Body   any `json:"body"`
		} `json:"answers"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	a, ok := f.Answers[name]
	if !ok {
		t.Fatalf("testdata/api/answers.json has no %q", name)
	}
	return a.Status, a.Body
}
