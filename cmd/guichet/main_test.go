package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"guichet/internal/app"
	"guichet/internal/brand"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

// captureStderr sends the commands' summaries (stderr) to a buffer it
// returns, until the test ends.
func captureStderr(t *testing.T) *bytes.Buffer {
	var b bytes.Buffer
	stderr = &b
	t.Cleanup(func() { stderr = os.Stderr })
	return &b
}

// openApp opens the configuration's store (closed when the test ends) and
// loads its brands, as the commands do: for checking what a command did.
func openApp(t *testing.T, cfg app.Config) (*store.DB, *brand.Registry) {
	t.Helper()
	db, err := app.OpenStore(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	reg, err := app.LoadBrands(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return db, reg
}

func TestHelpListsEveryCommand(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"serve", "--help"}} {
		var out bytes.Buffer
		if err := run(args, &out); err != nil {
			t.Fatalf("guichet %v: %v", args, err)
		}
		for _, want := range []string{"serve", "migrate", "migrate --status", "check-config", "outbox list", "outbox retry ID",
			"maintenance on [--brand B] [--until RFC3339]", "maintenance off [--brand B]", "maintenance status",
			"backup FILE", "import-policies [--dry-run] FILE.csv", "tokens issue --brand B", "tokens issue --csv FILE", "version", "-data-dir", "-tls-key"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("guichet %v does not list %q:\n%s", args, want, out.String())
			}
		}
	}
	if err := run([]string{"frobnicate"}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "guichet help") {
		t.Fatalf("unknown command: %v", err)
	}
}

// TestEveryVariableHasAFlag reads the variables internal/app's ConfigFromEnv
// reads and wants each as a flag (GUICHET_DATA_DIR is --data-dir) and in the
// README.
func TestEveryVariableHasAFlag(t *testing.T) {
	src, err := os.ReadFile("../../internal/app/app.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]bool{}
	var out bytes.Buffer
	_ = run([]string{"help"}, &out)
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(out.String(), -1) {
		flags[m[1]] = true
	}
	vars := regexp.MustCompile(`get\("(GUICHET_[A-Z_]+)"`).FindAllStringSubmatch(string(src), -1)
	if len(vars) < 10 {
		t.Fatalf("found %d variables in ConfigFromEnv: the pattern no longer matches app.go", len(vars))
	}
	for _, v := range vars {
		name := strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(v[1], "GUICHET_")), "_", "-")
		if !flags[name] && !noFlag[v[1]] {
			t.Errorf("%s has no flag --%s", v[1], name)
		}
		if !bytes.Contains(readme, []byte("`"+v[1])) {
			t.Errorf("README.md does not document %s", v[1])
		}
	}
}

// noFlag lists the variables that have no flag on purpose.
var noFlag = map[string]bool{
	"GUICHET_TRUST_PROXY": true, // replaced by GUICHET_TRUSTED_PROXIES, and refused
	"GUICHET_STAFF_KEY":   true, // a secret: not on the command line
	"GUICHET_OIDC_KEY":    true, // a secret: not on the command line
}

func TestBackupCommand(t *testing.T) {
	t.Setenv("GUICHET_DATABASE_URL", "")
	dir := t.TempDir()
	dest := filepath.Join(t.TempDir(), "guichet-backup.db")
	var out bytes.Buffer
	if err := run([]string{"migrate", "--data-dir", dir}, &out); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run([]string{"backup", "--data-dir", dir, dest}, &out); err != nil || !strings.Contains(out.String(), dest) {
		t.Fatalf("backup: %v %q", err, out.String())
	}
	db, err := store.OpenSQLiteFile(t.Context(), dest)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	err = db.QueryRow(t.Context(), "SELECT COUNT(*) FROM schema_migrations").Scan(&n)
	db.Close()
	if err != nil || n == 0 {
		t.Fatalf("the backup holds %d migrations (%v)", n, err)
	}
	if err := run([]string{"backup", "--data-dir", dir, dest}, &out); err == nil || !strings.Contains(err.Error(), "not overwritten") {
		t.Fatalf("backup onto an existing file: %v", err)
	}
	if err := run([]string{"backup", "--data-dir", dir}, &out); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Fatalf("backup without FILE: %v", err)
	}
	err = run([]string{"backup", "--database-url", "postgres://guichet@db.invalid/guichet", filepath.Join(dir, "pg")}, &out)
	if err == nil || !strings.Contains(err.Error(), "pg_dump") {
		t.Fatalf("backup on PostgreSQL: %v", err)
	}
}

