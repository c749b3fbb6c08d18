package console_test

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/audit"
	"guichet/internal/console"
	"guichet/internal/maintenance"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

const importFile = accounttest.PolicyHeader +
	"belair,BEL9999,auto,on,holder,Nina,Neuve,1985-02-03,M5V 2T6,,,nina@example.com,,,false,active\n"

// call is one console call and the least role that may make it.
type call struct {
	name, method, path string
	body               any
	min                staff.Role
}

func (e *env) calls() []call {
	id := e.alex.ID
	c := "/api/console/v1/customers/" + id
	return []call{
		{"search", "GET", "/api/console/v1/customers?q=alex", nil, staff.RoleAgent},
		{"view", "GET", c, nil, staff.RoleAgent},
		{"unlock", "POST", c + "/unlock", nil, staff.RoleAgent},
		{"disable", "POST", c + "/disable", nil, staff.RoleAgent},
		{"enable", "POST", c + "/enable", nil, staff.RoleAgent},
		{"temporary show", "POST", c + "/temporary-password", map[string]string{"delivery": "show"}, staff.RoleAgent},
		{"temporary email", "POST", c + "/temporary-password", map[string]string{"delivery": "email"}, staff.RoleAgent},
		{"reset email", "POST", c + "/reset-email", nil, staff.RoleAgent},
		{"invitation", "POST", c + "/invitation", map[string]string{"policyNumber": "BEL-5678", "source": "edoc"}, staff.RoleAgent},
		{"import dry run", "POST", "/api/console/v1/policies/import?dryRun=true", importFile, staff.RoleSupervisor},
		{"maintenance on", "POST", "/api/console/v1/maintenance", map[string]any{"brand": "belair", "on": true}, staff.RoleSupervisor},
		{"maintenance off", "POST", "/api/console/v1/maintenance", map[string]any{"brand": "belair", "on": false}, staff.RoleSupervisor},
		{"audit export", "GET", "/api/console/v1/audit.csv?from=2000-01-01&to=2000-06-01", nil, staff.RoleSupervisor},
		{"staff list", "GET", "/api/console/v1/staff", nil, staff.RoleAdmin},
		{"staff add", "POST", "/api/console/v1/staff", map[string]any{"email": "new@console.example", "name": "New One", "role": "agent", "brands": []string{"belair"}}, staff.RoleAdmin},
		{"staff disable", "POST", "/api/console/v1/staff/" + e.member.ID + "/disable", nil, staff.RoleAdmin},
		{"clients list", "GET", "/api/console/v1/clients", nil, staff.RoleAdmin},
		{"client add", "POST", "/api/console/v1/clients", map[string]any{"brand": "belair", "name": "App", "type": "public", "redirectUris": []string{"https://app.example/cb"}}, staff.RoleAdmin},
		{"client disable", "POST", "/api/console/v1/clients/" + e.client.ID + "/disable", nil, staff.RoleAdmin},
	}
}

func TestRolesTimesActions(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, p := range []staff.Principal{e.agent(), e.supervisor(), e.admin()} {
			for _, c := range e.calls() {
				t.Run(string(p.Role)+"/"+c.name, func(t *testing.T) {
					got := e.as(&p, c.method, c.path, c.body)
					if !p.Role.AtLeast(c.min) {
						if got.Status != http.StatusForbidden || got.Code(t) != "FORBIDDEN_ROLE" {
							t.Fatalf("refused role answered %d %s", got.Status, got.Body)
						}
						rows := e.auditRows(p.Actor())
						if len(rows) == 0 || rows[len(rows)-1] != string(audit.ConsoleForbidden)+" forbidden_role " {
							t.Fatalf("no audit row of the refusal: %v", rows)
						}
						return
					}
					if got.Status != http.StatusOK {
						t.Fatalf("allowed role answered %d %s", got.Status, got.Body)
					}
				})
			}
		}
	})
}

