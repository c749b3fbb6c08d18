package console_test

import (
	"fmt"
	"strings"
	"testing"

	"guichet/internal/audit"
	"guichet/internal/oidc"
)

// TestClientsAdmin: an admin registers a public and a confidential OpenID
// client (the secret answered once, working, in no audit row), lists them
// and disables one; bad input is a 400 naming the field, never a 500.
func TestClientsAdmin(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		p := e.admin()
		const path = "/api/console/v1/clients"
		public := e.as(&p, "POST", path, map[string]any{"brand": "intact", "name": " Mobile app ", "type": "public",
			"redirectUris": []string{"ca.intact.app:/callback", "http://127.0.0.1:4180/cb"}})
		pub := public.JSON(t)
		if public.Status != 200 || pub["clientSecret"] != nil || pub["client"].(map[string]any)["name"] != "Mobile app" ||
			pub["client"].(map[string]any)["signingAlg"] != "ES256" {
			t.Fatalf("public: %d %s", public.Status, public.Body)
		}
		if cc := public.Header.Get("Cache-Control"); cc != "no-store" {
			t.Fatalf("Cache-Control %q", cc)
		}
		conf := e.as(&p, "POST", path, map[string]any{"brand": "belair", "name": "Client centre", "type": "confidential", "thirdParty": true,
			"redirectUris": []string{"https://centre.example/cb"}, "backchannelLogoutUri": "https://centre.example/logout", "signingAlg": "RS256"})
		m := conf.JSON(t)
		secret, _ := m["clientSecret"].(string)
		view := m["client"].(map[string]any)
		if conf.Status != 200 || len(secret) != 43 || view["type"] != "confidential" || view["thirdParty"] != true ||
			view["signingAlg"] != "RS256" || view["backchannelLogoutUri"] != "https://centre.example/logout" || view["disabledAt"] != nil {
			t.Fatalf("confidential: %d %s", conf.Status, conf.Body)
		}
		id := view["id"].(string)
		stored, err := e.h.Service.OIDC.Client(t.Context(), id)
		if err != nil || !stored.CheckSecret(secret) || stored.CheckSecret(secret+"x") {
			t.Fatalf("the secret answered is not the client's: %v", err)
		}
		// The secret is in no audit row, whatever the column.
		var n int
		if err := e.DB.QueryRow(t.Context(), `SELECT COUNT(*) FROM audit_events WHERE detail LIKE ? OR actor LIKE ? OR event LIKE ?
			OR outcome LIKE ? OR account_id LIKE ?`, "%"+secret+"%", "%"+secret+"%", "%"+secret+"%", "%"+secret+"%", "%"+secret+"%").Scan(&n); err != nil || n != 0 {
			t.Fatalf("rows holding the secret: %d %v", n, err)
		}
		if err := e.DB.QueryRow(t.Context(), "SELECT COUNT(*) FROM audit_events WHERE event = ? AND actor = ? AND detail = ?",
			string(audit.OIDCClientAdd), p.Actor(), "client:"+id).Scan(&n); err != nil || n != 1 {
			t.Fatalf("client_add rows by the admin: %d %v", n, err)
		}

		list := e.as(&p, "GET", path, nil)
		var names []string
		for _, c := range list.JSON(t)["clients"].([]any) {
			c := c.(map[string]any)
			if _, ok := c["clientSecret"]; ok {
				t.Fatalf("a secret in the list: %s", list.Body)
			}
			names = append(names, fmt.Sprint(c["brand"], "/", c["name"], "/", c["type"], "/", len(c["redirectUris"].([]any))))
		}
		if got := strings.Join(names, " "); list.Status != 200 || got != "belair/Claims/public/1 belair/Client centre/confidential/1 intact/Mobile app/public/2" {
			t.Fatalf("list: %d %s", list.Status, got)
		}
		if strings.Contains(string(list.Body), secret) {
			t.Fatal("the list holds the secret")
		}

		got := e.as(&p, "POST", path+"/"+id+"/disable", nil)
		if got.Status != 200 || got.JSON(t)["disabledAt"] == nil {
			t.Fatalf("disable: %d %s", got.Status, got.Body)
		}
		if c, _ := e.h.Service.OIDC.Client(t.Context(), id); !c.Disabled() {
			t.Fatal("not disabled")
		}
		// Again: still disabled, no second row.
		e.as(&p, "POST", path+"/"+id+"/disable", nil).Expect(t, 200, "")
		if err := e.DB.QueryRow(t.Context(), "SELECT COUNT(*) FROM audit_events WHERE event = ? AND actor = ? AND detail = ?",
			string(audit.OIDCClientDisable), p.Actor(), "client:"+id).Scan(&n); err != nil || n != 1 {
			t.Fatalf("client_disable rows: %d %v", n, err)
		}
		e.as(&p, "POST", path+"/AAAAAAAAAAAAAAAAAAAAAA/disable", nil).Expect(t, 404, "NOT_FOUND")
		e.as(&p, "POST", path+"/nope/disable", nil).Expect(t, 404, "")
	})
}

