package account_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/store"
	"guichet/internal/testclock"
)

// testParams keep tests fast; TestDefaultParamsAreTheDesigns checks the
// production ones.
var testParams = account.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

const password = "Correct-Horse-9!"

var (
	belair = &brand.Brand{ID: "belair", DefaultProvince: "on", PolicyNumber: brand.PolicyNumber{Length: 7, Mask: "AAA-AAAA"},
		Hosts: []string{"belair.example", "compte.belair.example"}, DevHosts: []string{"belair.localhost"}}
	intact = &brand.Brand{ID: "intact", DefaultProvince: "ab", Hosts: []string{"intact.example"}, PolicyNumber: brand.PolicyNumber{Length: 7, Mask: "AAA-AAAA",
		ByProvince: map[string]brand.PolicyNumberFormat{"ab": {Length: 9, Mask: "AAAAAAAAA"}}}}
)

// env is one test's service, handlers and clock on a fresh database.
type env struct {
	t       *testing.T
	db      *store.DB
	clock   *testclock.Clock
	service *account.Service
	mux     *http.ServeMux
}

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	c := testclock.New()
	svc := account.NewService(db, account.NewHasher(testParams), c.Now)
	h := &account.Handler{Service: svc}
	mux := http.NewServeMux()
	mux.Handle("POST /api/v1/accounts/find", api.Handler(h.Find))
	mux.Handle("POST /api/v1/accounts/{id}/temporary", api.Handler(h.Temporary))
	mux.Handle("POST /api/v1/accounts/{id}/authentication", api.Handler(h.Authentication))
	mux.Handle("POST /api/v1/accounts/{id}/notification", api.Handler(h.Notification))
	return &env{t: t, db: db, clock: c, service: svc, mux: mux}
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

func (a answer) code(t *testing.T) string {
	t.Helper()
	c, _ := a.json(t)["errorCode"].(string)
	return c
}

// post sends a JSON body as the brand's site from an IP.
func (e *env) post(b *brand.Brand, ip, path string, body any) answer {
	e.t.Helper()
	var raw []byte
	switch v := body.(type) {
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
	r = r.WithContext(api.WithSite(r.Context(), api.Site{Brand: b, Province: b.DefaultProvince, Language: "en"}))
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, r)
	res := w.Result()
	out, _ := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, header: res.Header, body: out}
}

// create stores an account with the password (or a temporary password when
// temp is set) and returns it.
func (e *env) create(b *brand.Brand, email string, mutate func(*account.Account), temp string) account.Account {
	e.t.Helper()
	ctx := context.Background()
	hasher := account.NewHasher(testParams)
	pwHash, err := hasher.Hash(ctx, password)
	if err != nil {
		e.t.Fatal(err)
	}
	a := account.Account{Brand: b.ID, Email: email, FirstName: "Alex", LastName: "Martin",
		PostalCode: "H2X 1Y4", DateOfBirth: "1980-04-12", Language: "en"}
	if mutate != nil {
		mutate(&a)
	}
	locked := a.Status == account.Locked
	a.Status = account.Active
	err = e.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if a, err = account.Insert(ctx, tx, a, pwHash, e.clock.Now()); err != nil {
			return err
		}
		if locked {
			if err := account.Lock(ctx, tx, a.ID, time.Time{}, e.clock.Now()); err != nil {
				return err
			}
			a.Status = account.Locked
		}
		if temp != "" {
			th, err := hasher.Hash(ctx, temp)
			if err != nil {
				return err
			}
			if err := account.SetTemporaryPassword(ctx, tx, a.ID, th, e.clock.Now().Add(7*24*time.Hour), e.clock.Now()); err != nil {
				return err
			}
			a.Status = account.Temporary
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return a
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
	rows, err := e.db.Query(context.Background(), "SELECT event, outcome FROM audit_events WHERE account_id = ? ORDER BY id", accountID)
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}
