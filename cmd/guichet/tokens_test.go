package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"guichet/internal/app"
	"guichet/internal/testenv"
)

// tokenPeople are the policy records the token commands issue for.
const tokenPeople = "brand,policy_number,kind,province,role,first_name,last_name,date_of_birth,postal_code,driver_licence,licence_province,email,cell_phone,pin,ubi,status\n" +
	"belair,TOK0001,auto,on,holder,Théo,Jeton,1985-03-14,M5V 2T6,,,theo@example.com,,,false,active\n" +
	"belair,TOK0002,home,on,holder,Tina,Prise,1985-03-14,M5V 2T6,,,tina@example.com,,,false,active\n" +
	"belair,TOK0005,home,on,holder,Carl,Annule,1985-03-14,M5V 2T6,,,carl@example.com,,,false,cancelled\n"

var linkPattern = regexp.MustCompile(`^https://[a-z0-9.-]+/registration/link\?token=[A-Za-z0-9_-]{43}&src=(edoc|BA|mrkt)&lang=(en|fr)$`)

// TestTokensIssueCommand runs `guichet tokens issue` on SQLite and
// PostgreSQL: one token, the --dev link, the refusals, and campaign files
// (one transaction: any bad row, nothing issued, every problem with its
// line).
func TestTokensIssueCommand(t *testing.T) {
	testenv.EachURL(t, false, func(t *testing.T, url string) {
		t.Setenv("GUICHET_DATABASE_URL", url)
		t.Setenv("GUICHET_DEV", "")
		testTokensIssue(t, t.TempDir())
	})
}

