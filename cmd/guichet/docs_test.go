package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"guichet/internal/testenv"
)

// TestDocsStayInTheRepository: every Markdown file the README and docs/ name
// (in backquotes) is in the repository, so a clone has what they point to.
func TestDocsStayInTheRepository(t *testing.T) {
	root := testenv.RepoDir(t)
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	inRepo := func(path string) bool {
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return false
		}
		_, err = os.Stat(path)
		return err == nil
	}
	named := regexp.MustCompile("`([^`\\s]+\\.md)`")
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllStringSubmatch(string(text), -1) {
			if !inRepo(filepath.Join(root, m[1])) && !inRepo(filepath.Join(filepath.Dir(doc), m[1])) {
				t.Errorf("%s names %s, which is not in the repository", filepath.Base(doc), m[1])
			}
		}
	}
}
