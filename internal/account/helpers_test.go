package account_test

import (
	"net/http"
	"strings"
	"testing"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

const password = "Correct-Horse-9!"

var (
	belair = &brand.Brand{ID: "belair", DefaultProvince: "on", PolicyNumber: brand.PolicyNumber{Length: 7, Mask: "AAA-AAAA"},
		Hosts: []string{"belair.example", "compte.belair.example"}, DevHosts: []string{"belair.localhost"}}
	intact = &brand.Brand{ID: "intact", DefaultProvince: "ab", Hosts: []string{"intact.example"}, PolicyNumber: brand.PolicyNumber{Length: 7, Mask: "AAA-AAAA",
		ByProvince: map[string]brand.PolicyNumberFormat{"ab": {Length: 9, Mask: "AAAAAAAAA"}}}}
)

// env is one test's service, handlers and clock on a fresh database.
type env struct {
	*testenv.Env
	t       *testing.T
	service *account.Service
	mux     *http.ServeMux
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	te := testenv.New(db)
	svc := account.NewService(db, accounttest.Hasher(), te.Clock.Now)
	h := &account.Handler{Service: svc}
	mux := testenv.Mux(map[string]api.Handler{
		"POST /api/v1/accounts/find":                h.Find,
		"POST /api/v1/accounts/{id}/temporary":      h.Temporary,
		"POST /api/v1/accounts/{id}/authentication": h.Authentication,
		"POST /api/v1/accounts/{id}/notification":   h.Notification,
	})
	return &env{Env: te, t: t, service: svc, mux: mux}
}

// answer is a recorded response.
type answer = testenv.Answer

// req is a JSON POST as the brand's site, in English, from an IP.
func req(b *brand.Brand, ip, path string, body any) testenv.Request {
	return testenv.Request{Method: http.MethodPost, Path: path, Body: body, IP: ip,
		Headers: map[string]string{"Content-Type": "application/json"},
		Site:    &api.Site{Brand: b, Province: b.DefaultProvince, Language: "en"}}
}

// post sends a JSON body as the brand's site from an IP.
func (e *env) post(b *brand.Brand, ip, path string, body any) answer {
	e.t.Helper()
	return testenv.Do(e.t, e.mux, req(b, ip, path, body))
}

// create stores an account with the password (or a temporary password when
// temp is set) and returns it.
func (e *env) create(b *brand.Brand, email string, mutate func(*account.Account), temp string) account.Account {
	e.t.Helper()
	a := account.Account{Brand: b.ID, Email: email, FirstName: "Alex", LastName: "Martin",
		PostalCode: "H2X 1Y4", DateOfBirth: "1980-04-12", Language: "en"}
	if mutate != nil {
		mutate(&a)
	}
	return accounttest.Create(e.t, e.DB, e.Clock.Now(), a, password, temp)
}

func authPath(id string) string { return "/api/v1/accounts/" + id + "/authentication" }
func tempPath(id string) string { return "/api/v1/accounts/" + id + "/temporary" }
func notifyPath(id string) string {
	return "/api/v1/accounts/" + id + "/notification"
}

// auditRows returns "event outcome" of an account's audit events, oldest
// first.
func (e *env) auditRows(accountID string) []string {
	e.t.Helper()
	return e.Audit(e.t, accountID, "")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// each runs fn on a fresh env on every database (storetest.Each).
func each(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	storetest.Each(t, func(t *testing.T, db *store.DB) { fn(t, newEnv(t, db)) })
}