func TestBrandScoping(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		agent := e.agent() // belair only
		c := "/api/console/v1/customers/" + e.sam.ID
		for _, x := range []struct {
			method, path string
			body         any
		}{
			{"GET", c, nil}, {"POST", c + "/unlock", nil}, {"POST", c + "/disable", nil}, {"POST", c + "/enable", nil},
			{"POST", c + "/temporary-password", map[string]string{"delivery": "show"}}, {"POST", c + "/reset-email", nil},
			{"POST", c + "/invitation", map[string]string{"policyNumber": "123456789", "source": "edoc"}},
		} {
			before := len(e.auditRows(agent.Actor()))
			got := e.as(&agent, x.method, x.path, x.body)
			if got.Status != http.StatusForbidden || got.Code(t) != "FORBIDDEN_BRAND" {
				t.Fatalf("%s %s: %d %s", x.method, x.path, got.Status, got.Body)
			}
			rows := e.auditRows(agent.Actor())
			if len(rows) != before+1 || rows[len(rows)-1] != string(audit.ConsoleForbidden)+" forbidden_brand "+e.sam.ID {
				t.Fatalf("%s %s: audit %v", x.method, x.path, rows)
			}
		}
		if got := e.account(e.sam); got.Status != account.Active || !got.DisabledAt.IsZero() {
			t.Fatalf("the other brand's customer changed: %+v", got)
		}
		// Search never returns another brand's customers, even asked.
		for _, q := range []string{"q=sam.roy", "q=sam&brand=intact", "q=123456789"} {
			got := e.as(&agent, "GET", "/api/console/v1/customers?"+q, nil)
			if got.Status != 200 || len(got.JSON(t)["customers"].([]any)) != 0 {
				t.Fatalf("%s: %d %s", q, got.Status, got.Body)
			}
		}
		sup := e.supervisor() // every brand
		e.as(&sup, "GET", c, nil).Expect(t, 200, "")
		// A supervisor of belair only may not turn intact's maintenance on,
		// nor import intact's policies, nor export intact's audit.
		sup.Brands = []string{"belair"}
		if got := e.as(&sup, "POST", "/api/console/v1/maintenance", map[string]any{"brand": "intact", "on": true}); got.Code(t) != "FORBIDDEN_BRAND" {
			t.Fatalf("maintenance of another brand: %d %s", got.Status, got.Body)
		}
		if got := e.as(&sup, "POST", "/api/console/v1/policies/import?dryRun=false", people); got.Code(t) != "FORBIDDEN_BRAND" {
			t.Fatalf("import of another brand's rows: %d %s", got.Status, got.Body)
		}
		if got := e.as(&sup, "GET", "/api/console/v1/audit.csv?from=2000-01-01&to=2000-02-01&brand=intact", nil); got.Code(t) != "FORBIDDEN_BRAND" {
			t.Fatalf("audit of another brand: %d %s", got.Status, got.Body)
		}
	})
}

func TestFreshFactor(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		p := e.admin()
		e.Clock.Advance(staff.FreshFactor)
		if got := e.as(&p, "POST", "/api/console/v1/customers/"+e.alex.ID+"/disable", nil); got.Status != 200 {
			t.Fatalf("factor exactly %v old: %d %s", staff.FreshFactor, got.Status, got.Body)
		}
		e.Clock.Advance(time.Millisecond)
		for _, c := range e.calls() {
			got := e.as(&p, c.method, c.path, c.body)
			if c.method == "GET" {
				if got.Status != 200 {
					t.Fatalf("%s reads with a stale factor: %d %s", c.name, got.Status, got.Body)
				}
				continue
			}
			if got.Status != http.StatusUnauthorized || got.Code(t) != "REAUTH_REQUIRED" {
				t.Fatalf("%s with a stale factor: %d %s", c.name, got.Status, got.Body)
			}
		}
		if got := e.account(e.alex); got.DisabledAt.IsZero() {
			t.Fatal("the refused enable changed the account")
		}
		for _, c := range e.calls() {
			if got := e.as(nil, c.method, c.path, c.body); got.Status != 401 || got.Code(t) != "SIGN_IN_REQUIRED" {
				t.Fatalf("%s signed out: %d %s", c.name, got.Status, got.Body)
			}
		}
	})
}

