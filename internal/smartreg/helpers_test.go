package smartreg_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/api"
	"guichet/internal/api/apitest"
	"guichet/internal/brand"
	"guichet/internal/identity"
	"guichet/internal/policy"
	"guichet/internal/smartreg"
	"guichet/internal/store"
	"guichet/internal/testenv"
)

const (
	clientIP    = "198.51.100.7"
	birth       = "1979-11-02"
	postalCode  = "H2X 1Y4"
	ownerEmail  = "owner@example.com"
	thePIN      = "ZX98CV76"
	newPassword = "Brand-New-Pass-7?"
)

// insured are the insurer's records of the tests (belair, province qc,
// born `birth`, living at `postalCode`): one person per path of smart
// registration; policyFile writes them as `guichet import-policies` reads.
var insured = []struct {
	number, kind, role, first, last, email, cell, pin string
	ubi, cancelled                                    bool
}{
	{number: "SMR0001", kind: "auto", role: "holder", first: "Emma", last: "Courriel", email: "emma@example.com"},
	{number: "SMR0002", kind: "auto", role: "holder", first: "Simon", last: "Texto", email: "simon@example.com", cell: "5145550101"},
	{number: "SMR0003", kind: "home", role: "holder", first: "Paula", last: "Nip", email: "paula@example.com", pin: thePIN},
	{number: "SMR0004", kind: "home", role: "holder", first: "Alice", last: "Sansfil"},
	{number: "SMR0005", kind: "auto", role: "holder", first: "Ugo", last: "Pris", email: ownerEmail},
	{number: "SMR0006", kind: "auto", role: "driver", first: "Nora", last: "Aucun", email: "nora@example.com"},
	{number: "SMR0007", kind: "auto", role: "driver", first: "Ubald", last: "Conduit", email: ownerEmail, cell: "5145550107", ubi: true},
	{number: "SMR0008", kind: "home", role: "holder", first: "Carl", last: "Annule", email: "carl@example.com", cancelled: true},
}

func policyFile() string {
	var b strings.Builder
	b.WriteString(accounttest.PolicyHeader)
	for _, p := range insured {
		status := map[bool]string{false: "active", true: "cancelled"}[p.cancelled]
		fmt.Fprintf(&b, "belair,%s,%s,qc,%s,%s,%s,%s,%s,,,%s,%s,%s,%t,%s\n", p.number, p.kind, p.role, p.first, p.last,
			birth, postalCode, p.email, p.cell, p.pin, p.ubi, status)
	}
	// The owner, registered already (newEnv makes the account).
	b.WriteString("belair,OWN0001,auto,qc,holder,Olivia,Owner,1980-04-12," + postalCode + ",,,owner@example.com,,,false,active\n")
	return b.String()
}

// smartYAML is appended to a copy of belair's brand file for the tests of
// brand field lists (brandWithLists).
const smartYAML = `
smartRegistration:
  identification:
    policyHolder:
      on: [policyNumber, lastName, dateOfBirth, email]
    insuredDriver:
      default: [policyNumber, firstName, lastName, dateOfBirth, phone]
`