// TestClientsRefuseBadInput: each rule of a client is a 400 VALIDATION
// naming the field and its message key; nothing is stored.
func TestClientsRefuseBadInput(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		p := e.admin()
		ok := func() map[string]any {
			return map[string]any{"brand": "belair", "name": "App", "type": "public", "redirectUris": []string{"https://app.example/cb"}}
		}
		many := make([]string, oidc.MaxRedirectURIs+1)
		for i := range many {
			many[i] = fmt.Sprintf("https://app.example/cb%d", i)
		}
		for _, c := range []struct {
			field string
			key   string
			value any
		}{
			{"brand", "brand", "nobrand"},
			{"brand", "brand", ""},
			{"brand", "brand", "bel\x00air"},
			{"name", "name", ""},
			{"name", "name", "   "},
			{"name", "name", strings.Repeat("n", 101)},
			{"name", "name", "App\x00"},
			{"type", "type", "secret"},
			{"redirectUris", "redirectUris", []string{}},
			{"redirectUris", "redirectUris", nil},
			{"redirectUris", "redirectUris", many},
			{"redirectUris", "redirectUris", []string{"not a uri"}},
			{"redirectUris", "redirectUris", []string{"http://app.example/cb"}},
			{"redirectUris", "redirectUris", []string{"https://app.example/*"}},
			{"redirectUris", "redirectUris", []string{"https://app.example/cb#x"}},
			{"redirectUris", "redirectUris", []string{"https://user:pw@app.example/cb"}},
			{"redirectUris", "redirectUris", []string{"https://app.example/cb", "https://app.example/cb"}},
			{"redirectUris", "redirectUris", []string{"https://app.example/\x00"}},
			{"redirectUris", "redirectUris", []string{"https://" + strings.Repeat("a", 2001)}},
			{"backchannelLogoutUri", "backchannelLogoutUri", "ftp://app.example/logout"},
			{"signingAlg", "signingAlg", "HS256"},
			{"signingAlg", "signingAlg", "none"},
		} {
			body := ok()
			body[c.field] = c.value
			got := e.as(&p, "POST", "/api/console/v1/clients", body)
			if got.Status != 400 || got.Code(t) != "VALIDATION" ||
				got.JSON(t)["fields"].(map[string]any)[c.key] != "console.clients.invalid."+c.key {
				t.Errorf("%s = %q: %d %s", c.field, c.value, got.Status, got.Body)
			}
		}
		// A custom scheme is for a public client only.
		body := ok()
		body["type"], body["redirectUris"] = "confidential", []string{"ca.belair.app:/cb"}
		e.as(&p, "POST", "/api/console/v1/clients", body).Expect(t, 400, "VALIDATION")
		// Unknown fields and JSON that is not an object are refused too.
		e.as(&p, "POST", "/api/console/v1/clients", map[string]any{"brand": "belair", "secret": "mine"}).Expect(t, 400, "")
		e.as(&p, "POST", "/api/console/v1/clients", "[1,2]").Expect(t, 400, "")
		if list, _ := e.h.Service.OIDC.Clients(t.Context(), ""); len(list) != 1 {
			t.Fatalf("refused clients were stored: %d", len(list))
		}
	})
}

// TestClientsBrandScoping: an admin serving belair only sees belair's
// clients and may neither add nor disable another brand's (403 and an
// audit row each).
func TestClientsBrandScoping(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		all := e.admin()
		intact, _, err := e.h.Service.OIDC.AddClient(t.Context(), oidc.NewClient{Brand: "intact", Name: "Intact app", Kind: oidc.Public,
			RedirectURIs: []string{"https://intact.example/cb"}}, "cli")
		if err != nil {
			t.Fatal(err)
		}
		if n := len(e.as(&all, "GET", "/api/console/v1/clients", nil).JSON(t)["clients"].([]any)); n != 2 {
			t.Fatalf("an admin of every brand sees %d clients", n)
		}
		p := e.admin()
		p.Brands = []string{"belair"}
		list := e.as(&p, "GET", "/api/console/v1/clients", nil)
		if l := list.JSON(t)["clients"].([]any); len(l) != 1 || l[0].(map[string]any)["id"] != e.client.ID {
			t.Fatalf("belair's admin sees %s", list.Body)
		}
		e.as(&p, "POST", "/api/console/v1/clients", map[string]any{"brand": "intact", "name": "X", "type": "public",
			"redirectUris": []string{"https://x.example/cb"}}).Expect(t, 403, "FORBIDDEN_BRAND")
		e.as(&p, "POST", "/api/console/v1/clients/"+intact.ID+"/disable", nil).Expect(t, 403, "FORBIDDEN_BRAND")
		if c, _ := e.h.Service.OIDC.Client(t.Context(), intact.ID); c.Disabled() {
			t.Fatal("the other brand's client was disabled")
		}
		if rows := e.auditRows(p.Actor()); len(rows) != 2 || rows[0] != string(audit.ConsoleForbidden)+" forbidden_brand " || rows[1] != rows[0] {
			t.Fatalf("refusals' audit rows: %v", rows)
		}
		if list, _ := e.h.Service.OIDC.Clients(t.Context(), "intact"); len(list) != 1 {
			t.Fatalf("intact has %d clients", len(list))
		}
	})
}