func TestAuditRowPerAction(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		p := e.admin()
		want := map[string]audit.Name{
			"view": audit.ConsoleCustomerView, "unlock": audit.ConsoleUnlock, "disable": audit.AccountDisable,
			"enable": audit.AccountEnable, "temporary show": audit.ConsoleTemporaryPassword, "temporary email": audit.ConsoleTemporaryPassword,
			"reset email": audit.ConsoleResetEmail, "invitation": audit.ConsoleInvitation, "import dry run": audit.ConsolePolicyImport,
			"maintenance on": audit.MaintenanceOn, "maintenance off": audit.MaintenanceOff, "audit export": audit.ConsoleAuditExport,
			"staff add": audit.StaffAdd, "staff disable": audit.StaffDisable,
			"client add": audit.OIDCClientAdd, "client disable": audit.OIDCClientDisable,
		}
		for _, c := range e.calls() {
			before := e.auditRows(p.Actor())
			if got := e.as(&p, c.method, c.path, c.body); got.Status != 200 {
				t.Fatalf("%s: %d %s", c.name, got.Status, got.Body)
			}
			after := e.auditRows(p.Actor())
			if c.name == "search" || c.name == "staff list" || c.name == "clients list" {
				continue
			}
			fresh := after[len(before):]
			if !slices.ContainsFunc(fresh, func(r string) bool { return strings.HasPrefix(r, string(want[c.name])+" ") }) {
				t.Fatalf("%s: no %s row with actor %s: %v", c.name, want[c.name], p.Actor(), fresh)
			}
		}
	})
}

func TestSearchByEachKey(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		other := e.create("belair", "zoe@example.com", "Zoé", "Lambert", "5145550000", "BEL5678")
		p := e.admin()
		for _, c := range []struct {
			q    string
			want []string
		}{
			{"alex.martin@example.com", []string{e.alex.ID}},
			{"ALEX.MAR", []string{e.alex.ID}},
			{"Alex", []string{e.alex.ID}},
			{"martin", []string{e.alex.ID}},
			{"alex martin", []string{e.alex.ID}},
			{"BEL-1234", []string{e.alex.ID}},
			{"bel1234", []string{e.alex.ID}},
			{"(416) 555-0123", []string{e.alex.ID}},
			{"+1 416 555 0123", []string{e.alex.ID}},
			{"123456789", []string{e.sam.ID}},
			{"Lam", []string{other.ID}},
			{"%a", nil},
			{"a_", nil},
			{"nobody", nil},
		} {
			got := e.as(&p, "GET", "/api/console/v1/customers?q="+url.QueryEscape(c.q), nil)
			if got.Status != 200 {
				t.Fatalf("%q: %d %s", c.q, got.Status, got.Body)
			}
			var ids []string
			for _, x := range got.JSON(t)["customers"].([]any) {
				ids = append(ids, x.(map[string]any)["id"].(string))
			}
			if !slices.Equal(ids, c.want) {
				t.Fatalf("%q found %v, want %v", c.q, ids, c.want)
			}
		}
		for _, q := range []string{"", "a", "+", "%20a%20"} {
			if got := e.as(&p, "GET", "/api/console/v1/customers?q="+q, nil); got.Status != 400 || got.Code(t) != "VALIDATION" {
				t.Fatalf("q=%q: %d %s", q, got.Status, got.Body)
			}
		}
	})
}

func TestCustomerView(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		p := e.agent()
		e.customerCall("belair", "/api/v1/accounts/"+e.alex.ID+"/authentication", map[string]string{"password": "wrong-one"}).Expect(t, 400, "")
		got := e.as(&p, "GET", "/api/console/v1/customers/"+e.alex.ID, nil).Expect(t, 200, "")
		m := got.JSON(t)
		if s := m["lastSignIns"].([]any); len(s) != 0 {
			t.Fatalf("last sign-ins: %v", s)
		}
		if m["brand"] != "belair" || m["email"] != "Alex.Martin@example.com" || m["name"] != "Alex Martin" || m["status"] != "active" ||
			m["language"] != "en" || m["failedAttempts"] != float64(1) || m["locked"] != false {
			t.Fatalf("account: %s", got.Body)
		}
		if pol := m["policies"].([]any); len(pol) != 1 || pol[0].(map[string]any)["number"] != "BEL1234" {
			t.Fatalf("policies: %v", pol)
		}
		if ev := m["events"].([]any); len(ev) == 0 || ev[0].(map[string]any)["event"] != string(audit.LoginAuthentication) {
			t.Fatalf("events: %v", ev)
		}
		e.customerCall("belair", "/api/v1/accounts/"+e.alex.ID+"/authentication", map[string]string{"password": password}).Expect(t, 200, "")
		m = e.as(&p, "GET", "/api/console/v1/customers/"+e.alex.ID, nil).JSON(t)
		if s := m["lastSignIns"].([]any); len(s) != 1 || m["failedAttempts"] != float64(0) {
			t.Fatalf("after a sign-in: %v", m)
		}
		e.as(&p, "GET", "/api/console/v1/customers/unknown", nil).Expect(t, 404, "")
	})
}

