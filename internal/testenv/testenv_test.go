package testenv_test

import (
	"bytes"
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/testenv"
)

// fakeTB records what a scenario reports instead of failing the test; its
// Fatal stops the scenario as testing's does (runtime.Goexit there, a panic
// caught by run here).
type fakeTB struct {
	testing.TB
	errors []string
}

type fatal struct{}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	panic(fatal{})
}
func (f *fakeTB) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }

// run runs the scenario against h on a fake and returns what it reported.
func run(s testenv.Scenario, h http.Handler) (reported []string) {
	f := &fakeTB{}
	defer func() {
		if r := recover(); r != nil && r != (fatal{}) {
			panic(r)
		}
		reported = f.errors
	}()
	s.Test(f, h)
	return f.errors
}

// principal is a context key, as a middleware's.
type principal struct{}

// echo answers what it was asked, as JSON, with a header and a cookie.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	site := api.SiteOf(r)
	brandID := ""
	if site.Brand != nil {
		brandID = site.Brand.ID
	}
	who, _ := r.Context().Value(principal{}).(string)
	c, _ := r.Cookie("session")
	cookie := ""
	if c != nil {
		cookie = c.Value
	}
	var body bytes.Buffer
	_, _ = body.ReadFrom(r.Body)
	w.Header().Set("X-Seen", "yes")
	http.SetCookie(w, &http.Cookie{Name: "back", Value: "1"})
	status := http.StatusOK
	if r.URL.Path == "/missing" {
		status = http.StatusNotFound
	}
	api.JSON(w, status, map[string]any{
		"method": r.Method, "host": r.Host, "remote": r.RemoteAddr, "type": r.Header.Get("Content-Type"),
		"brand": brandID, "language": site.Language, "cookie": cookie, "body": body.String(), "n": 3, "who": who,
		"errorCode": "NOT_FOUND",
	})
})

func TestScenarioThatHoldsReportsNothing(t *testing.T) {
	belair := &brand.Brand{ID: "belair"}
	var before, after bool
	s := testenv.Scenario{
		Name: "everything as sent",
		Request: testenv.Request{Method: "POST", Path: "/x?q=1", Body: map[string]string{"a": "b"}, IP: "192.0.2.10",
			Cookies: []*http.Cookie{{Name: "session", Value: "tok"}},
			Site:    &api.Site{Brand: belair, Language: "fr"},
			Context: func(ctx context.Context) context.Context { return context.WithValue(ctx, principal{}, "pat") }},
		Before: func(testing.TB) { before = true },
		Code:   "NOT_FOUND",
		JSON: map[string]any{"method": "POST", "host": "belair.example", "remote": "192.0.2.10:40000",
			"type": "application/json", "brand": "belair", "language": "fr", "cookie": "tok", "body": `{"a":"b"}`,
			"n": 3.0, "who": "pat", "errorCode": nil},
		Contains:    []string{`"n":3`},
		NotContains: []string{"secret"},
		Headers:     map[string]string{"X-Seen": "yes", "X-Absent": ""},
		After: func(t testing.TB, a testenv.Answer) {
			after = a.Cookie("back") != nil && a.Cookie("none") == nil
		},
	}
	if got := run(s, echo); len(got) != 0 {
		t.Fatalf("a scenario that holds reported %q", got)
	}
	if !before || !after {
		t.Fatalf("hooks ran: before %v, after %v", before, after)
	}
	// Run, as a table, on the real testing.T.
	testenv.Run(t, echo, s, testenv.Scenario{Name: "not found", Request: testenv.Request{Path: "/missing"}, Status: 404})
}

// TestScenarioThatIsWrongFails: each expectation, made wrong, fails the
// scenario with a message naming the scenario and what differed.
func TestScenarioThatIsWrongFails(t *testing.T) {
	base := testenv.Request{Method: "POST", Path: "/x", Body: "plain"}
	cases := []struct {
		name string
		s    testenv.Scenario
		want string
	}{
		{"status", testenv.Scenario{Status: 201}, "status 200, want 201"},
		{"status by default", testenv.Scenario{Request: testenv.Request{Path: "/missing"}}, "status 404, want 200"},
		{"error code", testenv.Scenario{Code: "OTHER"}, `errorCode "NOT_FOUND", want "OTHER"`},
		{"JSON value", testenv.Scenario{JSON: map[string]any{"method": "GET"}}, `method = "POST", want "GET"`},
		{"JSON number", testenv.Scenario{JSON: map[string]any{"n": 4.0}}, "n = 3, want 4"},
		{"JSON member", testenv.Scenario{JSON: map[string]any{"absent": nil}}, `no member "absent"`},
		{"contains", testenv.Scenario{Contains: []string{"elsewhere"}}, `body lacks "elsewhere"`},
		{"not contains", testenv.Scenario{NotContains: []string{`"body":"plain"`}}, `body holds "\"body\":\"plain\""`},
		{"header", testenv.Scenario{Headers: map[string]string{"X-Seen": "no"}}, `header X-Seen = "yes", want "no"`},
		{"header absent", testenv.Scenario{Headers: map[string]string{"X-Seen": ""}}, `header X-Seen = "yes", want ""`},
		{"after hook", testenv.Scenario{After: func(t testing.TB, _ testenv.Answer) { t.Errorf("side effect missing") }}, "side effect missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.s.Name = "scenario " + c.name
			if c.s.Path == "" {
				c.s.Request = base
			}
			got := run(c.s, echo)
			if len(got) != 1 || !strings.Contains(got[0], c.want) {
				t.Fatalf("reported %q, want one failure holding %q", got, c.want)
			}
			if c.name != "after hook" && !strings.HasPrefix(got[0], "[scenario "+c.name+"] ") {
				t.Fatalf("failure %q does not name the scenario", got[0])
			}
		})
	}
	t.Run("every difference is reported", func(t *testing.T) {
		got := run(testenv.Scenario{Request: base, Status: 500, Code: "X", Contains: []string{"zzz"}}, echo)
		if len(got) != 3 || !strings.HasPrefix(got[0], "[POST /x] POST /x: ") {
			t.Fatalf("reported %q, want 3 failures named after the request", got)
		}
	})
	t.Run("a body that is not JSON", func(t *testing.T) {
		text := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hello")) })
		got := run(testenv.Scenario{Name: "text", Request: base, JSON: map[string]any{"a": nil}}, text)
		if len(got) != 1 || !strings.Contains(got[0], "not a JSON object") {
			t.Fatalf("reported %q", got)
		}
	})
}

