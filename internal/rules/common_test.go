package rules

import (
	"path/filepath"
	"slices"
	"testing"
)

// formsFile is testdata/rules/common/forms.json (README.md there): what
// commonForms gives for a normalized password and which of the forms are
// keyboard walks. web/src/lib/rules/common-forms.test.ts runs it too.
type formsFile struct {
	Cases []struct {
		In    string   `json:"in"`
		Forms []string `json:"forms"`
		Walks []string `json:"walks"`
		Note  string   `json:"note"`
	} `json:"cases"`
}

func loadForms(t testing.TB) formsFile {
	t.Helper()
	var f formsFile
	readStrict(t, filepath.Join(vectorsDir, "common", "forms.json"), &f)
	return f
}

func TestCommonFormsVectors(t *testing.T) {
	f := loadForms(t)
	if len(f.Cases) < 40 {
		t.Errorf("%d cases, want at least 40", len(f.Cases))
	}
	for _, c := range f.Cases {
		forms := commonForms(c.In)
		if !slices.Equal(forms, c.Forms) {
			t.Errorf("commonForms(%q) = %q, want %q (%s)", c.In, forms, c.Forms, c.Note)
		}
		var walks []string
		for _, form := range forms {
			if keyboardWalk(form) {
				walks = append(walks, form)
			}
		}
		if !slices.Equal(walks, c.Walks) {
			t.Errorf("walks of %q = %q, want %q (%s)", c.In, walks, c.Walks, c.Note)
		}
	}
}

func TestBlocklisted(t *testing.T) {
	tests := []struct {
		form string
		want bool
	}{
		{"password1!", true},   // an entry
		{"password", true},     // the core of entries
		{"l1verpool", true},    // 1 read as i
		{"1iverpool", true},    // 1 read as l
		{"iiverpool", false},   // a typed i is not an l
		{"1qaz2wsx3edc", true}, // an entry's own 1
		{"abc", false},         // a core under blocklistMinCore
		{"abcd", true},         // abcd1234...
		{"mypasswordx", false}, // equality, not containment
		{"", false},
	}
	for _, tt := range tests {
		if got := blocklisted(tt.form); got != tt.want {
			t.Errorf("blocklisted(%q) = %v, want %v", tt.form, got, tt.want)
		}
	}
}