func TestTemporaryPasswordWorksOnce(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		p := e.agent()
		path := "/api/console/v1/customers/" + e.alex.ID + "/temporary-password"
		e.as(&p, "POST", path, map[string]string{"delivery": "sms"}).Expect(t, 400, "VALIDATION")
		got := e.as(&p, "POST", path, map[string]string{"delivery": "show"})
		temp, _ := got.JSON(t)["temporaryPassword"].(string)
		if got.Status != 200 || len(temp) != 10 || strings.ContainsAny(temp, "01OIL") || got.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("show: %d %s", got.Status, got.Body)
		}
		if want := e.Clock.Now().Add(console.TemporaryTTL).UTC().Format(time.RFC3339); !strings.HasPrefix(got.JSON(t)["expiresAt"].(string), want[:19]) {
			t.Fatalf("expires %v, want %s", got.JSON(t)["expiresAt"], want)
		}
		if a := e.account(e.alex); a.Status != account.Temporary {
			t.Fatalf("status %s", a.Status)
		}
		// The customer's temporary-password step accepts it, then the reset
		// spends it: it works once.
		tp := "/api/v1/accounts/" + e.alex.ID + "/temporary"
		e.customerCall("belair", tp, map[string]string{"tempPassword": temp}).Expect(t, 200, "")
		if err := e.accounts.ResetWithTemporary(t.Context(), "belair", e.alex.ID, temp, "Brand-New-Pass-7?", "198.51.100.7", nil); err != nil {
			t.Fatal(err)
		}
		e.customerCall("belair", tp, map[string]string{"tempPassword": temp}).Expect(t, 409, "")
		// Emailed: not answered, queued for the customer.
		got = e.as(&p, "POST", path, map[string]string{"delivery": "email"})
		if got.Status != 200 || got.JSON(t)["temporaryPassword"] != nil {
			t.Fatalf("email: %d %s", got.Status, got.Body)
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM outbox WHERE LOWER(recipient) = ? AND template = 'temporary-password'",
			"alex.martin@example.com"); n != 1 {
			t.Fatalf("outbox: %d", n)
		}
		// After 24 hours it no longer works.
		e.Clock.Advance(console.TemporaryTTL + time.Second)
		e.customerCall("belair", tp, map[string]string{"tempPassword": temp}).Expect(t, 409, "")
	})
}