func testTokensIssue(t *testing.T, dir string) {
	write := func(name, body string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var out bytes.Buffer
	errOut := captureStderr(t)
	if err := run([]string{"import-policies", "--data-dir", dir, write("people.csv", tokenPeople)}, &out); err != nil {
		t.Fatal(err)
	}
	tokens := func() int {
		t.Helper()
		a, err := app.OpenStore(t.Context(), app.Config{DataDir: dir, DatabaseURL: os.Getenv("GUICHET_DATABASE_URL")})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		var n int
		if err := a.QueryRow(t.Context(), "SELECT COUNT(*) FROM email_tokens").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	issue := func(args ...string) (string, string, error) {
		out.Reset()
		errOut.Reset()
		err := run(append([]string{"tokens", "issue", "--data-dir", dir}, args...), &out)
		return out.String(), errOut.String(), err
	}

	link, summary, err := issue("--brand", "belair", "--policy", "tok-0001", "--email", "Theo@Example.com", "--source", "edoc")
	if err != nil || !linkPattern.MatchString(strings.TrimSpace(link)) || !strings.Contains(link, "src=edoc&lang=en") {
		t.Fatalf("link %q, %v", link, err)
	}
	if !strings.HasPrefix(summary, "token ") || !strings.Contains(summary, "theo@example.com (edoc)") || strings.Count(summary, "\n") != 1 {
		t.Fatalf("summary %q", summary)
	}
	link, summary, err = issue("--dev", "--addr", "127.0.0.1:18080", "--brand", "belair", "--policy", "TOK0002",
		"--email", "tina@example.com", "--source", "mrkt", "--language", "fr", "--send", "--days", "3")
	if err != nil || !strings.HasPrefix(link, "http://belair.localhost:18080/registration/link?token=") ||
		!strings.HasSuffix(link, "&src=mrkt&lang=fr\n") || !strings.HasSuffix(summary, ", invitation queued\n") {
		t.Fatalf("dev link %q %q, %v", link, summary, err)
	}
	// An operator schedules (or, for a test, backdates) a token.
	link, summary, err = issue("--brand", "belair", "--policy", "TOK0002", "--email", "tina@example.com", "--source", "BA",
		"--days", "3", "--start", "2026-01-01T09:00:00-05:00")
	if err != nil || !linkPattern.MatchString(strings.TrimSpace(link)) ||
		!strings.Contains(summary, "works 2026-01-01T14:00:00Z to 2026-01-04T14:00:00Z\n") {
		t.Fatalf("backdated %q %q, %v", link, summary, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--brand", "belair", "--policy", "TOK0001", "--email", "theo@example.com", "--source", "sms"}, "source must be edoc, BA or mrkt"},
		{[]string{"--brand", "belair", "--policy", "TOK0001", "--email", "nobody@example.com", "--source", "BA"}, "no insured person"},
		{[]string{"--brand", "belair", "--policy", "TOK0005", "--email", "carl@example.com", "--source", "BA"}, "not active"},
		{[]string{"--brand", "acme", "--policy", "TOK0001", "--email", "theo@example.com", "--source", "BA"}, "unknown brand"},
		{[]string{"--brand", "belair", "--email", "theo@example.com"}, "missing --policy, --source"},
		{[]string{"--brand", "belair", "--policy", "TOK0001", "--email", "theo@example.com", "--source", "BA", "--start", "tomorrow"}, "--start"},
		{[]string{"--brand", "belair", "--policy", "TOK0001", "--email", "theo@example.com", "--source", "BA", "--days", "400"}, "--days 400"},
		{[]string{"--csv", "x.csv", "--brand", "belair"}, "--brand is not allowed"},
		{[]string{"--brand", "belair", "--policy", "TOK0001", "--email", "theo@example.com", "--source", "BA", "--send",
			"--start", "2026-01-01T09:00:00Z", "--days", "1"}, "expired already: nothing to send"},
	} {
		if stdout, _, err := issue(c.args...); err == nil || !strings.Contains(err.Error(), c.want) || stdout != "" {
			t.Errorf("%v: %q, %v; want an error with %q", c.args, stdout, err, c.want)
		}
	}
	if err := run([]string{"tokens"}, &out); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Fatalf("tokens: %v", err)
	}
	if n := tokens(); n != 3 {
		t.Fatalf("%d tokens, want 3", n)
	}

	// A campaign with bad rows: every problem with its line, nothing issued.
	bad := write("bad.csv", "email,brand,policy_number,source\n"+
		"theo@example.com,belair,TOK0001,edoc\n"+
		"tina@example.com,belair,TOK0002,EDOC\n"+
		"not-an-email,belair,TOK0002,BA\n"+
		"nobody@example.com,belair,TOK0001,mrkt\n"+
		"carl@example.com,belair,TOK0005,BA\n")
	stdout, _, err := issue("--csv", bad, "--send")
	wantLines := []string{"line 3: source: source must be edoc, BA or mrkt", "line 4: email: not a valid email address"}
	if err == nil || !strings.Contains(err.Error(), "2 problems, nothing issued") || stdout != strings.Join(wantLines, "\n")+"\n" {
		t.Fatalf("bad campaign: %q, %v", stdout, err)
	}
	// Rows that pass the checks but name nobody: refused in the transaction.
	nobody := write("nobody.csv", "brand,policy_number,email,source\n"+
		"belair,TOK0001,theo@example.com,edoc\n"+
		"belair,TOK0001,nobody@example.com,mrkt\n"+
		"belair,TOK0005,carl@example.com,BA\n")
	stdout, _, err = issue("--csv", nobody)
	if err == nil || !strings.Contains(stdout, "line 3: email: no insured person") || !strings.Contains(stdout, "line 4: policy_number: the policy is not active") {
		t.Fatalf("campaign naming nobody: %q, %v", stdout, err)
	}
	for name, body := range map[string]string{
		"missing column": "brand,policy_number,email\nbelair,TOK0001,theo@example.com\n",
		"unknown column": "brand,policy_number,email,source,colour\n",
		"no rows":        "brand,policy_number,email,source\n",
		"empty":          "",
	} {
		if _, _, err := issue("--csv", write("h.csv", body)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if n := tokens(); n != 3 {
		t.Fatalf("%d tokens after refused campaigns, want 3", n)
	}

	good := write("good.csv", "brand,policy_number,email,source\n"+
		"belair,TOK-0001,theo@example.com,edoc\n"+
		"belair,tok0002,TINA@example.com,BA\n")
	stdout, summary, err = issue("--csv", good, "--send")
	if err != nil || summary != "2 tokens issued, invitations queued\n" {
		t.Fatalf("campaign: %q %q %v", stdout, summary, err)
	}
	records, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(records) != 3 || strings.Join(records[0], ",") != "line,brand,policy_number,email,source,link" {
		t.Fatalf("campaign output %q: %v", stdout, err)
	}
	if records[1][0] != "2" || records[2][0] != "3" || records[2][3] != "tina@example.com" ||
		!linkPattern.MatchString(records[1][5]) || !strings.Contains(records[2][5], "&src=BA&") {
		t.Fatalf("campaign rows %q", records)
	}
	if n := tokens(); n != 5 {
		t.Fatalf("%d tokens, want 5", n)
	}
}