func TestAnswerExpect(t *testing.T) {
	a := testenv.Do(t, echo, testenv.Request{Path: "/missing"})
	a.Expect(t, 404, "NOT_FOUND")
	for _, c := range []struct {
		status int
		code   string
		want   string
	}{{200, "", "status 404, want 200"}, {404, "OTHER", `errorCode "NOT_FOUND", want "OTHER"`}} {
		f := &fakeTB{}
		func() {
			defer func() { _ = recover() }()
			a.Expect(f, c.status, c.code)
		}()
		if len(f.errors) != 1 || !strings.Contains(f.errors[0], c.want) {
			t.Fatalf("Expect(%d, %q) reported %q", c.status, c.code, f.errors)
		}
	}
}

func TestParallelCountsStatuses(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	got := testenv.Parallel(5, func() testenv.Answer {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			return testenv.Answer{Status: 201}
		}
		return testenv.Answer{Status: 409}
	})
	if calls != 5 || len(got) != 2 || got[201] != 1 || got[409] != 4 {
		t.Fatalf("%d calls, statuses %v", calls, got)
	}
}

func TestMailbox(t *testing.T) {
	testenv.Each(t, func(t *testing.T, e *testenv.Env) {
		ctx := context.Background()
		queue := func(id, to, code string) {
			_, err := e.DB.Exec(ctx, `INSERT INTO outbox (id, created_at, updated_at, brand, language, channel, recipient, template, data)
				VALUES (?, ?, 0, 'belair', 'en', 'email', ?, 'reset-code', ?)`, id, e.Clock.Now().UnixMilli(), to, `{"code":"`+code+`"}`)
			if err != nil {
				t.Fatal(err)
			}
		}
		queue("1", "a@example.com", "111111")
		queue("2", "b@example.com", "222222")
		if m := e.Mail.Next(t, "a@example.com"); m.Data["code"] != "111111" || m.Template != "reset-code" || m.Channel != "email" {
			t.Fatalf("next %+v", m)
		}
		e.Mail.None(t, "a@example.com")
		queue("3", "a@example.com", "333333")
		if got := e.Mail.To(t, "reset-code", "a@example.com"); len(got) != 2 || got[1].Data["code"] != "333333" {
			t.Fatalf("to a: %+v", got)
		}
		if all := e.Mail.All(t); len(all) != 3 {
			t.Fatalf("all: %+v", all)
		}
		f := &fakeTB{}
		func() {
			defer func() { _ = recover() }()
			e.Mail.None(f, "a@example.com")
		}()
		if len(f.errors) != 1 || !strings.Contains(f.errors[0], "1 unexpected messages to a@example.com") {
			t.Fatalf("None reported %q", f.errors)
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM outbox"); n != 3 {
			t.Fatalf("count %d", n)
		}
		queue("4", "c@example.com", "444444")
		e.Mail.Skip(t)
		e.Mail.None(t, "b@example.com")
		e.Mail.None(t, "c@example.com")
		queue("5", "c@example.com", "555555")
		if m := e.Mail.Next(t, "c@example.com"); m.Data["code"] != "555555" {
			t.Fatalf("next after skip %+v", m)
		}
	})
}

// TestOnlyTestsImportTestenv: the test packages are for tests; a program
// that imported them would carry test fixtures (and testing) into the
// binary.
func TestOnlyTestsImportTestenv(t *testing.T) {
	root := testenv.RepoDir(t)
	testOnly := map[string]bool{"guichet/internal/testenv": true, "guichet/internal/account/accounttest": true,
		"guichet/internal/fanout/fanouttest": true}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		slashed := filepath.ToSlash(path)
		inTestenv := strings.Contains(slashed, "/internal/testenv/") || strings.Contains(slashed, "/account/accounttest/") ||
			strings.Contains(slashed, "/fanout/fanouttest/")
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if testOnly[p] && !inTestenv {
				t.Errorf("%s imports %s, which only tests may", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
