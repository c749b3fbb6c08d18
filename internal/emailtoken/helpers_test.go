package emailtoken_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"guichet/config"
	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/emailtoken"
	"guichet/internal/httpapi"
	"guichet/internal/identity"
	"guichet/internal/policy"
	"guichet/internal/recovery"
	"guichet/internal/registration"
	"guichet/internal/store"
	"guichet/internal/testclock"
)

// testParams keep argon2 fast in tests.
var testParams = account.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

const (
	ip          = "192.0.2.20"
	dob         = "1985-03-14"
	postal      = "M5V 2T6"
	ownerPass   = "Correct-Horse-9!"
	newPassword = "Maple-Harbour-7?"
	cell        = "5145550303"
)

// people: one person per action of the token routing table (belair, on).
const people = "brand,policy_number,kind,province,role,first_name,last_name,date_of_birth,postal_code,driver_licence,licence_province,email,cell_phone,pin,ubi,status\n" +
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
	"belair,OWN0001,auto,on,holder,Olivia,Owner,1980-04-12," + postal + ",,,owner@example.com,,,false,active\n" +
	// reset-password-login of a UBI driver with an account: the cell phone
	"belair,TOK0007,auto,on,driver,Uma,Compte," + dob + "," + postal + ",,,uma@example.com," + cell + ",,true,active\n" +
	// 412 INCONSISTENT: Uma again (registered as uma@), her file giving the owner's email
	"belair,TOK0008,home,on,holder,Uma,Compte," + dob + "," + postal + ",,,owner@example.com,,,false,active\n" +
	"bna,BNA0001,auto,qc,holder,Bruno,Autre," + dob + ",H2X 1Y4,,,bruno@example.com,,,false,active\n"

// env is one test's services and routes on a fresh database.
type env struct {
	t      *testing.T
	db     *store.DB
	clock  *testclock.Clock
	tokens *emailtoken.Service
	regs   *registration.Service
	brands *brand.Registry
	mux    *http.ServeMux
	admin  http.Handler
	owner  account.Account
	uma    account.Account // a UBI driver's account
	keys   map[string]string
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	ctx := context.Background()
	reg, err := brand.LoadFS(config.Brands(), "embedded")
	if err != nil {
		t.Fatal(err)
	}
	c := testclock.New()
	im := &policy.Importer{DB: db, Brands: reg.ByID, Now: c.Now()}
	if _, err := im.Import(ctx, strings.NewReader(people)); err != nil {
		t.Fatal(err)
	}
	accounts := account.NewService(db, account.NewHasher(testParams), c.Now)
	accounts.Limits = account.Limits{}
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
	e := &env{t: t, db: db, clock: c, tokens: tokens, regs: regs, brands: reg,
		keys: map[string]string{"belair": "belair-service-key-0123456789", "bna": "bna-service-key-0123456789"}}
	hash, err := account.NewHasher(testParams).Hash(ctx, ownerPass)
	if err != nil {
		t.Fatal(err)
	}
	err = db.InTx(ctx, func(tx *store.Tx) error {
		a, err := account.Insert(ctx, tx, account.Account{Brand: "belair", Email: "owner@example.com", Language: "fr",
			FirstName: "Olivia", LastName: "Owner", DateOfBirth: "1980-04-12", PostalCode: postal}, hash, c.Now())
		if err != nil {
			return err
		}
		e.owner = a
		p, err := policy.ByNumber(ctx, tx, "belair", "OWN0001")
		if err != nil {
			return err
		}
		if err := policy.Link(ctx, tx, a.ID, p.ID, policy.Holder); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, "UPDATE insured_people SET account_id = ? WHERE policy_id = ?", a.ID, p.ID); err != nil {
			return err
		}
		uma, err := account.Insert(ctx, tx, account.Account{Brand: "belair", Email: "uma@example.com", Language: "en",
			UBIDriver: true, Phone: cell, FirstName: "Uma", LastName: "Compte", DateOfBirth: dob, PostalCode: postal}, hash, c.Now())
		if err != nil {
			return err
		}
		e.uma = uma
		_, err = tx.Exec(ctx, "UPDATE insured_people SET account_id = ? WHERE first_name = 'Uma'", uma.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rh := &registration.Handler{Service: regs}
	th := &emailtoken.Handler{Service: tokens, ServiceKey: func(b string) string { return e.keys[b] }, Brands: reg.All}
	ah := &account.Handler{Service: accounts}
	ch := &recovery.Handler{Service: recoveries}
	mux := http.NewServeMux()
	mux.Handle("GET /api/v1/tokens/{token}", api.Handler(th.Read))
	mux.Handle("DELETE /api/v1/tokens/{token}", api.Handler(th.Delete))
	mux.Handle("POST /api/v1/registrations/{id}/validations/{validationId}/{$}", api.Handler(rh.Validate))
	mux.Handle("POST /api/v1/registrations/{id}/authentication", api.Handler(rh.Authentication))
	mux.Handle("POST /api/v1/accounts/{id}/create", api.Handler(rh.Create))
	mux.Handle("POST /api/v1/accounts/{id}/authentication", httpapi.AuthenticationOverload(ah.Authentication, rh.Authentication, regs.IsRegistration))
	mux.Handle("POST /api/v1/accounts/{id}/password", api.Handler(ch.SetPassword))
	e.mux = mux
	admin := http.NewServeMux()
	admin.Handle("POST /api/admin/v1/tokens", api.Handler(th.AdminIssue))
	e.admin = admin
	return e
}

// issue issues a token for the test (IssuedBy cli), failing on error.
func (e *env) issue(number, email, source string) emailtoken.Issued {
	e.t.Helper()
	out, err := e.tokens.Issue(context.Background(), emailtoken.Request{Brand: "belair", PolicyNumber: number,
		Email: email, Source: source, IssuedBy: emailtoken.IssuedByCLI})
	if err != nil {
		e.t.Fatalf("issue %s %s: %v", number, email, err)
	}
	return out
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

func (a answer) expect(t *testing.T, status int, code string) answer {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d: %s", a.status, status, a.body)
	}
	if code != "" {
		if got := a.str(t, "errorCode"); got != code {
			t.Fatalf("errorCode %q, want %q: %s", got, code, a.body)
		}
	}
	return a
}

// token is the answer of a token read.
func (a answer) token(t *testing.T) emailtoken.Answer {
	t.Helper()
	var out emailtoken.Answer
	if err := json.Unmarshal(a.body, &out); err != nil {
		t.Fatalf("body %q: %v", a.body, err)
	}
	return out
}

func (e *env) do(method, path string, body any, b *brand.Brand) answer {
	e.t.Helper()
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			e.t.Fatal(err)
		}
		if s, ok := body.(string); ok {
			raw = []byte(s)
		}
	}
	r := httptest.NewRequest(method, "https://belair.example"+path, bytes.NewReader(raw))
	r.Header.Set("Content-Type", "application/json")
	r.RemoteAddr = ip + ":40000"
	if b == nil {
		b, _ = e.brands.ByID("belair")
	}
	r = r.WithContext(api.WithSite(r.Context(), api.Site{Brand: b, Province: b.DefaultProvince, Language: "en"}))
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, r)
	res := w.Result()
	out, _ := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, header: res.Header, body: out}
}

