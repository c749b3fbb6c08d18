package app

import (
	"context"
	"testing"
	"time"

	"guichet/internal/account"
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
		ctx := context.Background()
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
		anon := newBrowser(t, a, consoleHost)
		anon.want("GET", "/api/console/v1/customers?q=locked", "", 401, "SIGN_IN_REQUIRED")
		anon.want("POST", "/api/console/v1/customers/"+belairID+"/unlock", "", 401, "SIGN_IN_REQUIRED")

		agent := signedInStaff(t, a, clock, "agent.actions@example.com", staff.RoleAgent, []string{"belair"})
		found := agent.want("GET", "/api/console/v1/customers?q=locked@", "", 200, "")
		if list := found["customers"].([]any); len(list) != 1 || list[0].(map[string]any)["locked"] != true {
			t.Fatalf("search: %v", found)
		}
		if got := agent.want("POST", "/api/console/v1/customers/"+belairID+"/unlock", "", 200, ""); got["locked"] != false {
			t.Fatalf("unlock: %v", got)
		}
		if acc, err := account.ByID(ctx, a.DB, "belair", belairID); err != nil || acc.Status != account.Active {
			t.Fatalf("after unlock: %+v %v", acc, err)
		}
		agent.want("GET", "/api/console/v1/customers/"+intactID, "", 403, "FORBIDDEN_BRAND")
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

		site := newBrowser(t, a, "belair.localhost")
		site.cookies = agent.cookies
		site.want("GET", "/api/console/v1/customers?q=locked", "", 404, "")
	})
}