func TestUnlockDisableEnable(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		p := e.agent()
		c := "/api/console/v1/customers/" + e.alex.ID
		if err := e.DB.InTx(ctx, func(tx *store.Tx) error { return account.Lock(ctx, tx, e.alex.ID, time.Time{}, e.Clock.Now()) }); err != nil {
			t.Fatal(err)
		}
		auth := "/api/v1/accounts/" + e.alex.ID + "/authentication"
		e.customerCall("belair", auth, map[string]string{"password": password}).Expect(t, 400, "")
		if got := e.as(&p, "POST", c+"/unlock", nil); got.Status != 200 || got.JSON(t)["locked"] != false || got.JSON(t)["status"] != "active" {
			t.Fatalf("unlock: %d %s", got.Status, got.Body)
		}
		e.customerCall("belair", auth, map[string]string{"password": password}).Expect(t, 200, "")
		if got := e.as(&p, "POST", c+"/disable", nil); got.Status != 200 || got.JSON(t)["disabled"] != true {
			t.Fatalf("disable: %d %s", got.Status, got.Body)
		}
		e.customerCall("belair", auth, map[string]string{"password": password}).Expect(t, 403, "3001")
		if got := e.as(&p, "POST", c+"/enable", nil); got.Status != 200 || got.JSON(t)["disabled"] != false {
			t.Fatalf("enable: %d %s", got.Status, got.Body)
		}
		e.customerCall("belair", auth, map[string]string{"password": password}).Expect(t, 200, "")
		rows := e.auditRows(p.Actor())
		want := []string{string(audit.ConsoleUnlock) + " ok " + e.alex.ID, string(audit.AccountDisable) + " ok " + e.alex.ID, string(audit.AccountEnable) + " ok " + e.alex.ID}
		if !slices.Equal(rows, want) {
			t.Fatalf("audit %v, want %v", rows, want)
		}
		if got := e.as(&p, "POST", c+"/unlock", nil); got.Status != 200 || e.auditRows(p.Actor())[3] != string(audit.ConsoleUnlock)+" unchanged "+e.alex.ID {
			t.Fatalf("unlock of an unlocked account: %d %v", got.Status, e.auditRows(p.Actor()))
		}
	})
}

func TestResetEmailAndInvitation(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		p := e.agent()
		c := "/api/console/v1/customers/" + e.alex.ID
		e.as(&p, "POST", c+"/reset-email", nil).Expect(t, 200, "")
		var data string
		if err := e.DB.QueryRow(ctx, "SELECT data FROM outbox WHERE template = 'reset-link' AND LOWER(recipient) = ?", "alex.martin@example.com").Scan(&data); err != nil ||
			!strings.Contains(data, "https://") || !strings.Contains(data, "/reset?token=") {
			t.Fatalf("reset link email: %q %v", data, err)
		}
		e.as(&p, "POST", c+"/invitation", map[string]string{"policyNumber": "BEL-5678", "source": "edoc"}).Expect(t, 200, "")
		var issuedBy string
		if err := e.DB.QueryRow(ctx, "SELECT issued_by FROM email_tokens WHERE email = ?", "alex.martin@example.com").Scan(&issuedBy); err != nil || issuedBy != p.Actor() {
			t.Fatalf("token issued by %q %v", issuedBy, err)
		}
		for _, x := range []struct {
			body   map[string]string
			status int
			code   string
		}{
			{map[string]string{"policyNumber": "BEL-5678", "source": "fax"}, 400, "VALIDATION"},
			{map[string]string{"policyNumber": "", "source": "edoc"}, 400, "VALIDATION"},
			{map[string]string{"policyNumber": "NOP0000", "source": "edoc"}, 404, "POLICY_NUMBER_NOT_FOUND"},
		} {
			if got := e.as(&p, "POST", c+"/invitation", x.body); got.Status != x.status || got.Code(t) != x.code {
				t.Fatalf("%v: %d %s", x.body, got.Status, got.Body)
			}
		}
		e.as(&p, "POST", c+"/invitation", "{not json").Expect(t, 400, "")
	})
}

func TestImportDryRunThenWrite(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		p := e.supervisor()
		count := func() int { return e.Count(t, "SELECT COUNT(*) FROM policies WHERE number = 'BEL9999'") }
		for _, q := range []string{"", "?dryRun=true"} {
			got := e.as(&p, "POST", "/api/console/v1/policies/import"+q, importFile)
			if m := got.JSON(t); got.Status != 200 || m["dryRun"] != true || m["added"] != float64(1) || count() != 0 {
				t.Fatalf("dry run %q: %d %s", q, got.Status, got.Body)
			}
		}
		got := e.as(&p, "POST", "/api/console/v1/policies/import?dryRun=false", importFile)
		if m := got.JSON(t); got.Status != 200 || m["dryRun"] != false || m["added"] != float64(1) || count() != 1 {
			t.Fatalf("write: %d %s", got.Status, got.Body)
		}
		got = e.as(&p, "POST", "/api/console/v1/policies/import?dryRun=false", "brand,nope\nbelair,1\n")
		if m := got.JSON(t); got.Status != 400 || m["errorCode"] != "IMPORT_INVALID" || len(m["errors"].([]any)) == 0 {
			t.Fatalf("bad file: %d %s", got.Status, got.Body)
		}
		e.as(&p, "POST", "/api/console/v1/policies/import?dryRun=maybe", importFile).Expect(t, 400, "")
	})
}

