package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Registrations of the kill -9 suite: bna's legacy registration (spec
// §2.4) by PIN, three POSTs: find (240, the options), the PIN, create
// (201). Each person is a policy of its own, imported with `guichet
// import-policies` as an insurer's file would be (docs/registration-demo.md
// has the demo people; these are n of the same kind as REG-0003).
const (
	killBrand    = "bna"
	killPIN      = "KL34MN56"
	killPassword = "Tournesol-Bleu-2026!"
)

func killPolicy(i int) string { return fmt.Sprintf("KIL-%04d", i) }
func killEmail(i int) string  { return fmt.Sprintf("kill-%04d@bna.example", i) }

// importKillPolicies writes n policies of bna (KIL-0001...) to a CSV file
// and imports it through the instances' database, once per run (a second
// import changes nothing).
func importKillPolicies(t *testing.T, n int) {
	t.Helper()
	var rows []string
	for i := 1; i <= n; i++ {
		rows = append(rows, fmt.Sprintf("%s,%s,home,on,holder,Kim,Tuer,1985-03-14,M5V 2T6,,,%s,,%s,false,active", killBrand, killPolicy(i), killEmail(i), killPIN))
	}
	importPolicies(t, rows)
}

// importPolicies imports rows of an insurer's policy file (the columns
// docs/design.md names) with `guichet import-policies`, as an
// operator does, into the instances' database.
func importPolicies(t *testing.T, rows []string) {
	t.Helper()
	csv := "brand,policy_number,kind,province,role,first_name,last_name,date_of_birth,postal_code,driver_licence,licence_province,email,cell_phone,pin,ubi,status\n" +
		strings.Join(rows, "\n") + "\n"
	file := filepath.Join(t.TempDir(), "policies.csv")
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setup.bin, "import-policies", file)
	cmd.Env = append(os.Environ(), "GUICHET_DATABASE_URL="+setup.databaseURL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("import-policies: %v %s", err, out)
	}
	t.Logf("import-policies: %s", strings.TrimSpace(string(out)))
}

