package registration_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/httpapi"
	"guichet/internal/identity"
	"guichet/internal/notify"
	"guichet/internal/registration"
	"guichet/internal/store"
	"guichet/internal/testenv"
)

const (
	ip          = "192.0.2.10"
	dob         = "1985-03-14"
	postal      = "M5V 2T6"
	newPassword = "Brand-New-Pass-7?"
	pin         = "AB12CD34"
)

// people is the policy file of the tests: one person per branch of spec
// §4.2 (policy numbers of belair, province on).
const people = accounttest.PolicyHeader +
	"belair,REG0001,auto,on,holder,Emma,Courriel," + dob + "," + postal + ",,,emma@example.com,,,false,active\n" +
	"belair,REG0002,auto,on,holder,Simon,Texto," + dob + "," + postal + ",,,simon@example.com,5145550101,,false,active\n" +
	"belair,REG0003,home,on,holder,Paula,Nip," + dob + "," + postal + ",,,paula@example.com,,AB12CD34,false,active\n" +
	"belair,REG0004,home,on,holder,Alice,Sansfil," + dob + "," + postal + ",,,,,,false,active\n" +
	"belair,REG0005,auto,on,holder,Ugo,Pris," + dob + "," + postal + ",,,owner@example.com,,,false,active\n" +
	"belair,REG0006,auto,on,driver,Nora,Aucun," + dob + "," + postal + ",,,,,,false,active\n" +
	"belair,REG0007,auto,on,driver,Ubald,Conduit," + dob + "," + postal + ",,,owner@example.com,5145550107,,true,active\n" +
	"belair,REG0008,home,on,holder,Carl,Annule," + dob + "," + postal + ",,,carl@example.com,,,false,cancelled\n" +
	"belair,REG0009,auto,on,holder,Léa,Côté-Gagnon," + dob + "," + postal + ",A12345678901234,on,lea@example.com,,,false,active\n" +
	"belair,REG0010,auto,on,driver,Victor,Volant," + dob + "," + postal + ",,,,5145550110,,true,active\n" +
	accounttest.OwnerPolicy

// env is one test's services and routes on a fresh database, with the
// policy file imported and the owner's account (owner@example.com, holder
// of OWN0001) created.
type env struct {
	*testenv.Env
	t      *testing.T
	svc    *registration.Service
	belair *brand.Brand
	mux    *http.ServeMux
	owner  account.Account
	// language is the site's language of the calls ("": en).
	language string
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	reg := testenv.Brands(t)
	b := testenv.Brand(t, reg, "belair")
	te := testenv.New(db)
	c := te.Clock
	accounttest.ImportPolicies(t, db, reg.ByID, c.Now(), people)
	accounts := accounttest.Service(db, c.Now)
	svc, err := registration.New(t.Context(), accounts)
	if err != nil {
		t.Fatal(err)
	}
	svc.Limits = identity.Limits{}
	e := &env{Env: te, t: t, svc: svc, belair: b}
	// The owner registered already: an account linked to OWN0001.
	e.owner = accounttest.Owner(t, db, c.Now(), "")
	h := &registration.Handler{Service: svc}
	login := &account.Handler{Service: accounts}
	e.mux = testenv.Mux(map[string]api.Handler{
		"POST /api/v1/accounts/find":                                     httpapi.FindOverload(login.Find, h.Find),
		"POST /api/v1/registrations/{id}/validations/{validationId}/{$}": h.Validate,
		"POST /api/v1/registrations/{id}/authentication":                 h.Authentication,
		"POST /api/v1/accounts/{id}/create":                              h.Create,
	})
	return e
}

// options returns the methods of the answer's twoFactorValidations and
// their ids by method.
func optionsOf(t testing.TB, a testenv.Answer) ([]string, map[string]string) {
	t.Helper()
	var body struct {
		TwoFactorValidations []registration.Option `json:"twoFactorValidations"`
	}
	if err := json.Unmarshal(a.Body, &body); err != nil {
		t.Fatal(err)
	}
	methods, ids := []string{}, map[string]string{}
	for _, o := range body.TwoFactorValidations {
		methods = append(methods, o.Method)
		ids[o.Method] = o.ID
	}
	return methods, ids
}