func TestMaintenanceOnOff(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		p := e.supervisor()
		until := e.Clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		e.as(&p, "POST", "/api/console/v1/maintenance", map[string]any{"brand": "belair", "on": true, "until": until}).Expect(t, 200, "")
		if w, _ := maintenance.Active(ctx, e.DB, e.Clock.Now()); len(w) != 1 || w[0].Brand != "belair" {
			t.Fatalf("windows %v", w)
		}
		e.as(&p, "POST", "/api/console/v1/maintenance", map[string]any{"brand": "belair", "on": false}).Expect(t, 200, "")
		if w, _ := maintenance.Active(ctx, e.DB, e.Clock.Now()); len(w) != 0 {
			t.Fatalf("windows %v", w)
		}
		for _, body := range []map[string]any{
			{"brand": "nobrand", "on": true}, {"brand": "belair"},
			{"brand": "belair", "on": true, "until": e.Clock.Now().Add(-time.Minute).UTC().Format(time.RFC3339)},
		} {
			if got := e.as(&p, "POST", "/api/console/v1/maintenance", body); got.Status != 400 {
				t.Fatalf("%v: %d %s", body, got.Status, got.Body)
			}
		}
	})
}

func TestAuditExportCSV(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		for i, ev := range []audit.Event{
			{Brand: "belair", AccountID: "a1", Event: "login.authentication", Outcome: "ok", Detail: `say "hi", then
leave`, Actor: ""},
			{Brand: "intact", AccountID: "b1", Event: "login.find", Outcome: "ok"},
			{Brand: "belair", AccountID: "a2", Event: "account.disable", Outcome: "ok", Actor: "staff:x", IP: "203.0.113.1"},
		} {
			ev.At = base.Add(time.Duration(i) * time.Hour)
			if err := audit.Record(ctx, e.DB, ev); err != nil {
				t.Fatal(err)
			}
		}
		// Outside the period.
		if err := audit.Record(ctx, e.DB, audit.Event{At: base.Add(-time.Millisecond), Brand: "belair", Event: "early", Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
		p := e.supervisor()
		from, to := base.Format(time.RFC3339), base.Add(3*time.Hour).Format(time.RFC3339)
		got := e.as(&p, "GET", "/api/console/v1/audit.csv?from="+from+"&to="+to, nil)
		if got.Status != 200 || !strings.HasPrefix(got.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("%d %s", got.Status, got.Body)
		}
		want := "at,brand,account_id,ip,event,outcome,detail,actor\r\n" +
			"2026-03-01T12:00:00.000Z,belair,a1,,login.authentication,ok,\"say \"\"hi\"\", then\r\nleave\",\r\n" +
			"2026-03-01T13:00:00.000Z,intact,b1,,login.find,ok,,\r\n" +
			"2026-03-01T14:00:00.000Z,belair,a2,203.0.113.1,account.disable,ok,,staff:x\r\n"
		if string(got.Body) != want {
			t.Fatalf("csv:\n%q\nwant\n%q", got.Body, want)
		}
		recs, err := csv.NewReader(strings.NewReader(string(got.Body))).ReadAll()
		if err != nil || len(recs) != 4 || recs[1][6] != "say \"hi\", then\nleave" {
			t.Fatalf("read back: %v %v", recs, err)
		}
		// One brand; a staff member of belair only sees belair's rows.
		p.Brands = []string{"belair"}
		got = e.as(&p, "GET", "/api/console/v1/audit.csv?from="+from+"&to="+to, nil)
		if recs, _ := csv.NewReader(strings.NewReader(string(got.Body))).ReadAll(); len(recs) != 3 || recs[2][2] != "a2" {
			t.Fatalf("belair only: %q", got.Body)
		}
		for _, q := range []string{"", "from=" + from, "from=" + to + "&to=" + from, "from=2020-01-01&to=2026-01-01"} {
			if got := e.as(&p, "GET", "/api/console/v1/audit.csv?"+q, nil); got.Status != 400 || got.Code(t) != "VALIDATION" {
				t.Fatalf("%q: %d %s", q, got.Status, got.Body)
			}
		}
		// Not a date at all: the parameter's shape.
		for _, q := range []string{"from=yesterday&to=" + to, "from=" + from + "&to=2026-13-45"} {
			if got := e.as(&p, "GET", "/api/console/v1/audit.csv?"+q, nil); got.Status != 400 || got.Code(t) != "INVALID_FIELD" {
				t.Fatalf("%q: %d %s", q, got.Status, got.Body)
			}
		}
		// The export itself is audited.
		if rows := e.auditRows(p.Actor()); !slices.ContainsFunc(rows, func(r string) bool { return strings.HasPrefix(r, string(audit.ConsoleAuditExport)+" ok") }) {
			t.Fatalf("audit of the export: %v", rows)
		}
	})
}

