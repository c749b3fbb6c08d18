package recovery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/notify"
	"guichet/internal/recovery"
	"guichet/internal/sso"
	"guichet/internal/store"
	"guichet/internal/testclock"
	"guichet/internal/throttle"
)

// testParams keep argon2 fast in tests.
var testParams = account.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

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
	t        *testing.T
	db       *store.DB
	clock    *testclock.Clock
	accounts *account.Service
	service  *recovery.Service
	sso      *sso.Service
	mux      *http.ServeMux
	pokes    int
	pokeMu   sync.Mutex
	// queued lists the outbox rows in the order requests queued them.
	mailMu sync.Mutex
	seen   map[string]bool
	queued []mail
}

// noLimits turns every per-IP and per-account rate limit off; tests of the
// limits set the one they test.
var noLimits = recovery.Limits{GuessesPerAccount: 1000}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	c := testclock.New()
	accounts := account.NewService(db, account.NewHasher(testParams), c.Now)
	accounts.Limits = account.Limits{}
	svc, err := recovery.New(context.Background(), accounts)
	if err != nil {
		t.Fatal(err)
	}
	svc.Limits = noLimits
	e := &env{t: t, db: db, clock: c, accounts: accounts, service: svc, sso: sso.NewService(accounts)}
	svc.Poke = func() {
		e.pokeMu.Lock()
		e.pokes++
		e.pokeMu.Unlock()
	}
	h := &recovery.Handler{Service: svc}
	mux := http.NewServeMux()
	mux.Handle("POST /api/v1/accounts/password-reset", api.Handler(h.RequestReset))
	mux.Handle("POST /api/v1/accounts/password-reset/link", api.Handler(h.ExchangeLink))
	mux.Handle("POST /api/v1/accounts/{id}/password-reset/{validationId}/resend", api.Handler(h.Resend))
	mux.Handle("POST /api/v1/accounts/{id}/validations/{validationId}/{$}", api.Handler(h.Validate))
	mux.Handle("POST /api/v1/accounts/{id}/password", api.Handler(h.SetPassword))
	e.mux = mux
	return e
}

// answer is a recorded response.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("body %q: %v", a.body, err)
	}
	return m
}

func (a answer) str(t *testing.T, key string) string {
	t.Helper()
	s, _ := a.json(t)[key].(string)
	return s
}

// expect fails unless the answer has the status and, when code is not
// empty, that errorCode.
func (a answer) expect(t *testing.T, status int, code string) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d: %s", a.status, status, a.body)
	}
	if code != "" {
		if got := a.str(t, "errorCode"); got != code {
			t.Fatalf("errorCode %q, want %q: %s", got, code, a.body)
		}
	}
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
	var raw []byte
	switch v := body.(type) {
	case nil:
	case string:
		raw = []byte(v)
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			e.t.Fatal(err)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "https://"+b.ID+".example"+path, bytes.NewReader(raw))
	r.Header.Set("Content-Type", "application/json")
	r.RemoteAddr = ip + ":40000"
	r = r.WithContext(api.WithSite(r.Context(), api.Site{Brand: b, Province: b.DefaultProvince, Language: language}))
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, r)
	res := w.Result()
	out, _ := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, header: res.Header, body: out}
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
	ctx := context.Background()
	pwHash, err := account.NewHasher(testParams).Hash(ctx, oldPassword)
	if err != nil {
		e.t.Fatal(err)
	}
	a := account.Account{Brand: belair.ID, Email: email, FirstName: "Alex", LastName: "Martin",
		PostalCode: postalCode, Phone: phone, DateOfBirth: "1980-04-12", Language: "en"}
	if mutate != nil {
		mutate(&a)
	}
	err = e.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		a, err = account.Insert(ctx, tx, a, pwHash, e.clock.Now())
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if temp != "" {
		e.giveTemporary(a, temp)
		a.Status = account.Temporary
	}
	return a
}

