package emailtoken_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/emailtoken"
	"guichet/internal/httpapi"
	"guichet/internal/identity"
	"guichet/internal/recovery"
	"guichet/internal/registration"
	"guichet/internal/testenv"
)

const (
	ip          = "192.0.2.20"
	dob         = "1985-03-14"
	postal      = "M5V 2T6"
	newPassword = "Maple-Harbour-7?"
	cell        = "5145550303"
)

// people: one person per action of the token routing table (belair, on).
const people = accounttest.PolicyHeader +
	// default-password-register
	"belair,TOK0001,auto,on,holder,Théo,Jeton," + dob + "," + postal + ",,,theo@example.com,,,false,active\n" +
	// ask-username: the email is the owner's account's
	"belair,TOK0002,home,on,holder,Tina,Prise," + dob + "," + postal + ",,,owner@example.com,,,false,active\n" +
	// ask-password: a UBI driver whose email is the owner's (a policyholder)
	"belair,TOK0003,auto,on,driver,Ulric,Lien," + dob + "," + postal + ",,,owner@example.com," + cell + ",,true,active\n" +
	// default-password-register of a UBI driver: the cell phone is asked
	"belair,TOK0006,auto,on,driver,Vera,Volant," + dob + "," + postal + ",,,vera@example.com," + cell + ",,true,active\n" +
	"belair,TOK0005,home,on,holder,Carl,Annule," + dob + "," + postal + ",,,carl@example.com,,,false,cancelled\n" +
	// reset-password-login: the owner's own person
	accounttest.OwnerPolicy +
	// reset-password-login of a UBI driver with an account: the cell phone
	"belair,TOK0007,auto,on,driver,Uma,Compte," + dob + "," + postal + ",,,uma@example.com," + cell + ",,true,active\n" +
	// 412 INCONSISTENT: Uma again (registered as uma@), her file giving the owner's email
	"belair,TOK0008,home,on,holder,Uma,Compte," + dob + "," + postal + ",,,owner@example.com,,,false,active\n" +
	"bna,BNA0001,auto,qc,holder,Bruno,Autre," + dob + ",H2X 1Y4,,,bruno@example.com,,,false,active\n"

// env is one test's services and routes on a fresh database.
type env struct {
	*testenv.Env
	t      *testing.T
	tokens *emailtoken.Service
	regs   *registration.Service
	brands *brand.Registry
	mux    *http.ServeMux
	admin  http.Handler
	owner  account.Account
	uma    account.Account // a UBI driver's account
	keys   map[string]string
}

func newEnv(t *testing.T, te *testenv.Env) *env {
	t.Helper()
	ctx := t.Context()
	reg := testenv.Brands(t)
	db, c := te.DB, te.Clock
	accounttest.ImportPolicies(t, db, reg.ByID, c.Now(), people)
	accounts := accounttest.Service(db, c.Now)
	regs, err := registration.New(ctx, accounts)
	if err != nil {
		t.Fatal(err)
	}
	regs.Limits = identity.Limits{}
	recoveries, err := recovery.New(ctx, accounts)
	if err != nil {
		t.Fatal(err)
	}
	recoveries.Limits = recovery.Limits{}
	tokens := emailtoken.New(db, reg.ByID, c.Now)
	tokens.Limits = emailtoken.Limits{}
	tokens.Registrations = regs
	e := &env{Env: te, t: t, tokens: tokens, regs: regs, brands: reg,
		keys: map[string]string{"belair": "belair-service-key-0123456789", "bna": "bna-service-key-0123456789"}}
	e.owner = accounttest.Owner(t, db, c.Now(), "fr")
	e.uma = accounttest.Create(t, db, c.Now(), account.Account{Brand: "belair", Email: "uma@example.com", Language: "en",
		UBIDriver: true, Phone: cell, FirstName: "Uma", LastName: "Compte", DateOfBirth: dob, PostalCode: postal}, accounttest.OwnerPassword, "")
	if _, err := db.Exec(ctx, "UPDATE insured_people SET account_id = ? WHERE first_name = 'Uma'", e.uma.ID); err != nil {
		t.Fatal(err)
	}
	rh := &registration.Handler{Service: regs}
	th := &emailtoken.Handler{Service: tokens, ServiceKey: func(b string) string { return e.keys[b] }, Brands: reg.All}
	ah := &account.Handler{Service: accounts}
	ch := &recovery.Handler{Service: recoveries}
	e.mux = testenv.Mux(map[string]api.Handler{
		"GET /api/v1/tokens/{token}":                                     th.Read,
		"DELETE /api/v1/tokens/{token}":                                  th.Delete,
		"POST /api/v1/registrations/{id}/validations/{validationId}/{$}": rh.Validate,
		"POST /api/v1/registrations/{id}/authentication":                 rh.Authentication,
		"POST /api/v1/accounts/{id}/create":                              rh.Create,
		"POST /api/v1/accounts/{id}/authentication":                      httpapi.AuthenticationOverload(ah.Authentication, rh.Authentication, regs.IsRegistration),
		"POST /api/v1/accounts/{id}/password":                            ch.SetPassword,
	})
	e.admin = testenv.Mux(map[string]api.Handler{
		"POST /api/admin/v1/tokens": th.AdminIssue,
	})
	return e
}