func TestPurgeAudit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
		for i, at := range []time.Time{now.AddDate(0, -24, 0).Add(-time.Millisecond), now.AddDate(0, -24, 0), now.AddDate(0, -1, 0)} {
			if err := audit.Record(ctx, db, audit.Event{At: at, Brand: "belair", Event: audit.Name(fmt.Sprint("e", i)), Outcome: "ok"}); err != nil {
				t.Fatal(err)
			}
		}
		n, err := console.PurgeAudit(ctx, db, now, console.DefaultAuditRetentionMonths)
		if err != nil || n != 1 {
			t.Fatalf("purged %d %v", n, err)
		}
		var left int
		if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM audit_events WHERE event IN ('e1', 'e2')").Scan(&left); err != nil || left != 2 {
			t.Fatalf("left %d %v", left, err)
		}
	})
}

func TestStaffAdmin(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		p := e.admin()
		got := e.as(&p, "POST", "/api/console/v1/staff", map[string]any{"email": "Sup@Console.example", "name": "Sue Per", "role": "supervisor"})
		m := got.JSON(t)
		if got.Status != 200 || !strings.HasPrefix(m["setupLink"].(string), "https://console.example/setup#") ||
			m["staff"].(map[string]any)["email"] != "sup@console.example" {
			t.Fatalf("add: %d %s", got.Status, got.Body)
		}
		token := strings.TrimPrefix(m["setupLink"].(string), "https://console.example/setup#")
		if info, err := e.h.Service.Staff.Setup(t.Context(), token); err != nil || info.Email != "sup@console.example" {
			t.Fatalf("the link does not set up: %+v %v", info, err)
		}
		e.as(&p, "POST", "/api/console/v1/staff", map[string]any{"email": "sup@console.example", "name": "Again", "role": "agent"}).Expect(t, 409, "STAFF_EXISTS")
		for _, body := range []map[string]any{{"email": "x@console.example", "name": "X", "role": "boss"}, {"email": "bad", "name": "X", "role": "agent"},
			{"email": "y@console.example", "name": "", "role": "agent"}, {"email": "z@console.example", "name": "Z", "role": "agent", "brands": []string{"nobrand"}}} {
			if got := e.as(&p, "POST", "/api/console/v1/staff", body); got.Status != 400 || got.Code(t) != "VALIDATION" {
				t.Fatalf("%v: %d %s", body, got.Status, got.Body)
			}
		}
		list := e.as(&p, "GET", "/api/console/v1/staff", nil)
		if n := len(list.JSON(t)["staff"].([]any)); list.Status != 200 || n != 2 {
			t.Fatalf("list: %d %s", list.Status, list.Body)
		}
		if got := e.as(&p, "POST", "/api/console/v1/staff/"+e.member.ID+"/disable", nil); got.Status != 200 || got.JSON(t)["disabled"] != true {
			t.Fatalf("disable: %d %s", got.Status, got.Body)
		}
		p.ID = e.member.ID
		e.as(&p, "POST", "/api/console/v1/staff/"+e.member.ID+"/disable", nil).Expect(t, 409, "STAFF_SELF")
		e.as(&p, "POST", "/api/console/v1/staff/AAAAAAAAAAAAAAAAAAAAAA/disable", nil).Expect(t, 404, "")
	})
}
