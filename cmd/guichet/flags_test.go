package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"guichet/internal/app"
)

// TestParseArgs: flags before, between and after positional arguments;
// `--` ends the flags unless it is a flag's value.
func TestParseArgs(t *testing.T) {
	cases := []struct {
		args       []string
		positional []string
		name       string
		dev        bool
		fail       bool
	}{
		{[]string{"add", "a@example.com", "--name", "X"}, []string{"add", "a@example.com"}, "X", false, false},
		{[]string{"add", "--dev", "a@example.com", "--name", "X"}, []string{"add", "a@example.com"}, "X", true, false},
		{[]string{"--name", "X", "add", "a@example.com", "--dev"}, []string{"add", "a@example.com"}, "X", true, false},
		{[]string{"add", "-name=X", "a@example.com", "-dev"}, []string{"add", "a@example.com"}, "X", true, false},
		{[]string{"add", "--", "--name", "X"}, []string{"add", "--name", "X"}, "", false, false},
		{[]string{"add", "--name", "--", "b"}, []string{"add", "b"}, "--", false, false},
		{[]string{"add", "--name", "X", "--", "-b", "--dev"}, []string{"add", "-b", "--dev"}, "X", false, false},
		{[]string{"--dev", "--"}, nil, "", true, false},
		{[]string{}, nil, "", false, false},
		{[]string{"add", "--nope"}, nil, "", false, true},
		{[]string{"add", "--name"}, nil, "", false, true},
	}
	for _, c := range cases {
		cfg := app.Config{}
		fs := newFlagSet("test", &cfg)
		name := fs.String("name", "", "")
		got, err := parseArgs(fs, c.args)
		if (err != nil) != c.fail {
			t.Errorf("%q: error %v", c.args, err)
			continue
		}
		if c.fail {
			continue
		}
		if !slices.Equal(got, c.positional) || *name != c.name || cfg.Dev != c.dev {
			t.Errorf("%q: positional %q name %q dev %v; want %q %q %v", c.args, got, *name, cfg.Dev, c.positional, c.name, c.dev)
		}
	}
	if _, err := parseArgs(newFlagSet("test", &app.Config{}), []string{"x", "--help"}); err != flag.ErrHelp {
		t.Errorf("--help after an argument: %v", err)
	}
}