// lostAnswer says a request may have reached an instance that died before
// answering: the connection to HAProxy closed without an answer (EOF, a
// reset). HAProxy usually answers such a request with 502; under 320
// concurrent calls some kills close the client's connection instead. A
// timeout is not one: the client's bound passed is a failure.
func lostAnswer(err error) bool {
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// registration outcomes, as the client saw them.
const (
	regCreated = "created"              // 201 on create
	regLost    = "lost-then-registered" // a step's answer lost (502), a fresh find says REGISTERED
	regFailed  = "failed"
)

// register runs one person's registration through the load balancer, the
// way a client that retries per HTTP semantics does. A POST is sent again
// only when the load balancer says no instance got it (503) or the server
// says it did nothing (429 BUSY: no hash budget, nothing counted), or, as a
// browser does, when the load balancer closed a reused connection without
// an answer (client.do). After a lost answer (502: the instance died with
// the request), or an unexpected answer to a step sent again (the first
// try may have been applied), no step is repeated: the client starts over
// with a fresh find, which is safe (a find only opens a new registration;
// the old one stays resumable until it expires), and which answers 200
// REGISTERED when the lost create had happened. It returns the outcome
// and, for a failure, why (each lost answer named).
func register(ctx context.Context, c *client, i int, steps func()) (string, string) {
	post := func(path, body string) (answer, error) {
		// BUSY and 503 are sent again until hangBound has passed: how long
		// the hash queue stays full depends on the machine, not the product.
		deadline := time.Now().Add(hangBound)
		for {
			a, err := c.json(ctx, setup.lb, "POST", path, body)
			steps()
			if lostAnswer(err) {
				return answer{status: 502}, nil // the same as HAProxy's 502: the answer was lost
			}
			retry := err == nil && (a.status == 503 || a.status == 429 && a.body["errorCode"] == "BUSY")
			if !retry || time.Now().After(deadline) {
				return a, err
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	number := strings.ReplaceAll(killPolicy(i), "-", "")
	find := fmt.Sprintf(`{"policyNumber":%q,"firstName":"Kim","lastName":"Tuer","dateOfBirth":"1985-03-14","postalCode":"M5V 2T6"}`, number)
	var lostAt []string // the steps whose answers were lost, in order
	// unclear says a step's answer does not tell what happened: lost, or
	// not the expected one after the step was sent again.
	unclear := func(step string, a answer, want int, resendsBefore int) bool {
		switch {
		case a.status == 502:
			lostAt = append(lostAt, step+" 502")
		case a.status != want && c.resends > resendsBefore:
			lostAt = append(lostAt, fmt.Sprintf("%s resent %d", step, a.status))
		default:
			return false
		}
		return true
	}
	// step posts a step after find: answered want, or unclear (start
	// over: again), or a failure and why.
	step := func(name, path, body string, want int) (again bool, failure string) {
		r := c.resends
		a, err := post(path, body)
		switch {
		case err != nil:
			return false, fmt.Sprintf("%s: %v (lost before: %v)", name, err, lostAt)
		case unclear(name, a, want, r):
			return true, ""
		case a.status != want:
			return false, fmt.Sprintf("%s: %d %v (lost before: %v)", name, a.status, a.body, lostAt)
		}
		return false, ""
	}
	for attempt := 0; attempt < 10; attempt++ {
		r := c.resends
		a, err := post("/api/v1/accounts/find", find)
		if err != nil {
			return regFailed, fmt.Sprintf("find: %v (lost before: %v)", err, lostAt)
		}
		if a.status == 200 && a.body["status"] == "REGISTERED" {
			if len(lostAt) > 0 {
				return regLost, ""
			}
			return regFailed, "registered before it registered"
		}
		if unclear("find", a, 240, r) {
			continue
		}
		if a.status != 240 {
			return regFailed, fmt.Sprintf("find: %d %v (lost before: %v)", a.status, a.body, lostAt)
		}
		id, _ := a.body["id"].(string)
		pinID := ""
		opts, _ := a.body["twoFactorValidations"].([]any)
		for _, o := range opts {
			if m, _ := o.(map[string]any); m["method"] == "PIN" {
				pinID, _ = m["id"].(string)
			}
		}
		if pinID == "" {
			return regFailed, fmt.Sprintf("find: no PIN option in %v", a.body)
		}
		again, failure := step("PIN", "/api/v1/registrations/"+id+"/validations/"+pinID+"/", `{"validationValue":"`+killPIN+`"}`, 200)
		if failure != "" {
			return regFailed, failure
		}
		if again {
			continue
		}
		again, failure = step("create", "/api/v1/accounts/"+id+"/create",
			`{"password":"`+killPassword+`","passwordConfirmation":"`+killPassword+`","termsAccepted":true}`, 201)
		if failure != "" {
			return regFailed, failure
		}
		if again {
			continue
		}
		return regCreated, ""
	}
	return regFailed, fmt.Sprintf("ten answers lost: %v", lostAt)
}

// checkRegistrationRows reads the database: for the n imported people, no
// half-written account or registration and no duplicate. Every account
// has its password, its insured person's link, its policy link and the
// audit event of its creation; every closed registration has its account;
// every other one is still resumable or expires (expires_at set); one
// account per person at most. It returns how many accounts there are.
func checkRegistrationRows(t *testing.T, n int) int {
	t.Helper()
	ctx := context.Background()
	db := openDB(t)
	var accounts, emailDup int
	if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM accounts WHERE brand = ? AND email_normalized LIKE 'kill-%'`, killBrand).Scan(&accounts); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT email_normalized FROM accounts WHERE brand = ?
		GROUP BY email_normalized HAVING COUNT(*) > 1) d`, killBrand).Scan(&emailDup); err != nil {
		t.Fatal(err)
	}
	if emailDup != 0 {
		t.Errorf("%d emails with more than one account", emailDup)
	}
	checks := []struct{ what, query string }{
		{"accounts without a password", `SELECT COUNT(*) FROM accounts a WHERE a.brand = ? AND a.email_normalized LIKE 'kill-%' AND a.password_hash = ''`},
		{"accounts without their insured person", `SELECT COUNT(*) FROM accounts a WHERE a.brand = ? AND a.email_normalized LIKE 'kill-%'
			AND NOT EXISTS (SELECT 1 FROM insured_people ip WHERE ip.account_id = a.id)`},
		{"accounts with more than one insured person", `SELECT COUNT(*) FROM accounts a WHERE a.brand = ? AND a.email_normalized LIKE 'kill-%'
			AND (SELECT COUNT(*) FROM insured_people ip WHERE ip.account_id = a.id) > 1`},
		{"accounts without their policy", `SELECT COUNT(*) FROM accounts a WHERE a.brand = ? AND a.email_normalized LIKE 'kill-%'
			AND NOT EXISTS (SELECT 1 FROM account_policies ap JOIN policies p ON p.id = ap.policy_id WHERE ap.account_id = a.id AND p.number LIKE 'KIL%')`},
		{"accounts without the audit of their creation", `SELECT COUNT(*) FROM accounts a WHERE a.brand = ? AND a.email_normalized LIKE 'kill-%'
			AND (SELECT COUNT(*) FROM audit_events e WHERE e.account_id = a.id AND e.event = 'registration.create' AND e.outcome = 'ok') <> 1`},
		{"closed registrations without the person's account", `SELECT COUNT(*) FROM registrations r JOIN insured_people ip ON ip.id = r.person_id
			JOIN policies p ON p.id = ip.policy_id WHERE r.brand = ? AND p.number LIKE 'KIL%' AND r.state = 'closed' AND ip.account_id IS NULL`},
		{"closed registrations without their close time", `SELECT COUNT(*) FROM registrations r JOIN insured_people ip ON ip.id = r.person_id
			JOIN policies p ON p.id = ip.policy_id WHERE r.brand = ? AND p.number LIKE 'KIL%' AND r.state = 'closed' AND r.closed_at = 0`},
		{"open registrations that never expire", `SELECT COUNT(*) FROM registrations r JOIN insured_people ip ON ip.id = r.person_id
			JOIN policies p ON p.id = ip.policy_id WHERE r.brand = ? AND p.number LIKE 'KIL%' AND r.state <> 'closed' AND r.expires_at <= r.created_at`},
		{"persons with more than one closed registration", `SELECT COUNT(*) FROM (SELECT r.person_id FROM registrations r JOIN insured_people ip ON ip.id = r.person_id
			JOIN policies p ON p.id = ip.policy_id WHERE r.brand = ? AND p.number LIKE 'KIL%' AND r.state = 'closed' GROUP BY r.person_id HAVING COUNT(*) > 1) d`},
	}
	for _, c := range checks {
		var k int
		if err := db.QueryRow(ctx, c.query, killBrand).Scan(&k); err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if k != 0 {
			t.Errorf("%d %s", k, c.what)
		}
	}
	var open, closed int
	if err := db.QueryRow(ctx, `SELECT COUNT(*) FILTER (WHERE r.state <> 'closed'), COUNT(*) FILTER (WHERE r.state = 'closed')
		FROM registrations r JOIN insured_people ip ON ip.id = r.person_id JOIN policies p ON p.id = ip.policy_id
		WHERE r.brand = ? AND p.number LIKE 'KIL%'`, killBrand).Scan(&open, &closed); err != nil {
		t.Fatal(err)
	}
	t.Logf("database: %d accounts of %d people, registrations %d closed, %d left open (resumable until they expire)", accounts, n, closed, open)
	return accounts
}

// regTally counts the registrations' outcomes.
type regTally struct {
	mu       sync.Mutex
	outcomes map[string]int
	why      []string
}

func (r *regTally) add(outcome, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outcomes[outcome]++
	if why != "" && len(r.why) < 10 {
		r.why = append(r.why, why)
	}
}
