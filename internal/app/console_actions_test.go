package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/api/apitest"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/testclock"
)

// signedInStaff sets a staff member up from a set-up link and returns a
// browser signed in on the console host (factor proved now).
func signedInStaff(t *testing.T, a *App, clock *testclock.Clock, email string, role staff.Role, brands []string) *browser {
	t.Helper()
	_, token, err := a.Staff.Add(context.Background(), staff.NewMember{Email: email, Name: "Test Staff", Role: role, Brands: brands}, "cli")
	if err != nil {
		t.Fatal(err)
	}
	c := newBrowser(t, a, consoleHost)
	setup := c.want("GET", "/api/console/v1/setup/"+token, "", 200, "")
	secret, err := staff.DecodeSecret(setup["secret"].(string))
	if err != nil {
		t.Fatal(err)
	}
	c.want("POST", "/api/console/v1/setup/"+token, `{"password":"Console-Pass-2026!","code":"`+staff.TOTP(secret, clock.Now())+`"}`, 200, "")
	return c
}

// TestConsoleActionsBehindTheStaffSession: the console's customer calls
// through the real server on both databases: signed out 401, an agent
// unlocking a belair customer, refused an intact one (403 and an audit
// row), a stale factor asking re-authentication, and nothing of it on a
// brand host.
func TestConsoleActionsBehindTheStaffSession(t *testing.T) {
	eachConsole(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		ctx := t.Context()
		var belairID, intactID string
		err := a.DB.InTx(ctx, func(tx *store.Tx) error {
			b, err := account.Insert(ctx, tx, account.Account{Brand: "belair", Email: "locked@example.com", FirstName: "Lou", LastName: "Quet"}, "", clock.Now())
			if err != nil {
				return err
			}
			i, err := account.Insert(ctx, tx, account.Account{Brand: "intact", Email: "other@example.com"}, "", clock.Now())
			belairID, intactID = b.ID, i.ID
			if err != nil {
				return err
			}
			return account.Lock(ctx, tx, b.ID, time.Time{}, clock.Now())
		})
		if err != nil {
			t.Fatal(err)
		}
		schemas := apitest.Schemas(t)
		conform := func(name string, v map[string]any) {
			t.Helper()
			if err := apitest.Conform(schemas, name, v); err != nil {
				t.Fatalf("%s: %v: %v", name, err, v)
			}
		}
		anon := newBrowser(t, a, consoleHost)
		anon.want("GET", "/api/console/v1/customers?q=locked", "", 401, "SIGN_IN_REQUIRED")
		anon.want("POST", "/api/console/v1/customers/"+belairID+"/unlock", "", 401, "SIGN_IN_REQUIRED")

		agent := signedInStaff(t, a, clock, "agent.actions@example.com", staff.RoleAgent, []string{"belair"})
		found := agent.want("GET", "/api/console/v1/customers?q=locked@", "", 200, "")
		if list := found["customers"].([]any); len(list) != 1 || list[0].(map[string]any)["locked"] != true {
			t.Fatalf("search: %v", found)
		}
		conform("ConsoleCustomers", found)
		conform("ConsoleCustomerDetail", agent.want("GET", "/api/console/v1/customers/"+belairID, "", 200, ""))
		unlocked := agent.want("POST", "/api/console/v1/customers/"+belairID+"/unlock", "", 200, "")
		if unlocked["locked"] != false {
			t.Fatalf("unlock: %v", unlocked)
		}
		conform("ConsoleCustomer", unlocked)
		conform("ConsoleTemporaryPassword", agent.want("POST", "/api/console/v1/customers/"+belairID+"/temporary-password", `{"delivery":"show"}`, 200, ""))
		conform("ConsoleCustomerDetail", agent.want("GET", "/api/console/v1/customers/"+belairID, "", 200, ""))
		conform("Error", agent.want("GET", "/api/console/v1/customers?q=x", "", 400, "VALIDATION"))
		if acc, err := account.ByID(ctx, a.DB, "belair", belairID); err != nil || acc.Status != account.Temporary {
			t.Fatalf("after unlock: %+v %v", acc, err)
		}
		conform("Error", agent.want("GET", "/api/console/v1/customers/"+intactID, "", 403, "FORBIDDEN_BRAND"))
		agent.want("POST", "/api/console/v1/maintenance", `{"brand":"belair","on":true}`, 403, "FORBIDDEN_ROLE")
		var n int
		if err := a.DB.QueryRow(ctx, "SELECT COUNT(*) FROM audit_events WHERE event = 'console.forbidden' AND brand = 'intact' AND account_id = ?",
			intactID).Scan(&n); err != nil || n != 1 {
			t.Fatalf("forbidden brand audit rows: %d %v", n, err)
		}
		// Still active (idle 15 minutes ends a session), the factor older
		// than 15 minutes.
		clock.Advance(10 * time.Minute)
		agent.want("GET", "/api/console/v1/customers/"+belairID, "", 200, "")
		clock.Advance(6 * time.Minute)
		agent.want("GET", "/api/console/v1/customers/"+belairID, "", 200, "")
		agent.want("POST", "/api/console/v1/customers/"+belairID+"/disable", "", 401, "REAUTH_REQUIRED")

		admin := signedInStaff(t, a, clock, "admin.actions@example.com", staff.RoleAdmin, nil)
		added := admin.want("POST", "/api/console/v1/staff", `{"email":"new.agent@example.com","name":"New Agent","role":"agent","brands":["belair"]}`, 200, "")
		if link, _ := added["setupLink"].(string); !strings.HasPrefix(link, "https://"+consoleHost+"/setup#") {
			t.Fatalf("set-up link: %v", added)
		}
		conform("ConsoleStaffMember", added["staff"].(map[string]any))
		for _, m := range admin.want("GET", "/api/console/v1/staff", "", 200, "")["staff"].([]any) {
			conform("ConsoleStaffMember", m.(map[string]any))
		}
		// The OpenID clients (issue 30): added, listed, disabled; an agent
		// is refused.
		client := admin.want("POST", "/api/console/v1/clients", `{"brand":"belair","name":"Centre","type":"confidential",`+
			`"redirectUris":["https://centre.example/cb"],"backchannelLogoutUri":"https://centre.example/logout","signingAlg":"RS256"}`, 200, "")
		if secret, _ := client["clientSecret"].(string); len(secret) != 43 {
			t.Fatalf("client: %v", client)
		}
		conform("ConsoleClient", client["client"].(map[string]any))
		conform("Error", admin.want("POST", "/api/console/v1/clients", `{"brand":"belair","name":"X","type":"public","redirectUris":["http://x.example/cb"]}`, 400, "VALIDATION"))
		for _, c := range admin.want("GET", "/api/console/v1/clients", "", 200, "")["clients"].([]any) {
			conform("ConsoleClient", c.(map[string]any))
		}
		clientID := client["client"].(map[string]any)["id"].(string)
		conform("ConsoleClient", admin.want("POST", "/api/console/v1/clients/"+clientID+"/disable", "", 200, ""))
		agent.want("GET", "/api/console/v1/clients", "", 403, "FORBIDDEN_ROLE")

		site := newBrowser(t, a, "belair.localhost")
		site.cookies = agent.cookies
		site.want("GET", "/api/console/v1/customers?q=locked", "", 404, "")
	})
}
