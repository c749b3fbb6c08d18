package web

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoToolSkipsNodeModules checks that `go list ./...` (hence go vet, go
// test and the fuzz targets of ./...) names no package under web/ but this
// one: npm packages may ship Go code. It lists the repository and a copy of
// go.mod beside a web/node_modules holding a Go package, since the
// repository's own node_modules may be absent or a symbolic link, which the
// go tool never walks.
func TestGoToolSkipsNodeModules(t *testing.T) {
	mod := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":     "",
		"go.sum":     "",
		"web/web.go": "package web\n",
		"web/node_modules/flatted/golang/flatted.go": "package flatted\n",
	} {
		path := filepath.Join(mod, name)
		if text == "" {
			b, err := os.ReadFile(filepath.Join("..", name))
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{"..", mod} {
		cmd := exec.Command("go", "list", "./...")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOPROXY=off")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list ./... in %s: %v", dir, err)
		}
		for _, pkg := range strings.Fields(string(out)) {
			if strings.HasPrefix(pkg, "guichet/web/") {
				t.Errorf("go list ./... in %s names %s", dir, pkg)
			}
		}
	}
}