// TestMigrateStatus: `migrate --status` lists every migration pending on a
// new database and changes nothing, then applied after `migrate`, and names
// a version only a newer binary knows; on SQLite and PostgreSQL.
func TestMigrateStatus(t *testing.T) {
	storetest.Each(t, func(t *testing.T, migrated *store.DB) {
		flags := []string{"--data-dir", t.TempDir()}
		t.Setenv("GUICHET_DATABASE_URL", "")
		if migrated.Dialect == store.Postgres {
			flags = []string{"--database-url", storetest.PostgresURL(t)} // an empty database of its own
		}
		migs, err := store.Migrations()
		if err != nil {
			t.Fatal(err)
		}
		status := func() string {
			t.Helper()
			var out bytes.Buffer
			if err := run(append([]string{"migrate", "--status"}, flags...), &out); err != nil {
				t.Fatalf("migrate --status: %v", err)
			}
			return out.String()
		}
		last := migs[len(migs)-1]
		lastLine := regexp.MustCompile(fmt.Sprintf(`(?m)^%04d_%s +(pending|applied \S+)$`, last.Version, last.Name))
		if out := status(); !strings.Contains(out, fmt.Sprintf("0 applied, %d pending", len(migs))) || !strings.Contains(lastLine.FindString(out), "pending") {
			t.Fatalf("on a new database:\n%s", out)
		}
		if out := status(); !strings.Contains(out, fmt.Sprintf("0 applied, %d pending", len(migs))) {
			t.Fatalf("--status applied migrations:\n%s", out)
		}
		if err := run(append([]string{"migrate"}, flags...), &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		out := status()
		if !strings.Contains(out, fmt.Sprintf("%d applied, 0 pending", len(migs))) || !strings.Contains(lastLine.FindString(out), "applied 20") {
			t.Fatalf("after migrate:\n%s", out)
		}
		cfg := app.Config{DataDir: flags[1]}
		if migrated.Dialect == store.Postgres {
			cfg = app.Config{DatabaseURL: flags[1]}
		}
		db, _ := openApp(t, cfg)
		if _, err := db.Exec(t.Context(), "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", 9999, "future", 1); err != nil {
			t.Fatal(err)
		}
		if out := status(); !strings.Contains(out, "9999") || !strings.Contains(out, "applied by a newer version") {
			t.Fatalf("a newer binary's migration is not named:\n%s", out)
		}
	})
}

// TestDevAdminListenerTakesAFreePort: two --dev instances on one machine both
// start (each admin listener on a free port) unless the operator chose the
// address; outside --dev the documented default stays.
func TestDevAdminListenerTakesAFreePort(t *testing.T) {
	noEnv := func(string) (string, bool) { return "", false }
	cases := []struct {
		name string
		args []string
		env  func(string) (string, bool)
		want string
	}{
		{"dev, nothing chosen", []string{"--dev"}, noEnv, "127.0.0.1:0"},
		{"dev, flag", []string{"--dev", "--admin-addr", "127.0.0.1:9191"}, noEnv, "127.0.0.1:9191"},
		// The variable was read by ConfigFromEnv already: left as it is.
		{"dev, variable", []string{"--dev"}, func(k string) (string, bool) { return "127.0.0.1:9292", k == "GUICHET_ADMIN_ADDR" }, "127.0.0.1:9090"},
		{"production", nil, noEnv, "127.0.0.1:9090"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := app.Config{AdminAddr: "127.0.0.1:9090"} // ConfigFromEnv's default
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			fs.BoolVar(&cfg.Dev, "dev", false, "")
			fs.StringVar(&cfg.AdminAddr, "admin-addr", cfg.AdminAddr, "")
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			devAdminAddr(&cfg, fs, c.env)
			if cfg.AdminAddr != c.want {
				t.Fatalf("admin address %q, want %q", cfg.AdminAddr, c.want)
			}
		})
	}
}

// TestCheckConfigSaysWhichBrands runs `guichet check-config` away from the
// repository: without GUICHET_BRANDS_DIR it checks the embedded sample
// brands and says so; a directory given wins and is named.
func TestCheckConfigSaysWhichBrands(t *testing.T) {
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	t.Setenv("GUICHET_BRANDS_DIR", "")
	var out bytes.Buffer
	if err := run([]string{"check-config"}, &out); err != nil || out.String() != "embedded sample brands: 5 brands valid\n" {
		t.Fatalf("check-config without GUICHET_BRANDS_DIR = %q, %v", out.String(), err)
	}
	dir := filepath.Join(repo, "../../config/brands")
	out.Reset()
	if err := run([]string{"check-config", "--brands-dir", dir}, &out); err != nil || out.String() != dir+": 5 brands valid\n" {
		t.Fatalf("check-config --brands-dir = %q, %v", out.String(), err)
	}
}

// TestImportPoliciesCommand: a bad file prints `line N: column: problem`,
// fails and writes nothing; --dry-run counts without writing; a good file
// prints the counts, twice the same file changes nothing.
func TestImportPoliciesCommand(t *testing.T) {
	t.Setenv("GUICHET_DATABASE_URL", "")
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	header := "brand,policy_number,kind,province,role,first_name,last_name,date_of_birth,postal_code,driver_licence,licence_province,email,cell_phone,pin,ubi,status\n"
	good := write("good.csv", header+"belair,BEL-1234,auto,qc,holder,Jean,Côté,1980-04-12,H2X 1Y4,,,jean@example.com,,,false,active\n")
	bad := write("bad.csv", header+"belair,BEL-1234,car,qc,holder,Jean,Côté,1980-04-12,H2X 1Y4,,,,,,,\n")
	var out bytes.Buffer
	err := run([]string{"import-policies", "--data-dir", dir, bad}, &out)
	if err == nil || !strings.Contains(out.String(), "line 2: kind: want home or auto") {
		t.Fatalf("bad file: %v %q", err, out.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import-policies", "--dry-run", "--data-dir", dir, good}, "1 rows: 1 added, 0 updated, 0 unchanged (dry run: nothing written)\n"},
		{[]string{"import-policies", "--data-dir", dir, good}, "1 rows: 1 added, 0 updated, 0 unchanged\n"},
		{[]string{"import-policies", "--data-dir", dir, good}, "1 rows: 0 added, 0 updated, 1 unchanged\n"},
	} {
		out.Reset()
		if err := run(c.args, &out); err != nil || out.String() != c.want {
			t.Fatalf("guichet %v = %q, %v; want %q", c.args, out.String(), err, c.want)
		}
	}
	if err := run([]string{"import-policies", "--data-dir", dir}, &out); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Fatalf("without FILE: %v", err)
	}
}
