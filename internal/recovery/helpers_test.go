package recovery_test

import (
	"context"
	"net/http"
	"regexp"
	"sync"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/notify"
	"guichet/internal/recovery"
	"guichet/internal/sso"
	"guichet/internal/store"
	"guichet/internal/testenv"
	"guichet/internal/throttle"
)

const (
	oldPassword = "Correct-Horse-9!"
	newPassword = "Brand-New-Pass-7?"
	postalCode  = "H2X 1Y4"
	phone       = "5145550123"
	ip          = "192.0.2.10"
)

var (
	belair = &brand.Brand{ID: "belair", DefaultProvince: "on"}
	intact = &brand.Brand{ID: "intact", DefaultProvince: "ab"}
)

// idShape is the shape of account ids and of every id this package answers.
var idShape = regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`)

// env is one test's services and routes on a fresh database.
type env struct {
	*testenv.Env
	t        *testing.T
	accounts *account.Service
	service  *recovery.Service
	sso      *sso.Service
	mux      *http.ServeMux
	pokes    int
	pokeMu   sync.Mutex
}

// noLimits turns every per-IP and per-account rate limit off; tests of the
// limits set the one they test.
var noLimits = recovery.Limits{GuessesPerAccount: 1000}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	te := testenv.New(db)
	accounts := accounttest.Service(db, te.Clock.Now)
	svc, err := recovery.New(context.Background(), accounts)
	if err != nil {
		t.Fatal(err)
	}
	svc.Limits = noLimits
	e := &env{Env: te, t: t, accounts: accounts, service: svc, sso: sso.NewService(accounts)}
	svc.Poke = func() {
		e.pokeMu.Lock()
		e.pokes++
		e.pokeMu.Unlock()
	}
	h := &recovery.Handler{Service: svc}
	e.mux = testenv.Mux(map[string]api.Handler{
		"POST /api/v1/accounts/password-reset":                            h.RequestReset,
		"POST /api/v1/accounts/password-reset/link":                       h.ExchangeLink,
		"POST /api/v1/accounts/{id}/password-reset/{validationId}/resend": h.Resend,
		"POST /api/v1/accounts/{id}/validations/{validationId}/{$}":       h.Validate,
		"POST /api/v1/accounts/{id}/password":                             h.SetPassword,
	})
	return e
}

// answer is a recorded response.
type answer = testenv.Answer

// req is a JSON POST as the brand's site, in a language, from ip.
func req(b *brand.Brand, language, path string, body any) testenv.Request {
	return testenv.Request{Method: http.MethodPost, Path: path, Body: body, IP: ip,
		Headers: map[string]string{"Content-Type": "application/json"},
		Site:    &api.Site{Brand: b, Province: b.DefaultProvince, Language: language}}
}

// scenario is a request as belair's site, in English, for testenv.Run.
func scenario(name, path string, body any, status int, code string) testenv.Scenario {
	return testenv.Scenario{Name: name, Request: req(belair, "en", path, body), Status: status, Code: code}
}

// postAs sends a JSON body as the brand's site, in a language, then notes
// what it queued in the outbox.
func (e *env) postAs(b *brand.Brand, language, path string, body any) answer {
	e.t.Helper()
	got := e.serve(b, language, path, body)
	e.outbox()
	return got
}

// serve sends a JSON body as the brand's site, in a language.
func (e *env) serve(b *brand.Brand, language, path string, body any) answer {
	e.t.Helper()
	return testenv.Do(e.t, e.mux, req(b, language, path, body))
}

func (e *env) post(path string, body any) answer {
	e.t.Helper()
	return e.postAs(belair, "en", path, body)
}

// Paths of the recovery API.
const requestPath = "/api/v1/accounts/password-reset"
const linkPath = "/api/v1/accounts/password-reset/link"

func resendPath(id, validationID string) string {
	return "/api/v1/accounts/" + id + "/password-reset/" + validationID + "/resend"
}
func validatePath(id, validationID string) string {
	return "/api/v1/accounts/" + id + "/validations/" + validationID + "/"
}
func passwordPath(id string) string { return "/api/v1/accounts/" + id + "/password" }

// create stores an active account of belair with oldPassword (and a
// temporary password when temp is set).
func (e *env) create(email string, mutate func(*account.Account), temp string) account.Account {
	e.t.Helper()
	a := account.Account{Brand: belair.ID, Email: email, FirstName: "Alex", LastName: "Martin",
		PostalCode: postalCode, Phone: phone, DateOfBirth: "1980-04-12", Language: "en"}
	if mutate != nil {
		mutate(&a)
	}
	return accounttest.Create(e.t, e.DB, e.Clock.Now(), a, oldPassword, temp)
}

// giveTemporary issues a temporary password to the account, as staff do.
func (e *env) giveTemporary(a account.Account, temp string) {
	e.t.Helper()
	accounttest.GiveTemporary(e.t, e.DB, e.Clock.Now(), a.ID, temp)
}

// started is a request's answer.
type started struct{ id, validationID string }

// request asks for a reset of email and checks the answer's shape.
func (e *env) request(email string) started {
	e.t.Helper()
	got := e.post(requestPath, map[string]string{"email": email})
	got.Expect(e.t, 200, "")
	return startedOf(e.t, got)
}

func startedOf(t *testing.T, got answer) started {
	t.Helper()
	m := got.JSON(t)
	id, _ := m["id"].(string)
	vid, _ := m["validationId"].(string)
	if len(m) != 2 || !idShape.MatchString(id) || !idShape.MatchString(vid) {
		t.Fatalf("answer %s is not {id, validationId} of the id shape", got.Body)
	}
	return started{id, vid}
}

// outbox returns the queued messages in the order the requests queued
// them (every request is followed by a look: testenv.Mailbox).
func (e *env) outbox() []testenv.Mail {
	e.t.Helper()
	return e.Mail.All(e.t)
}

// mails returns the queued messages of a template to a recipient.
func (e *env) mails(template, to string) []testenv.Mail {
	e.t.Helper()
	return e.Mail.To(e.t, template, to)
}

// lastCode is the code of the last reset-code email to the address, as the
// visitor reads it.
func (e *env) lastCode(to string) string {
	e.t.Helper()
	codes := e.mails(notify.TemplateResetCode, to)
	if len(codes) == 0 {
		e.t.Fatalf("no reset code was sent to %s", to)
	}
	return codes[len(codes)-1].Data[notify.DataCode]
}

// wrong returns a 6-digit code that is not code.
func wrong(code string) string {
	if code == "000000" {
		return "111111"
	}
	return "000000"
}

// verified runs a reset up to its token: request, code, validation.
func (e *env) verified(a account.Account) (token string) {
	e.t.Helper()
	s := e.request(a.Email)
	got := e.post(validatePath(s.id, s.validationID), map[string]string{"validationValue": e.lastCode(a.Email)})
	got.Expect(e.t, 200, "")
	return got.Str(e.t, "token")
}

// signIn opens an SSO session with the password and returns its token.
func (e *env) signIn(a account.Account, password string) string {
	e.t.Helper()
	token, _, err := e.sso.SignIn(context.Background(), sso.SignIn{Brand: a.Brand, Username: a.Email, Password: password, IP: ip})
	if err != nil {
		e.t.Fatalf("sign in %s: %v", a.Email, err)
	}
	return token
}

// passwordWorks tells whether the account's password check accepts pw.
func (e *env) passwordWorks(a account.Account, pw string) bool {
	e.t.Helper()
	_, err := e.accounts.Authenticate(context.Background(), account.Credentials{Brand: a.Brand, AccountID: a.ID, Password: pw, IP: ip})
	switch {
	case err == nil:
		return true
	case err == account.ErrWrongPassword:
		return false
	}
	e.t.Fatalf("authenticate: %v", err)
	return false
}

// auditOutcomes returns "event outcome" of an account's recovery events.
func (e *env) auditOutcomes(accountID string) []string {
	e.t.Helper()
	return e.Audit(e.t, accountID, "recovery.")
}

// rule is a rate limit for tests.
func rule(scope string, limit int) throttle.Rule {
	return throttle.Rule{Scope: scope, Limit: limit, Window: time.Hour}
}

// each runs fn on a fresh env on every database (testenv.EachEnv).
func each(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	testenv.EachEnv(t, newEnv, fn)
}

// afterWait is a case of an expiry test: after waiting so long, the call
// answers status and error code.
type afterWait struct {
	name   string
	after  time.Duration
	status int
	code   string
}