// issue issues a token for the test (IssuedBy cli), failing on error.
func (e *env) issue(number, email, source string) emailtoken.Issued {
	e.t.Helper()
	out, err := e.tokens.Issue(e.t.Context(), emailtoken.Request{Brand: "belair", PolicyNumber: number,
		Email: email, Source: source, IssuedBy: emailtoken.IssuedByCLI})
	if err != nil {
		e.t.Fatalf("issue %s %s: %v", number, email, err)
	}
	return out
}

// issueAndRead issues a token (issue) and reads it with src, as the link
// opened: it returns the token and the read's answer.
func (e *env) issueAndRead(number, email, src string) (emailtoken.Issued, emailtoken.Answer) {
	e.t.Helper()
	out := e.issue(number, email, src)
	return out, tokenOf(e.t, e.read(out.Token, src))
}

// opened is issueAndRead's token and the id of what the read opened.
func (e *env) opened(number, email, src string) (emailtoken.Issued, string) {
	e.t.Helper()
	out, a := e.issueAndRead(number, email, src)
	return out, a.ID
}

// tokenOf is the answer of a token read.
func tokenOf(t *testing.T, a testenv.Answer) emailtoken.Answer {
	t.Helper()
	var out emailtoken.Answer
	if err := json.Unmarshal(a.Body, &out); err != nil {
		t.Fatalf("body %q: %v", a.Body, err)
	}
	return out
}

// do sends a request to the customer routes of brand b (belair when nil)
// from ip.
func (e *env) do(method, path string, body any, b *brand.Brand) testenv.Answer {
	e.t.Helper()
	if b == nil {
		b, _ = e.brands.ByID("belair")
	}
	return testenv.Do(e.t, e.mux, testenv.Request{Method: method, Path: path, Body: body, IP: ip,
		Site: &api.Site{Brand: b, Province: b.DefaultProvince, Language: "en"}})
}

func (e *env) post(path string, body any) testenv.Answer {
	e.t.Helper()
	return e.do(http.MethodPost, path, body, nil)
}

// read is GET /api/v1/tokens/{token}?src=… (src "" for none).
func (e *env) read(token, src string) testenv.Answer {
	e.t.Helper()
	path := "/api/v1/tokens/" + token
	if src != "" {
		path += "?src=" + url.QueryEscape(src)
	}
	return e.do(http.MethodGet, path, nil, nil)
}

// create is the token variant of account-creation/password.
func (e *env) create(id string, proof map[string]any) testenv.Answer {
	e.t.Helper()
	body := map[string]any{"password": newPassword, "passwordConfirmation": newPassword, "termsAccepted": true}
	for k, v := range proof {
		body[k] = v
	}
	return e.post("/api/v1/accounts/"+id+"/create", body)
}

// adminCall posts to the admin API with an Authorization header ("" for
// none).
func (e *env) adminCall(authorization string, body any) testenv.Answer {
	e.t.Helper()
	req := testenv.Request{Method: http.MethodPost, Path: "http://127.0.0.1:9090/api/admin/v1/tokens", Body: body,
		Peer: "10.0.0.5:5000"}
	if authorization != "" {
		req.Headers = map[string]string{"Authorization": authorization}
	}
	return testenv.Do(e.t, e.admin, req)
}

// day is 24 hours.
const day = 24 * time.Hour