// brands loads the sample brands, belair with the field lists of smartYAML.
func brands(t *testing.T) *brand.Registry {
	t.Helper()
	dir := testenv.BrandsDir(t)
	belair := filepath.Join(dir, "belair.yaml")
	raw, err := os.ReadFile(belair)
	if err != nil {
		t.Fatal(err)
	}
	// Into belair's own smartRegistration block when it has one (its pinRoadblock).
	if text := string(raw); strings.Contains(text, "\nsmartRegistration:\n") {
		raw = []byte(strings.Replace(text, "\nsmartRegistration:\n", smartYAML, 1))
	} else {
		raw = append(raw, smartYAML...)
	}
	if err := os.WriteFile(belair, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	reg, err := brand.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// env is one test's services and routes on a database, the policy file
// imported and the owner's account (owner@example.com, holder of OWN0001).
type env struct {
	*testenv.Env
	t        *testing.T
	svc      *smartreg.Service
	reg      *brand.Registry
	belair   *brand.Brand
	mux      *http.ServeMux
	province string
	owner    account.Account
	schemas  map[string]map[string]any
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	ctx := t.Context()
	reg := brands(t)
	b, _ := reg.ByID("belair")
	te := testenv.New(db)
	c := te.Clock
	accounttest.ImportPolicies(t, db, reg.ByID, c.Now(), policyFile())
	e := &env{Env: te, t: t, reg: reg, belair: b, province: "qc"}
	e.svc = e.service(nil)
	hash, err := accounttest.Hasher().Hash(ctx, "Correct-Horse-9!")
	if err != nil {
		t.Fatal(err)
	}
	// The owner registered already, as any person does (identity.CreateAccount).
	owners, err := policy.People(ctx, db, "belair", "OWN0001")
	if err != nil || len(owners) != 1 {
		t.Fatalf("owner: %v %v", owners, err)
	}
	err = db.InTx(ctx, func(tx *store.Tx) error {
		e.owner, err = identity.CreateAccount(ctx, tx, owners[0], identity.Creation{Email: ownerEmail, Language: "en",
			PasswordHash: hash}, c.Now())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	e.mux = mux(e.svc)
	e.skip() // the owner's account-created email
	return e
}

// service is one more instance on the env's database and clock (keys nil:
// the database key, shared by every instance).
func (e *env) service(keys smartreg.Keys) *smartreg.Service {
	e.t.Helper()
	accounts := accounttest.Service(e.DB, e.Clock.Now)
	svc, err := smartreg.New(e.t.Context(), accounts, keys)
	if err != nil {
		e.t.Fatal(err)
	}
	svc.Limits = identity.Limits{}
	return svc
}

// mux routes the calls as internal/httpapi does (routes.go).
func mux(svc *smartreg.Service) *http.ServeMux {
	h := &smartreg.Handler{Service: svc}
	routes := map[string]api.Handler{
		"GET /api/v2/registration":           h.Start,
		"GET /api/v2/registration/fields":    h.Fields,
		"POST /api/v2/registration/identify": h.Identify,
		"GET /api/v2/verify/options":         h.Options,
		"POST /api/v2/verify/send":           h.Send,
		"GET /api/v2/verify/resend":          h.Resend,
		"POST /api/v2/registration/verify":   h.Verify,
		"POST /api/v2/verify/email":          h.ConfirmEmail,
		"POST /api/v2/choose-username":       h.ChooseUsername,
		"POST /api/v2/create":                h.Create,
		"GET /api/v2/account-info":           h.AccountInfo,
		"GET /api/v2/back":                   h.Back,
	}
	for pattern, fn := range routes {
		routes[pattern] = smartreg.Wrap(fn)
	}
	return testenv.Mux(routes)
}

// answer is a recorded response with its x-registration-session header
// ("" when none).
type answer struct {
	testenv.Answer
	token string
}

func (a answer) data(t *testing.T, key string) any {
	t.Helper()
	d, _ := a.JSON(t)["data"].(map[string]any)
	return d[key]
}

// ok fails unless the answer is status with step (when not empty).
func (a answer) ok(t *testing.T, status int, step string) answer {
	t.Helper()
	a.Expect(t, status, "")
	if step != "" && a.Str(t, "step") != step {
		t.Fatalf("step %q, want %q: %s", a.Str(t, "step"), step, a.Body)
	}
	return a
}

// refused fails unless the answer is a 400 with that error.
func (a answer) refused(t *testing.T, code string) answer {
	t.Helper()
	if a.Status != http.StatusBadRequest || a.Str(t, "error") != code {
		t.Fatalf("want 400 %s, got %d %s", code, a.Status, a.Body)
	}
	return a
}

// flow is one visitor's session: the token it holds, renewed by answers.
type flow struct {
	e     *env
	mux   *http.ServeMux
	token string
	brand *brand.Brand
}

func (e *env) visitor() *flow { return &flow{e: e, mux: e.mux, brand: e.belair} }

func (f *flow) do(method, path string, body any) answer {
	f.e.t.Helper()
	req := testenv.Request{Method: method, Path: path, Body: body, IP: clientIP,
		Headers: map[string]string{"Content-Type": "application/json"},
		Site:    &api.Site{Brand: f.brand, Province: f.e.province, Language: "fr"}}
	if f.token != "" {
		req.Headers[smartreg.HeaderSession] = f.token
	}
	a := answer{Answer: testenv.Do(f.e.t, f.mux, req)}
	a.token = a.Header.Get(smartreg.HeaderSession)
	if a.token != "" {
		f.token = a.token
	}
	f.e.conforms(path, a)
	return a
}

// conforms checks an answer (and its token's claims) against the schemas
// of api/openapi.yaml the SPA's types come from.
func (e *env) conforms(path string, a answer) {
	e.t.Helper()
	if e.schemas == nil {
		e.schemas = apitest.Schemas(e.t)
	}
	var body any
	if err := json.Unmarshal(a.Body, &body); err != nil {
		e.t.Fatalf("%s: %d %q: %v", path, a.Status, a.Body, err)
	}
	name := "Error"
	switch {
	case a.Status/100 == 2 && strings.HasPrefix(path, "/api/v2/registration/fields"):
		name = "SmartFields"
	case a.Status/100 == 2 && path == "/api/v2/verify/options":
		name = "SmartOptions"
	case a.Status/100 == 2:
		name = "SmartStep"
	case a.Status == http.StatusBadRequest && body.(map[string]any)["error"] != nil:
		name = "SmartError"
	}
	if err := apitest.Conform(e.schemas, name, body); err != nil {
		e.t.Fatalf("%s answered %d %s: %v", path, a.Status, a.Body, err)
	}
	if a.token != "" {
		raw, err := base64.RawURLEncoding.DecodeString(strings.Split(a.token, ".")[1])
		var claims any
		if err == nil {
			err = json.Unmarshal(raw, &claims)
		}
		if err == nil {
			err = apitest.Conform(e.schemas, "SmartSessionClaims", claims)
		}
		if err != nil {
			e.t.Fatalf("%s: token claims: %v", path, err)
		}
	}
}

func (f *flow) start(accountType string) answer {
	f.e.t.Helper()
	return f.do(http.MethodGet, "/api/v2/registration?accountType="+accountType, nil)
}

// identify sends the default (legacy) fields of a person of policyFile.
func (f *flow) identify(number, first, last string) answer {
	f.e.t.Helper()
	return f.do(http.MethodPost, "/api/v2/registration/identify", map[string]string{"policyNumber": number,
		"firstName": first, "lastName": last, "dateOfBirth": birth, "postalCode": postalCode})
}

// option returns the id of the option named (EMAIL, SMS, PIN).
func (f *flow) option(name string) string {
	f.e.t.Helper()
	a := f.do(http.MethodGet, "/api/v2/verify/options", nil).ok(f.e.t, 200, "VERIFY")
	var body struct {
		Options []smartreg.Option `json:"options"`
	}
	if err := json.Unmarshal(a.Body, &body); err != nil {
		f.e.t.Fatal(err)
	}
	for _, o := range body.Options {
		if o.OptionName == name {
			return o.ID
		}
	}
	f.e.t.Fatalf("no %s option: %s", name, a.Body)
	return ""
}

func (f *flow) send(optionID string) answer {
	return f.do(http.MethodPost, "/api/v2/verify/send", map[string]string{"optionId": optionID})
}

func (f *flow) verify(code string) answer {
	return f.do(http.MethodPost, "/api/v2/registration/verify", map[string]string{"code": code})
}

func (f *flow) create(password string) answer {
	return f.do(http.MethodPost, "/api/v2/create", map[string]any{"password": password,
		"passwordConfirmation": password, "termsAccepted": true})
}

var sixDigits = regexp.MustCompile(`^\d{6}$`)

// code returns the code of the one message queued to `to` since the last
// look, failing unless there is exactly one, with six digits.
func (e *env) code(to string) string {
	e.t.Helper()
	c := e.Mail.Next(e.t, to).Data["code"]
	if !sixDigits.MatchString(c) {
		e.t.Fatalf("message to %s with code %q, want six digits", to, c)
	}
	return c
}

// wrong returns a 6-digit code other than code.
func wrong(code string) string {
	if code == "000000" {
		return "111111"
	}
	return "000000"
}