// giveTemporary issues a temporary password to the account, as staff do.
func (e *env) giveTemporary(a account.Account, temp string) {
	e.t.Helper()
	ctx := context.Background()
	th, err := account.NewHasher(testParams).Hash(ctx, temp)
	if err != nil {
		e.t.Fatal(err)
	}
	err = e.db.InTx(ctx, func(tx *store.Tx) error {
		return account.SetTemporaryPassword(ctx, tx, a.ID, th, e.clock.Now().Add(7*24*time.Hour), e.clock.Now())
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// started is a request's answer.
type started struct{ id, validationID string }

// request asks for a reset of email and checks the answer's shape.
func (e *env) request(email string) started {
	e.t.Helper()
	got := e.post(requestPath, map[string]string{"email": email})
	got.expect(e.t, 200, "")
	return startedOf(e.t, got)
}

func startedOf(t *testing.T, got answer) started {
	t.Helper()
	m := got.json(t)
	id, _ := m["id"].(string)
	vid, _ := m["validationId"].(string)
	if len(m) != 2 || !idShape.MatchString(id) || !idShape.MatchString(vid) {
		t.Fatalf("answer %s is not {id, validationId} of the id shape", got.body)
	}
	return started{id, vid}
}

// mail is an outbox row.
type mail struct {
	template, recipient, language string
	data                          map[string]string
	expiresAt                     int64
}

// outbox returns the queued messages in the order the requests queued
// them. Rows carry no sequence (and their creation times may tie within a
// millisecond), so every request is followed by a scan that appends what it
// queued.
func (e *env) outbox() []mail {
	e.t.Helper()
	e.mailMu.Lock()
	defer e.mailMu.Unlock()
	rows, err := e.db.Query(context.Background(), "SELECT id, template, recipient, language, data, expires_at FROM outbox ORDER BY created_at, id")
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	if e.seen == nil {
		e.seen = map[string]bool{}
	}
	for rows.Next() {
		var id, data string
		var m mail
		if err := rows.Scan(&id, &m.template, &m.recipient, &m.language, &data, &m.expiresAt); err != nil {
			e.t.Fatal(err)
		}
		if e.seen[id] {
			continue
		}
		if err := json.Unmarshal([]byte(data), &m.data); err != nil {
			e.t.Fatal(err)
		}
		e.seen[id] = true
		e.queued = append(e.queued, m)
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return slices.Clone(e.queued)
}

// mails returns the queued messages of a template to a recipient.
func (e *env) mails(template, to string) []mail {
	e.t.Helper()
	var out []mail
	for _, m := range e.outbox() {
		if m.template == template && m.recipient == to {
			out = append(out, m)
		}
	}
	return out
}

// lastCode is the code of the last reset-code email to the address, as the
// visitor reads it.
func (e *env) lastCode(to string) string {
	e.t.Helper()
	codes := e.mails(notify.TemplateResetCode, to)
	if len(codes) == 0 {
		e.t.Fatalf("no reset code was sent to %s", to)
	}
	return codes[len(codes)-1].data[notify.DataCode]
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
	got.expect(e.t, 200, "")
	return got.str(e.t, "token")
}

// signIn opens an SSO session with the password and returns its token.
func (e *env) signIn(a account.Account, password string) string {
	e.t.Helper()
	token, err := e.sso.SignIn(context.Background(), sso.SignIn{Brand: a.Brand, Username: a.Email, Password: password, IP: ip})
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
	rows, err := e.db.Query(context.Background(),
		"SELECT event, outcome FROM audit_events WHERE account_id = ? AND event LIKE 'recovery.%' ORDER BY id", accountID)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var ev, oc string
		if err := rows.Scan(&ev, &oc); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, ev+" "+oc)
	}
	return out
}

// rule is a rate limit for tests.
func rule(scope string, limit int) throttle.Rule {
	return throttle.Rule{Scope: scope, Limit: limit, Window: time.Hour}
}