func (e *env) post(path string, body any) answer {
	e.t.Helper()
	return e.do(http.MethodPost, path, body, nil)
}

// read is GET /api/v1/tokens/{token}?src=… (src "" for none).
func (e *env) read(token, src string) answer {
	e.t.Helper()
	path := "/api/v1/tokens/" + token
	if src != "" {
		path += "?src=" + url.QueryEscape(src)
	}
	return e.do(http.MethodGet, path, nil, nil)
}

// create is the token variant of account-creation/password.
func (e *env) create(id string, proof map[string]any) answer {
	e.t.Helper()
	body := map[string]any{"password": newPassword, "passwordConfirmation": newPassword, "termsAccepted": true}
	for k, v := range proof {
		body[k] = v
	}
	return e.post("/api/v1/accounts/"+id+"/create", body)
}

// adminCall posts to the admin API with an Authorization header ("" for
// none).
func (e *env) adminCall(authorization string, body any) answer {
	e.t.Helper()
	raw, _ := json.Marshal(body)
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:9090/api/admin/v1/tokens", bytes.NewReader(raw))
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	r.RemoteAddr = "10.0.0.5:5000"
	w := httptest.NewRecorder()
	e.admin.ServeHTTP(w, r)
	res := w.Result()
	out, _ := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, header: res.Header, body: out}
}

// count is a COUNT(*) query's answer.
func (e *env) count(q string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// linked returns "number:role" of the account's policies.
func (e *env) linked(email string) []string {
	e.t.Helper()
	ctx := context.Background()
	a, err := account.ByEmail(ctx, e.db, "belair", email)
	if err != nil {
		e.t.Fatalf("account %s: %v", email, err)
	}
	ps, err := policy.ForAccount(ctx, e.db, a.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.Number+":"+string(p.Role))
	}
	return out
}

// day is 24 hours.
const day = 24 * time.Hour

func jsonInto(raw []byte, v any) error { return json.Unmarshal(raw, v) }

func mustBrands(t *testing.T) *brand.Registry {
	t.Helper()
	reg, err := brand.LoadFS(config.Brands(), "embedded")
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