// TestFlagsAnywhere runs every command of cmd/guichet with its flags
// before, between and after its positional arguments (`guichet staff add
// --dev EMAIL --name X` ignored every flag after EMAIL): each arrangement,
// on a database of its own, does the same.
func TestFlagsAnywhere(t *testing.T) {
	t.Setenv("GUICHET_DATABASE_URL", "")
	t.Setenv("GUICHET_DEV", "")
	t.Setenv("GUICHET_CONSOLE_HOST", "")
	captureStderr(t)
	brands, err := filepath.Abs("../../config/brands")
	if err != nil {
		t.Fatal(err)
	}
	files := t.TempDir()
	people := filepath.Join(files, "people.csv")
	if err := os.WriteFile(people, []byte(tokenPeople), 0o600); err != nil {
		t.Fatal(err)
	}
	// A file whose name starts with -, given after --.
	t.Chdir(files)
	if err := os.WriteFile("-people.csv", []byte(tokenPeople), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun := func(args ...string) {
		t.Helper()
		if err := run(args, &bytes.Buffer{}); err != nil {
			t.Fatalf("guichet %q: %v", args, err)
		}
	}
	importPeople := func(dir string) { mustRun("import-policies", "--data-dir", dir, people) }
	addLee := func(dir string) {
		mustRun("staff", "add", "lee@example.com", "--name", "Lee", "--role", "agent", "--data-dir", dir, "--console-host", "console.example.test")
	}
	cases := []struct {
		name     string
		setup    func(dir string)
		want     string // a regular expression on stdout, or on the error when fail
		fail     bool
		variants [][]string // D: the variant's data directory, B: the backup file
	}{
		{name: "serve refuses an argument", want: `unexpected argument "extra"`, fail: true, variants: [][]string{
			{"serve", "--addr", "127.0.0.1:0", "extra"}, {"serve", "extra", "--addr", "127.0.0.1:0"},
		}},
		{name: "migrate", want: `^migrations applied \(sqlite\)\n$`, variants: [][]string{
			{"migrate", "--data-dir", "D"}, {"migrate", "--data-dir", "D", "--"},
		}},
		{name: "check-config", want: `5 brands valid`, variants: [][]string{
			{"check-config", "--brands-dir", "BRANDS"}, {"check-config", "--brands-dir", "BRANDS", "--"},
		}},
		{name: "check-config after --", want: `unexpected argument "--brands-dir"`, fail: true, variants: [][]string{
			{"check-config", "--", "--brands-dir", "BRANDS"},
		}},
		{name: "outbox list", want: `^`, variants: [][]string{
			{"outbox", "list", "--data-dir", "D"}, {"outbox", "--data-dir", "D", "list"},
		}},
		{name: "outbox retry", setup: func(d string) { mustRun("migrate", "--data-dir", d) }, want: `.`, fail: true, variants: [][]string{
			{"outbox", "retry", "nope", "--data-dir", "D"}, {"outbox", "--data-dir", "D", "retry", "nope"}, {"outbox", "retry", "--data-dir", "D", "nope"},
		}},
		{name: "backup", setup: func(d string) { mustRun("migrate", "--data-dir", d) }, want: `^backup written to `, variants: [][]string{
			{"backup", "B", "--data-dir", "D"}, {"backup", "--data-dir", "D", "B"},
		}},
		{name: "import-policies --dry-run", want: `^3 rows: 3 added, 0 updated, 0 unchanged \(dry run: nothing written\)\n$`, variants: [][]string{
			{"import-policies", "--dry-run", "--data-dir", "D", people}, {"import-policies", people, "--dry-run", "--data-dir", "D"},
			{"import-policies", "--data-dir", "D", people, "--dry-run"}, {"import-policies", "--dry-run", "--data-dir", "D", "--", "-people.csv"},
		}},
		{name: "maintenance on", want: `^maintenance on for intact\n$`, variants: [][]string{
			{"maintenance", "on", "--brand", "intact", "--data-dir", "D"}, {"maintenance", "--brand", "intact", "on", "--data-dir", "D"},
			{"maintenance", "--data-dir", "D", "on", "--brand", "intact"},
		}},
		{name: "maintenance status", setup: func(d string) { mustRun("maintenance", "on", "--data-dir", d, "--brand", "intact") }, want: `intact`, variants: [][]string{
			{"maintenance", "status", "--data-dir", "D"}, {"maintenance", "--data-dir", "D", "status"},
		}},
		{name: "tokens issue", setup: importPeople, want: `^http://[a-z.]+:\d+/registration/link\?token=`, variants: [][]string{
			{"tokens", "issue", "--dev", "--brand", "belair", "--policy", "TOK0001", "--email", "theo@example.com", "--source", "edoc", "--data-dir", "D"},
			{"tokens", "--dev", "--brand", "belair", "issue", "--policy", "TOK0001", "--email", "theo@example.com", "--source", "edoc", "--data-dir", "D"},
			{"tokens", "--dev", "--brand", "belair", "--policy", "TOK0001", "--email", "theo@example.com", "--source", "edoc", "--data-dir", "D", "issue"},
		}},
		{name: "staff add", want: `^http://console\.localhost(:\d+)?/setup#[A-Za-z0-9_-]{43}\n$`, variants: [][]string{
			{"staff", "add", "--dev", "lee@example.com", "--name", "Lee", "--role", "agent", "--data-dir", "D"},
			{"staff", "add", "lee@example.com", "--dev", "--name", "Lee", "--role", "agent", "--data-dir", "D"},
			{"staff", "--dev", "--name", "Lee", "--role", "agent", "--data-dir", "D", "add", "lee@example.com"},
			{"staff", "add", "--dev", "--name=Lee", "-role", "agent", "--data-dir", "D", "--", "lee@example.com"},
		}},
		{name: "staff disable", setup: addLee, want: `^staff member lee@example.com disabled`, variants: [][]string{
			{"staff", "disable", "lee@example.com", "--data-dir", "D"}, {"staff", "--data-dir", "D", "disable", "lee@example.com"},
		}},
		{name: "staff list", setup: addLee, want: `lee@example.com\s+Lee\s+agent`, variants: [][]string{
			{"staff", "list", "--data-dir", "D"}, {"staff", "--data-dir", "D", "list"},
		}},
		{name: "staff list --name", want: `--name is for staff add only`, fail: true, variants: [][]string{
			{"staff", "list", "--name", "X", "--data-dir", "D"},
		}},
		{name: "clients add", want: `^client_id: \S+\n$`, variants: [][]string{
			{"clients", "add", "--brand", "belair", "--name", "App", "--type", "public", "--redirect-uri", "https://a.example/cb", "--data-dir", "D"},
			{"clients", "--brand", "belair", "--name", "App", "add", "--type", "public", "--redirect-uri", "https://a.example/cb", "--data-dir", "D"},
			{"clients", "--data-dir", "D", "--brand", "belair", "--name", "App", "--type", "public", "--redirect-uri", "https://a.example/cb", "add"},
		}},
		{name: "clients list", want: `^CLIENT_ID`, variants: [][]string{
			{"clients", "list", "--brand", "belair", "--data-dir", "D"}, {"clients", "--data-dir", "D", "--brand", "belair", "list"},
		}},
		{name: "clients list --name", want: `--name is not for clients list`, fail: true, variants: [][]string{
			{"clients", "list", "--name", "X", "--data-dir", "D"},
		}},
		{name: "clients disable", want: `no client nope`, fail: true, variants: [][]string{
			{"clients", "disable", "nope", "--data-dir", "D"}, {"clients", "--data-dir", "D", "disable", "nope"},
			{"clients", "disable", "--data-dir", "D", "--", "nope"},
		}},
		{name: "oidc rotate-keys", want: `^intact: new signing keys`, variants: [][]string{
			{"oidc", "rotate-keys", "--brand", "intact", "--data-dir", "D"}, {"oidc", "--brand", "intact", "--data-dir", "D", "rotate-keys"},
		}},
		{name: "version", want: `^dev\n$`, variants: [][]string{{"version", "--dev"}, {"version", "--dev", "--"}}},
		{name: "version, a flag after --", want: `unexpected argument "--dev"`, fail: true, variants: [][]string{{"version", "--", "--dev"}}},
		{name: "help", want: `Commands:`, variants: [][]string{{"help", "--dev"}, {"--dev", "--help"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := regexp.MustCompile(c.want)
			for _, v := range c.variants {
				dir := t.TempDir()
				if c.setup != nil {
					c.setup(dir)
				}
				args := make([]string, len(v))
				for i, a := range v {
					switch a {
					case "D":
						a = dir
					case "B":
						a = filepath.Join(dir, "backup.db")
					case "BRANDS":
						a = brands
					}
					args[i] = a
				}
				var out bytes.Buffer
				err := run(args, &out)
				got := out.String()
				if c.fail {
					if err == nil || !want.MatchString(err.Error()) {
						t.Errorf("guichet %q: %v, want an error matching %s", v, err, c.want)
					}
					continue
				}
				if err != nil || !want.MatchString(got) {
					t.Errorf("guichet %q = %q, %v; want %s", v, got, err, c.want)
				}
			}
		})
	}
}

// The commands listed by `guichet help` are the ones TestFlagsAnywhere runs.
func TestFlagsAnywhereCoversEveryCommand(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"help"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^  ([a-z-]+)`).FindAllStringSubmatch(commands, -1) {
		if !strings.Contains("serve migrate check-config outbox backup import-policies maintenance tokens staff clients oidc version help", m[1]) {
			t.Errorf("command %s is not in TestFlagsAnywhere", m[1])
		}
	}
}
