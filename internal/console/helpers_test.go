package console_test

import (
	"context"
	"net/http"
	"testing"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/console"
	"guichet/internal/emailtoken"
	"guichet/internal/oidc"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

const (
	password = "Correct-Horse-9!"
	staffIP  = "203.0.113.9"
)

// people are the policies the customers hold (and an invitation's person).
const people = accounttest.PolicyHeader +
	"belair,BEL1234,auto,on,holder,Alex,Martin,1980-04-12,M5V 2T6,,,alex.martin@example.com,,,false,active\n" +
	"belair,BEL5678,home,on,holder,Alex,Martin,1980-04-12,M5V 2T6,,,alex.martin@example.com,,,false,active\n" +
	"intact,123456789,auto,ab,holder,Sam,Roy,1975-06-30,M5V 2T6,,,sam.roy@example.com,,,false,active\n"

type env struct {
	*testenv.Env
	t        *testing.T
	accounts *account.Service
	h        *console.Handler
	mux      *http.ServeMux
	brands   *brand.Registry
	alex     account.Account // belair, holds BEL1234
	sam      account.Account // intact
	member   staff.Member    // a staff member admins may disable
	client   oidc.Client     // a belair OpenID client admins may disable
}

// each runs fn on a fresh console env on every database (storetest.Each).
func each(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	storetest.Each(t, func(t *testing.T, db *store.DB) { fn(t, newEnv(t, db)) })
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	ctx := t.Context()
	reg := testenv.Brands(t)
	te := testenv.New(db)
	c := te.Clock
	accounttest.ImportPolicies(t, db, reg.ByID, c.Now(), people)
	accounts := accounttest.Service(db, c.Now)
	tokens := emailtoken.New(db, reg.ByID, c.Now)
	tokens.Limits = emailtoken.Limits{}
	staffs, err := staff.New(ctx, db, accounttest.Hasher(), c.Now, nil)
	if err == nil {
		staffs.KnownBrand = func(b string) bool { _, ok := reg.ByID(b); return ok }
	}
	if err != nil {
		t.Fatal(err)
	}
	oidcs, err := oidc.New(ctx, db, c.Now, func(b string) bool { _, ok := reg.ByID(b); return ok }, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := &console.Handler{Service: &console.Service{DB: db, Accounts: accounts, Tokens: tokens, Brands: reg.ByID, Now: c.Now,
		Staff: staffs, OIDC: oidcs, LinkBase: func(b *brand.Brand) string { return emailtoken.LinkBase(b, false, "") }},
		ConsoleOrigin: "https://console.example"}
	ah := &account.Handler{Service: accounts}
	e := &env{Env: te, t: t, accounts: accounts, h: h, brands: reg, mux: testenv.Mux(map[string]api.Handler{
		"GET /api/console/v1/customers":                          h.Search,
		"GET /api/console/v1/customers/{id}":                     h.Customer,
		"POST /api/console/v1/customers/{id}/unlock":             h.Unlock,
		"POST /api/console/v1/customers/{id}/disable":            h.Disable,
		"POST /api/console/v1/customers/{id}/enable":             h.Enable,
		"POST /api/console/v1/customers/{id}/temporary-password": h.TemporaryPassword,
		"POST /api/console/v1/customers/{id}/reset-email":        h.ResetEmail,
		"POST /api/console/v1/customers/{id}/invitation":         h.Invitation,
		"POST /api/console/v1/policies/import":                   h.Import,
		"POST /api/console/v1/maintenance":                       h.Maintenance,
		"GET /api/console/v1/audit.csv":                          h.AuditExport,
		"GET /api/console/v1/staff":                              h.StaffList,
		"POST /api/console/v1/staff":                             h.StaffAdd,
		"POST /api/console/v1/staff/{id}/disable":                h.StaffDisable,
		"GET /api/console/v1/clients":                            h.ClientList,
		"POST /api/console/v1/clients":                           h.ClientAdd,
		"POST /api/console/v1/clients/{id}/disable":              h.ClientDisable,
		// The customer's own calls on the brand site, to prove what staff did.
		"POST /api/v1/accounts/{id}/temporary":      ah.Temporary,
		"POST /api/v1/accounts/{id}/authentication": ah.Authentication,
	})}
	e.alex = e.create("belair", "Alex.Martin@example.com", "Alex", "Martin", "4165550123", "BEL1234")
	if e.member, _, err = staffs.Add(ctx, staff.NewMember{Email: "leaving@console.example", Name: "Leaving", Role: staff.RoleAgent}, "cli"); err != nil {
		t.Fatal(err)
	}
	if e.client, _, err = oidcs.AddClient(ctx, oidc.NewClient{Brand: "belair", Name: "Claims", Kind: oidc.Public,
		RedirectURIs: []string{"https://claims.example/cb"}}, "cli"); err != nil {
		t.Fatal(err)
	}
	e.sam = e.create("intact", "sam.roy@example.com", "Sam", "Roy", "6135550199", "123456789")
	return e
}

// create stores a customer with the password, linked to the policy.
func (e *env) create(b, email, first, last, phone, number string) account.Account {
	e.t.Helper()
	a := accounttest.Create(e.t, e.DB, e.Clock.Now(), account.Account{Brand: b, Email: email, FirstName: first, LastName: last,
		Phone: phone, PostalCode: "M5V 2T6", DateOfBirth: "1980-04-12", Language: "en"}, password, "")
	if _, err := e.DB.Exec(e.t.Context(), `INSERT INTO account_policies (account_id, policy_id, role)
		SELECT ?, id, 'holder' FROM policies WHERE brand = ? AND number = ?`, a.ID, b, number); err != nil {
		e.t.Fatal(err)
	}
	return a
}

// principals of each role; the agent serves belair only.
func (e *env) agent() staff.Principal {
	return staff.Principal{ID: "agent1", Email: "agent@console.example", Role: staff.RoleAgent, Brands: []string{"belair"}, FactorAt: e.Clock.Now()}
}
func (e *env) supervisor() staff.Principal {
	return staff.Principal{ID: "super1", Email: "supervisor@console.example", Role: staff.RoleSupervisor, FactorAt: e.Clock.Now()}
}
func (e *env) admin() staff.Principal {
	return staff.Principal{ID: "admin1", Email: "admin@console.example", Role: staff.RoleAdmin, FactorAt: e.Clock.Now()}
}

// as sends a console call for p (nil: no staff member signed in). body is
// JSON unless a string (sent as is), always labelled JSON.
func (e *env) as(p *staff.Principal, method, path string, body any) testenv.Answer {
	e.t.Helper()
	req := testenv.Request{Method: method, Path: "https://console.example" + path, Body: body, IP: staffIP,
		Headers: map[string]string{"Content-Type": "application/json"}}
	if p != nil {
		req.Context = func(ctx context.Context) context.Context { return staff.WithPrincipal(ctx, *p) }
	}
	return testenv.Do(e.t, e.mux, req)
}

// customerCall is a customer's own call on the brand's site.
func (e *env) customerCall(b, path string, body any) testenv.Answer {
	e.t.Helper()
	br, _ := e.brands.ByID(b)
	return testenv.Do(e.t, e.mux, testenv.Request{Method: http.MethodPost, Path: path, Body: body, IP: "198.51.100.7",
		Site: &api.Site{Brand: br, Province: br.DefaultProvince, Language: "en"}})
}

// auditRows are "event outcome actor" of the rows of an actor, oldest first.
func (e *env) auditRows(actor string) []string {
	e.t.Helper()
	rows, err := e.DB.Query(e.t.Context(), "SELECT event, outcome, account_id FROM audit_events WHERE actor = ? ORDER BY id", actor)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var ev, oc, id string
		if err := rows.Scan(&ev, &oc, &id); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, ev+" "+oc+" "+id)
	}
	return out
}

func (e *env) account(a account.Account) account.Account {
	e.t.Helper()
	got, err := account.ByID(e.t.Context(), e.DB, a.Brand, a.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return got
}
