package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"guichet/internal/api"
)

// Request is one HTTP request of a test. Only Path is required.
type Request struct {
	Method string // GET when empty
	Path   string // the request target, with its query, or an absolute URL
	// Host is the request's host; with Site set and Host empty, a path is
	// asked of the brand's site, https://<id>.example.
	Host    string
	Headers map[string]string
	Cookies []*http.Cookie
	// Body is sent as is when a string or []byte, encoded as JSON
	// otherwise (and then with Content-Type application/json unless
	// Headers say another); nil sends none.
	Body any
	// IP is the peer's address (RemoteAddr, port 40000); httptest's
	// 192.0.2.1 when empty.
	IP string
	// Peer, when set, is the RemoteAddr as is (host:port), over IP.
	Peer string
	// Site, when set, is put in the request's context as the brand
	// middleware would: for handlers tested without it.
	Site *api.Site
	// Context, when set, adds to the request's context what a middleware
	// would have (the console guard's staff.WithPrincipal).
	Context func(context.Context) context.Context
}

// Answer is a recorded response.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do serves the request with h and records the answer.
func Do(t testing.TB, h http.Handler, req Request) Answer {
	t.Helper()
	r := req.build(t)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	res := w.Result()
	body, _ := io.ReadAll(res.Body)
	return Answer{Status: res.StatusCode, Header: res.Header, Body: body}
}

func (req Request) build(t testing.TB) *http.Request {
	t.Helper()
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	var raw []byte
	isJSON := false
	switch v := req.Body.(type) {
	case nil:
	case string:
		raw = []byte(v)
	case []byte:
		raw = v
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			t.Fatalf("testenv: request body: %v", err)
		}
		isJSON = true
	}
	target := req.Path
	if req.Host == "" && req.Site != nil && req.Site.Brand != nil && strings.HasPrefix(target, "/") {
		target = "https://" + req.Site.Brand.ID + ".example" + target
	}
	r := httptest.NewRequest(method, target, bytes.NewReader(raw))
	if req.Host != "" {
		r.Host = req.Host
	}
	if isJSON {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range req.Headers {
		r.Header.Set(k, v)
	}
	for _, c := range req.Cookies {
		r.AddCookie(c)
	}
	switch {
	case req.Peer != "":
		r.RemoteAddr = req.Peer
	case req.IP != "":
		r.RemoteAddr = req.IP + ":40000"
	}
	if req.Site != nil {
		r = r.WithContext(api.WithSite(r.Context(), *req.Site))
	}
	if req.Context != nil {
		r = r.WithContext(req.Context(r.Context()))
	}
	return r
}

// JSON is the body decoded as a JSON object; the test fails when it is not
// one.
func (a Answer) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.Body, &m); err != nil {
		t.Fatalf("body %q: %v", a.Body, err)
	}
	return m
}

// Str is a string member of the JSON body ("" when absent or not a string).
func (a Answer) Str(t testing.TB, key string) string {
	t.Helper()
	s, _ := a.JSON(t)[key].(string)
	return s
}

// Code is the errorCode of an error answer.
func (a Answer) Code(t testing.TB) string {
	t.Helper()
	return a.Str(t, "errorCode")
}

// Expect fails the test unless the answer has the status and, when code is
// not empty, that errorCode; it returns the answer for chaining.
func (a Answer) Expect(t testing.TB, status int, code string) Answer {
	t.Helper()
	if a.Status != status {
		t.Fatalf("status %d, want %d: %s", a.Status, status, a.Body)
	}
	if code != "" {
		if got := a.Code(t); got != code {
			t.Fatalf("errorCode %q, want %q: %s", got, code, a.Body)
		}
	}
	return a
}

// Cookies are the cookies the answer sets.
func (a Answer) Cookies() []*http.Cookie {
	return (&http.Response{Header: a.Header}).Cookies()
}

// Cookie is the cookie of that name the answer sets, or nil.
func (a Answer) Cookie(name string) *http.Cookie {
	for _, c := range a.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Parallel calls fn n times at once (the calls released together) and
// counts the answers by status: races on one resource, where exactly one
// call may win.
func Parallel(n int, fn func() Answer) map[int]int {
	statuses := map[int]int{}
	for _, a := range Race(n, func(int) Answer { return fn() }) {
		statuses[a.Status]++
	}
	return statuses
}

// Race calls fn(i) for each i below n at once (the calls released
// together) and returns the answers in the order of i.
func Race(n int, fn func(i int) Answer) []Answer {
	var wg sync.WaitGroup
	answers := make([]Answer, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			answers[i] = fn(i)
		})
	}
	close(start)
	wg.Wait()
	return answers
}

// Winner fails the test unless exactly one of the answers has the status
// won and every other is a refusal (refused says which are); it returns
// the winner.
func Winner(t testing.TB, answers []Answer, won int, refused func(Answer) bool) Answer {
	t.Helper()
	var winner Answer
	wins := 0
	for _, a := range answers {
		switch {
		case a.Status == won:
			wins++
			winner = a
		case !refused(a):
			t.Fatalf("unexpected answer %d %s", a.Status, a.Body)
		}
	}
	if wins != 1 {
		t.Fatalf("%d of %d concurrent calls answered %d, want exactly 1", wins, len(answers), won)
	}
	return winner
}
