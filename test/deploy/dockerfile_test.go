package deploy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd  string // upper case
	args string
}

// stage is a FROM and what follows it.
type stage struct {
	base, name string
	body       []instruction
}

// parseDockerfile splits a Dockerfile into its global ARGs and its stages.
func parseDockerfile(t *testing.T, path string) (global []instruction, stages []stage) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var joined []string
	cur := ""
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur == "") {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur += strings.TrimSuffix(trimmed, "\\") + " "
			continue
		}
		joined = append(joined, cur+trimmed)
		cur = ""
	}
	for _, l := range joined {
		if l == "" {
			continue
		}
		cmd, args, _ := strings.Cut(l, " ")
		in := instruction{strings.ToUpper(cmd), strings.TrimSpace(args)}
		switch {
		case in.cmd == "FROM":
			f := strings.Fields(in.args)
			s := stage{base: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.name = f[2]
			}
			stages = append(stages, s)
		case len(stages) == 0:
			global = append(global, in)
		default:
			stages[len(stages)-1].body = append(stages[len(stages)-1].body, in)
		}
	}
	return global, stages
}

// pairs parses KEY=VALUE words (values may be double-quoted), as ENV,
// LABEL and ARG write them.
func pairs(t *testing.T, s string) map[string]string {
	t.Helper()
	m := map[string]string{}
	re := regexp.MustCompile(`\s*([A-Za-z0-9_.\-]+)(?:=("(?:[^"\\]|\\.)*"|\S*))?`)
	for _, g := range re.FindAllStringSubmatch(s, -1) {
		v := g[2]
		if strings.HasPrefix(v, `"`) {
			if err := json.Unmarshal([]byte(v), &v); err != nil {
				t.Fatalf("%s: %v", g[0], err)
			}
		}
		m[g[1]] = v
	}
	return m
}

// TestDockerfileMatchesImage: the Dockerfile's final stage is FROM scratch
// and says what dist/guichet-image.tar's configuration says (user,
// entrypoint, command, environment, working directory, ports, volume, stop
// signal, labels; a label from a build argument is that argument), and its
// files are tools/image's (the rootfs command, the same tool as make
// image's).
func TestDockerfileMatchesImage(t *testing.T) {
	img := loadImage(t)
	c := img.config.Config
	global, stages := parseDockerfile(t, filepath.Join(root, "Dockerfile"))
	if len(stages) < 2 {
		t.Fatalf("%d stages, want a build and FROM scratch", len(stages))
	}
	final := stages[len(stages)-1]
	if final.base != "scratch" {
		t.Errorf("the final stage is FROM %s, want scratch (like make image)", final.base)
	}
	globalArgs := map[string]bool{}
	for _, in := range global {
		if in.cmd == "ARG" {
			for k := range pairs(t, in.args) {
				globalArgs[k] = true
			}
		}
	}
	got := map[string][]string{}
	env, labels, args := map[string]string{}, map[string]string{}, map[string]bool{}
	var copies []string
	for _, in := range final.body {
		switch in.cmd {
		case "ENTRYPOINT", "CMD":
			var v []string
			if err := json.Unmarshal([]byte(in.args), &v); err != nil {
				t.Errorf("%s %s: want the JSON (exec) form: %v", in.cmd, in.args, err)
			}
			got[in.cmd] = v
		case "ENV":
			for k, v := range pairs(t, in.args) {
				env[k] = v
			}
		case "LABEL":
			for k, v := range pairs(t, in.args) {
				labels[k] = v
			}
		case "ARG":
			for k := range pairs(t, in.args) {
				args[k] = true
			}
		case "EXPOSE", "VOLUME":
			got[in.cmd] = append(got[in.cmd], strings.Fields(in.args)...)
		case "COPY":
			copies = append(copies, in.args)
		default:
			got[in.cmd] = []string{in.args}
		}
	}
	check := func(what string, dockerfile, image []string) {
		t.Helper()
		d, i := slices.Clone(dockerfile), slices.Clone(image)
		slices.Sort(d)
		slices.Sort(i)
		if !slices.Equal(d, i) {
			t.Errorf("%s: Dockerfile %q, image %q", what, d, i)
		}
	}
	check("USER", got["USER"], []string{c.User})
	check("ENTRYPOINT", got["ENTRYPOINT"], c.Entrypoint)
	check("CMD", got["CMD"], c.Cmd)
	check("WORKDIR", got["WORKDIR"], []string{c.WorkingDir})
	check("STOPSIGNAL", got["STOPSIGNAL"], []string{c.StopSignal})
	check("EXPOSE", got["EXPOSE"], keys(c.ExposedPorts))
	check("VOLUME", got["VOLUME"], keys(c.Volumes))
	var envList []string
	for k, v := range env {
		envList = append(envList, k+"="+v)
	}
	check("ENV", envList, c.Env)
	check("LABEL names", keys(labels), keys(c.Labels))
	argRef := regexp.MustCompile(`^\$\{?([A-Z_]+)\}?$`)
	for k, v := range labels {
		if m := argRef.FindStringSubmatch(v); m != nil {
			if !args[m[1]] || !globalArgs[m[1]] {
				t.Errorf("LABEL %s=%s: ARG %s is not declared before FROM and in the final stage", k, v, m[1])
			}
			if c.Labels[k] == "" {
				t.Errorf("LABEL %s comes from ARG %s; the image's is empty", k, m[1])
			}
		} else if v != c.Labels[k] {
			t.Errorf("LABEL %s: Dockerfile %q, image %q", k, v, c.Labels[k])
		}
	}
	// The files: tools/image rootfs in a build stage, copied whole.
	var rootfs, build bool
	for _, s := range stages[:len(stages)-1] {
		for _, in := range s.body {
			rootfs = rootfs || in.cmd == "RUN" && strings.Contains(in.args, "go run ./image rootfs") && strings.Contains(in.args, "--out /out/rootfs") &&
				strings.Contains(in.args, "--npm-lock ../web/package-lock.json")
			build = build || in.cmd == "RUN" && strings.Contains(in.args, "CGO_ENABLED=0 go build") && strings.Contains(in.args, "-trimpath")
		}
		if strings.HasPrefix(s.base, "golang:") {
			gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
			if err != nil {
				t.Fatal(err)
			}
			goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
			if goVersion == nil || !strings.HasPrefix(s.base, "golang:"+string(goVersion[1])) {
				t.Errorf("FROM %s: want go.mod's Go (%s)", s.base, goVersion)
			}
		}
	}
	if !rootfs || !build {
		t.Errorf("want a build stage running CGO_ENABLED=0 go build -trimpath (%v) and go run ./image rootfs --out /out/rootfs (%v)", build, rootfs)
	}
	check("COPY into the final stage", copies, []string{
		"--from=build --chown=0:0 /out/rootfs/ /",
		"--from=build --chown=65532:65532 /out/rootfs-guichet/ /",
	})
}

func keys[V any](m map[string]V) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	return k
}
