package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"guichet/internal/app"
	"guichet/internal/testenv"
)

var setupLinkPattern = regexp.MustCompile(`^https://console\.example\.test/setup#([A-Za-z0-9_-]{43})$`)

// TestStaffCommand runs `guichet staff add|disable|list` on SQLite and
// PostgreSQL: the set-up link (and that it opens the set-up), the --dev
// link, the refusals, the list's statuses, the audit rows (actor cli).
func TestStaffCommand(t *testing.T) {
	testenv.EachURL(t, false, func(t *testing.T, url string) {
		t.Setenv("GUICHET_DATABASE_URL", url)
		t.Setenv("GUICHET_DEV", "")
		t.Setenv("GUICHET_CONSOLE_HOST", "console.example.test")
		testStaffCommand(t, t.TempDir())
	})
}

func testStaffCommand(t *testing.T, dir string) {
	ctx := t.Context()
	captureStderr(t)
	staff := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(append([]string{"staff"}, append(args, "--data-dir", dir)...), &out)
		return out.String(), err
	}
	out, err := staff("add", "Lee@Example.com", "--name", "Lee Agent", "--role", "agent", "--brands", "belair,intact")
	if err != nil {
		t.Fatal(err)
	}
	m := setupLinkPattern.FindStringSubmatch(strings.TrimSpace(out))
	if m == nil {
		t.Fatalf("link %q", out)
	}
	cfg := app.Config{DataDir: dir, DatabaseURL: os.Getenv("GUICHET_DATABASE_URL"), BrandsDir: ""}
	db, brands := openApp(t, cfg)
	svc, err := app.StaffService(ctx, cfg, db, brands, nil)
	if err != nil {
		t.Fatal(err)
	}
	info, err := svc.Setup(ctx, m[1])
	if err != nil || info.Email != "lee@example.com" || info.Name != "Lee Agent" {
		t.Fatalf("the printed link's set-up: %+v %v", info, err)
	}
	if _, err := staff("add", "sam@example.com", "--name", "Sam", "--role", "supervisor"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{
		{"add", "lee@example.com", "--name", "Again", "--role", "agent"},                  // exists
		{"add", "x@example.com", "--name", "X", "--role", "root"},                         // role
		{"add", "x@example.com", "--name", "X", "--role", "agent", "--brands", "nowhere"}, // brand
		{"add", "x@example.com", "--role", "agent"},                                       // name
		{"add", "--name", "X", "--role", "agent"},                                         // email
		{"disable", "nobody@example.com"},
		{"list", "extra"},
		{"remove", "lee@example.com"},
	} {
		if _, err := staff(bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if out, err := staff("disable", "SAM@example.com"); err != nil || !strings.Contains(out, "sam@example.com disabled") {
		t.Fatalf("disable: %q %v", out, err)
	}
	out, err = staff("list")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !regexp.MustCompile(`^lee@example\.com\s+Lee Agent\s+agent\s+belair,intact\s+set-up pending$`).MatchString(lines[1]) ||
		!regexp.MustCompile(`^sam@example\.com\s+Sam\s+supervisor\s+all\s+disabled$`).MatchString(lines[2]) {
		t.Fatalf("list:\n%s", out)
	}
	var n int
	_ = db.QueryRow(ctx, "SELECT COUNT(*) FROM audit_events WHERE actor = 'cli' AND event IN ('staff.add', 'staff.disable')").Scan(&n)
	if n != 3 {
		t.Fatalf("%d cli audit rows, want 3", n)
	}

	// --dev: the link on console.localhost at the server's port.
	t.Setenv("GUICHET_CONSOLE_HOST", "")
	if out, err := staff("add", "dev@example.com", "--name", "Dev", "--role", "admin", "--dev", "--addr", "127.0.0.1:8123"); err != nil ||
		!regexp.MustCompile(`^http://console\.localhost:8123/setup#[A-Za-z0-9_-]{43}\n$`).MatchString(out) {
		t.Fatalf("--dev link: %q %v", out, err)
	}
	if _, err := staff("add", "prod@example.com", "--name", "Prod", "--role", "admin"); err == nil || !strings.Contains(err.Error(), "GUICHET_CONSOLE_HOST") {
		t.Fatalf("no console host: %v", err)
	}
}