// post sends a JSON request to the belair site (province on, language
// e.language or en) from ip.
func (e *env) post(path string, body any) testenv.Answer {
	e.t.Helper()
	language := e.language
	if language == "" {
		language = "en"
	}
	return testenv.Do(e.t, e.mux, testenv.Request{Method: http.MethodPost, Path: path, Body: body, IP: ip,
		Site: &api.Site{Brand: e.belair, Province: "on", Language: language}})
}

// find sends the registration variant of accounts/find.
func (e *env) find(number, first, last string) testenv.Answer {
	e.t.Helper()
	return e.post("/api/v1/accounts/find", map[string]string{"policyNumber": number, "firstName": first,
		"lastName": last, "dateOfBirth": dob, "postalCode": postal})
}

func validatePath(id, validationID string) string {
	return "/api/v1/registrations/" + id + "/validations/" + validationID + "/"
}

func (e *env) send(id, validationID string) testenv.Answer {
	e.t.Helper()
	return e.post(validatePath(id, validationID), map[string]any{})
}

func (e *env) value(id, validationID, v string) testenv.Answer {
	e.t.Helper()
	return e.post(validatePath(id, validationID), map[string]string{"validationValue": v})
}

func (e *env) create(id, password string) testenv.Answer {
	e.t.Helper()
	return e.post("/api/v1/accounts/"+id+"/create", map[string]any{"password": password,
		"passwordConfirmation": password, "termsAccepted": true})
}

// linked returns "number:role" of the belair account's policies.
func (e *env) linked(email string) []string {
	e.t.Helper()
	return accounttest.Linked(e.t, e.DB, "belair", email)
}

// start finds the policy's person (240) and returns the registration's id
// and its options' ids by method.
func (e *env) start(number, first, last string) (string, map[string]string) {
	e.t.Helper()
	return registrationOf(e.t, e.find(number, first, last).Expect(e.t, 240, ""))
}

// startUBI is start for a UBI driver; the find answer must say whether the
// driver's email is a policyholder account's (ubiMatchPH).
func (e *env) startUBI(matchPH bool, number, first, last string) (string, map[string]string) {
	e.t.Helper()
	f := e.find(number, first, last).Expect(e.t, 240, "")
	if f.JSON(e.t)["ubiMatchPH"] != matchPH {
		e.t.Fatalf("find %s", f.Body)
	}
	return registrationOf(e.t, f)
}

// registrationOf is the id of a find answer's registration and its
// options' ids by method.
func registrationOf(t testing.TB, f testenv.Answer) (string, map[string]string) {
	t.Helper()
	_, ids := optionsOf(t, f)
	return f.Str(t, "id"), ids
}

// proveByCode has the option's code sent (200) to the recipient and
// submits it; the answer must have the status.
func (e *env) proveByCode(id, validationID, recipient string, status int) testenv.Answer {
	e.t.Helper()
	e.send(id, validationID).Expect(e.t, 200, "")
	return e.value(id, validationID, e.Mail.Next(e.t, recipient).Data[notify.DataCode]).Expect(e.t, status, "")
}

// offered returns the ids by method of the answer's options; the test fails
// unless their methods are want, in order.
func offered(t testing.TB, a testenv.Answer, want ...string) map[string]string {
	t.Helper()
	methods, ids := optionsOf(t, a)
	if !slices.Equal(methods, want) {
		t.Fatalf("options %v, want %v: %s", methods, want, a.Body)
	}
	return ids
}

// sendsUntilRefused has the option's code sent n times, each answered 200
// and delivered to the recipient; the next send is refused 403 with the
// code and delivers nothing.
func (e *env) sendsUntilRefused(id, validationID, recipient string, n int, code string) {
	e.t.Helper()
	for range n {
		e.send(id, validationID).Expect(e.t, 200, "")
		e.Mail.Next(e.t, recipient)
	}
	e.send(id, validationID).Expect(e.t, 403, code)
	e.Mail.None(e.t, recipient)
}
