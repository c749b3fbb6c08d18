package app

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"guichet/internal/httpapi"
	"guichet/internal/staff"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

// testApp builds the application as `guichet serve` does (no --dev: logged
// mail, production hosts) on SQLite, or on PostgreSQL when databaseURL is
// set.
func testApp(t *testing.T, databaseURL string) *App {
	t.Helper()
	a, err := newApp(context.Background(), Config{
		DataDir: t.TempDir(), BrandsDir: "../../config/brands", Mail: "log", DatabaseURL: databaseURL,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.DB.Close() })
	return a
}

// devApp is the application as `guichet serve --dev` builds it, served on a
// test server; both close when the test ends.
func devApp(t *testing.T) (*App, *httptest.Server) {
	t.Helper()
	a, err := newApp(context.Background(), Config{Dev: true, DataDir: t.TempDir(), BrandsDir: "../../config/brands"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.DB.Close() })
	srv := httptest.NewServer(a.Handler)
	t.Cleanup(srv.Close)
	return a, srv
}

// apiCall is a brand's API call: JSON to host with the API key, the answer's
// status and its JSON object (nil when it is none).
func apiCall(t testing.TB, h http.Handler, host, apiKey, method, path, body string) (int, map[string]any) {
	t.Helper()
	got := testenv.Do(t, h, testenv.Request{Method: method, Path: path, Host: host, Body: body,
		Headers: map[string]string{"api-key": apiKey, "Content-Type": "application/json"}})
	var out map[string]any
	_ = json.Unmarshal(got.Body, &out)
	return got.Status, out
}

// eachDatabase runs fn on an application over SQLite and over PostgreSQL
// (skipped without GUICHET_TEST_DATABASE_URL, required with
// GUICHET_REQUIRE_POSTGRES=1, as storetest does).
func eachDatabase(t *testing.T, fn func(t *testing.T, a *App)) {
	testenv.EachURL(t, true, func(t *testing.T, url string) { fn(t, testApp(t, url)) })
}

// plausibleBodies are requests each route with a path parameter accepts (a
// wrong password, a wrong code, a dead token...), so that its path values go
// as far into the handler as a real client's would. A route with a path
// parameter and no entry here fails TestHostilePathValues: a new route joins
// it (and TestDecoyIDsAnswerLikeAccountIDs) by construction.
var plausibleBodies = map[string][]string{
	"POST /api/v1/accounts/{id}/temporary": {`{"tempPassword":"Temp-Pass-2026"}`},
	"POST /api/v1/accounts/{id}/authentication": {
		`{"password":"Wrong-Horse-9!"}`,
		`{"password":"Wrong-Horse-9!","dateOfBirth":"1980-04-12","postalCode":"M5V 2T6"}`,
	},
	"POST /api/v1/accounts/{id}/notification": {
		`{"mediumType":"EMAIL","notificationType":"RESET_PSW"}`,
		`{"mediumType":"EMAIL","notificationType":"LOCKED_ACCOUNT"}`,
	},
	"POST /api/v1/accounts/{id}/password-reset/{validationId}/resend": {``},
	"POST /api/v1/registrations/{id}/validations/{validationId}/{$}": {
		`{}`, `{"validationValue":"{code}"}`, `{"validationValue":"AB12CD34"}`, `{"validationValue":"someone@example.com"}`,
	},
	"POST /api/v1/registrations/{id}/authentication": {`{"password":"Wrong-Horse-9!"}`},
	"POST /api/v1/accounts/{id}/create": {
		`{"password":"Brand-New-Pass-2026!","passwordConfirmation":"Brand-New-Pass-2026!","termsAccepted":true}`,
		// The email-token variants (issue 14).
		`{"password":"Brand-New-Pass-2026!","passwordConfirmation":"Brand-New-Pass-2026!","termsAccepted":true,"postalCode":"M5V 2T6","dateOfBirth":"1985-03-14"}`,
		`{"password":"Brand-New-Pass-2026!","passwordConfirmation":"Brand-New-Pass-2026!","termsAccepted":true,"cellPhone":"514-555-0303"}`,
	},
	"GET /api/v1/tokens/{token}": {``},
	// The staff console (issue 16), on the console host.
	"GET /api/console/v1/setup/{token}":                      {``},
	"POST /api/console/v1/setup/{token}":                     {`{"password":"Brand-New-Pass-2026!","code":"123456"}`},
	"GET /api/console/v1/customers/{id}":                     {``},
	"POST /api/console/v1/customers/{id}/unlock":             {``},
	"POST /api/console/v1/customers/{id}/disable":            {``},
	"POST /api/console/v1/customers/{id}/enable":             {``},
	"POST /api/console/v1/customers/{id}/temporary-password": {`{"delivery":"show"}`, `{"delivery":"email"}`},
	"POST /api/console/v1/customers/{id}/reset-email":        {``},
	"POST /api/console/v1/staff/{id}/disable":                {``},
	"POST /api/console/v1/clients/{id}/disable":              {``},
	// The agents' chat (issue 17).
	"POST /api/console/v1/chat/conversations/{id}/accept":   {``},
	"POST /api/console/v1/chat/conversations/{id}/transfer": {`{"staffId":"x"}`},
	"POST /api/console/v1/chat/conversations/{id}/end":      {``},
	"POST /api/console/v1/chat/conversations/{id}/reply":    {`{"body":"Hello"}`},
	"GET /api/console/v1/chat/conversations/{id}":           {``},
	"POST /api/console/v1/customers/{id}/invitation":        {`{"policyNumber":"BEL-1234","source":"edoc"}`},
	// Co-browse (issue 18).
	"POST /api/v1/cobrowse/sessions/{id}/consent":           {`{"accept":true}`, `{"accept":false}`},
	"POST /api/console/v1/chat/conversations/{id}/cobrowse": {``},
	"POST /api/console/v1/cobrowse/sessions/{id}/end":       {``},
	"GET /api/console/v1/cobrowse/sessions/{id}/socket":     {``},
	"DELETE /api/v1/tokens/{token}":                         {``},
	// The OpenID provider's consent page and connected applications (issue 30).
	"GET /api/v1/oidc/requests/{id}/consent":                    {``},
	"DELETE /api/v1/me/applications/{clientId}":                 {``},
	"DELETE /api/v1/me/sessions/{id}":                           {``},
	"PATCH /api/v1/me/passkeys/{id}":                            {`{"name":"Phone"}`},
	"DELETE /api/v1/me/passkeys/{id}":                           {``},
	"POST /api/console/v1/customers/{id}/passkeys/remove":       {``},
	"POST /api/v1/accounts/{id}/validations/{validationId}/{$}": {`{"validationValue":"{code}"}`},
	"POST /api/v1/accounts/{id}/password": {
		`{"password":"Brand-New-Pass-2026!","token":"AAAAAAAAAAAAAAAAAAAAAA","postalCode":"M5V 2T6"}`,
		// An emailed invitation's token (43 characters, issue 14).
		`{"password":"Brand-New-Pass-2026!","token":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","postalCode":"M5V 2T6"}`,
		`{"password":"Brand-New-Pass-2026!","tempPassword":"Temp-Pass-2026"}`,
		// Holds the local part of TestDecoyIDsAnswerLikeAccountIDs' email.
		`{"password":"Alexander-2026!","tempPassword":"Temp-Pass-2026"}`,
	},
}

// hostileValues are path values as a client puts them in the URL (already
// percent-encoded where a client must encode).
var hostileValues = map[string]string{
	"NUL":                   "%00",
	"NUL in an id":          "AAAAAAAAAAA%00AAAAAAAAAA",
	"invalid UTF-8":         "%FF%FE",
	"overlong UTF-8":        "%C0%AF",
	"UTF-16 surrogate":      "%ED%A0%80",
	"10 kB":                 strings.Repeat("a", 10<<10),
	"4 kB, under the limit": strings.Repeat("A", 4000),
	"dot dot slash":         "../",
	"encoded dot dot slash": "..%2F..%2Fetc%2Fpasswd",
	"SQL quote":             "%27%20OR%201%3D1--",
	"SQL quote, id length":  "%27%20OR%20%271%27%3D%271%27--%20",
	"emoji":                 "%F0%9F%98%80",
	"right-to-left mark":    "%E2%80%AE",
	"double encoding":       "%2500",
	"22 accented letters":   strings.Repeat("%C3%A9", 22),
	"space":                 "%20",
}

// placeholder fills the other path parameters with an id of the right shape.
const placeholder = "AAAAAAAAAAAAAAAAAAAAAA"

var pathParam = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)(?:\.\.\.)?\}`)

// parameterised returns the routes of the table with path parameters, and
// their parameter names.
func parameterised(t *testing.T, routes []httpapi.Route) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, r := range routes {
		var names []string
		for _, m := range pathParam.FindAllStringSubmatch(r.Pattern, -1) {
			names = append(names, m[1])
		}
		if len(names) == 0 || isConsole(r.Kind) {
			continue // the console's: TestHostileConsolePathValues
		}
		if r.Kind != httpapi.API {
			t.Fatalf("%s: a %s route with path parameters; these tests only know how to call API routes", r.Pattern, r.Kind)
		}
		if _, ok := plausibleBodies[r.Pattern]; !ok {
			t.Fatalf("%s has path parameters and no plausible body in plausibleBodies", r.Pattern)
		}
		out[r.Pattern] = names
	}
	if len(out) == 0 {
		t.Fatal("no route has a path parameter: the route table was not read")
	}
	return out
}

// fill returns the method and the path of a pattern with its parameters
// replaced by values (as they go in the URL).
func fill(pattern string, values map[string]string) (method, path string) {
	method, path, _ = strings.Cut(pattern, " ")
	path = strings.ReplaceAll(path, "{$}", "")
	path = pathParam.ReplaceAllStringFunc(path, func(p string) string {
		return values[pathParam.FindStringSubmatch(p)[1]]
	})
	return method, path
}

// TestHostilePathValues sends hostile values in every path parameter of
// every route of the table, over HTTP on both databases, with a valid api
// key, host and body: no answer may be a 5xx, and none a success.
// PostgreSQL refused a NUL byte or invalid UTF-8 with an error (SQLSTATE
// 22021) when such a value reached a query.
func TestHostilePathValues(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *App) {
		srv := serveHTTP(t, a)
		belair, _ := a.Brands.ByID("belair")
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for pattern, params := range parameterised(t, a.Routes) {
			for _, param := range params {
				for name, value := range hostileValues {
					values := map[string]string{}
					for _, p := range params {
						values[p] = placeholder
					}
					values[param] = value
					method, path := fill(pattern, values)
					for _, body := range plausibleBodies[pattern] {
						body = strings.ReplaceAll(body, "{code}", "123456")
						req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
						if err != nil {
							t.Fatalf("%s, %s = %s: %v", pattern, param, name, err)
						}
						req.Host = belair.Hosts[0]
						req.Header.Set("api-key", belair.APIKey)
						req.Header.Set("Content-Type", "application/json")
						res, err := client.Do(req)
						if err != nil {
							t.Fatalf("%s, %s = %s: %v", pattern, param, name, err)
						}
						answer, _ := io.ReadAll(res.Body)
						res.Body.Close()
						if res.StatusCode >= 500 || res.StatusCode < 300 {
							t.Errorf("%s, %s = %s: %d %.200s", pattern, param, name, res.StatusCode, answer)
						}
					}
				}
			}
		}
	})
}

// TestHostileSessionValues is TestHostilePathValues for the routes of smart
// registration (api/v2), whose values come in the x-registration-session
// header and the accountType query instead of the path: every api/v2 route
// of the table gets each hostile value (and forged tokens), over HTTP on
// both databases; no answer may be a 5xx, and none a success.
func TestHostileSessionValues(t *testing.T) {
	forged := map[string]string{
		"alg none":    "eyJhbGciOiJub25lIiwia2lkIjoiZGIxIn0.eyJzaWQiOiJBQUFBQUFBQUFBQUFBQUFBQUFBQUFBIiwiYnJhbmQiOiJiZWxhaXIiLCJleHAiOjk5OTk5OTk5OTl9.",
		"three dots":  "...",
		"NUL payload": "eyJhbGciOiJIUzI1NiIsImtpZCI6ImRiMSJ9.AA.AA",
	}
	eachDatabase(t, func(t *testing.T, a *App) {
		srv := serveHTTP(t, a)
		belair, _ := a.Brands.ByID("belair")
		n := 0
		for _, r := range a.Routes {
			method, path, _ := strings.Cut(r.Pattern, " ")
			if !strings.HasPrefix(path, "/api/v2/") {
				continue
			}
			n++
			values := map[string]string{}
			for k, v := range hostileValues {
				values[k] = v
			}
			for k, v := range forged {
				values[k] = v
			}
			for name, value := range values {
				target := srv.URL + path
				if path == "/api/v2/registration" {
					target += "?accountType=" + value
				}
				req, err := http.NewRequest(method, target, strings.NewReader(`{"code":"123456","email":"a@example.com","optionId":"x"}`))
				if err != nil {
					t.Fatalf("%s, %s: %v", r.Pattern, name, err)
				}
				req.Host = belair.Hosts[0]
				req.Header.Set("api-key", belair.APIKey)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("x-registration-session", value)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatalf("%s, %s: %v", r.Pattern, name, err)
				}
				answer, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode >= 500 || res.StatusCode < 300 {
					t.Errorf("%s, %s: %d %.200s", r.Pattern, name, res.StatusCode, answer)
				}
			}
		}
		if n != 12 {
			t.Fatalf("%d api/v2 routes in the table, want 12", n)
		}
	})
}

func isConsole(k httpapi.RouteKind) bool {
	return k == httpapi.Console || k == httpapi.ConsolePublic || k == httpapi.ConsoleChat || k == httpapi.ConsoleSocket
}

// TestHostileConsolePathValues is TestHostilePathValues for the console's
// routes: sent to the console host, without api key, with a signed-in
// admin's fresh session; no 5xx, no success.
func TestHostileConsolePathValues(t *testing.T) {
	eachConsole(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		session := signedInAdmin(t, a, clock)
		srv := serveHTTP(t, a)
		n := 0
		for _, r := range a.Routes {
			params := pathParam.FindAllStringSubmatch(r.Pattern, -1)
			if !isConsole(r.Kind) || len(params) == 0 {
				continue
			}
			if _, ok := plausibleBodies[r.Pattern]; !ok {
				t.Fatalf("%s has path parameters and no plausible body in plausibleBodies", r.Pattern)
			}
			n++
			for _, param := range params {
				for name, value := range hostileValues {
					values := map[string]string{}
					for _, p := range params {
						values[p[1]] = placeholder
					}
					values[param[1]] = value
					method, path := fill(r.Pattern, values)
					for _, body := range plausibleBodies[r.Pattern] {
						req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
						if err != nil {
							t.Fatalf("%s, %s = %s: %v", r.Pattern, param[1], name, err)
						}
						req.Host = consoleHost
						req.Header.Set("Content-Type", "application/json")
						req.AddCookie(&http.Cookie{Name: staff.CookieName, Value: session})
						res, err := http.DefaultClient.Do(req)
						if err != nil {
							t.Fatalf("%s, %s = %s: %v", r.Pattern, param[1], name, err)
						}
						answer, _ := io.ReadAll(res.Body)
						res.Body.Close()
						if res.StatusCode >= 500 || res.StatusCode < 300 {
							t.Errorf("%s, %s = %s: %d %.200s", r.Pattern, param[1], name, res.StatusCode, answer)
						}
					}
				}
			}
		}
		if n == 0 {
			t.Fatal("no console route with a path parameter: the route table was not read")
		}
	})
}

// signedInAdmin adds an admin of every brand, completes the set-up and
// returns the fresh session's cookie value.
func signedInAdmin(t *testing.T, a *App, clock *testclock.Clock) string {
	t.Helper()
	ctx := context.Background()
	_, token, err := a.Staff.Add(ctx, staff.NewMember{Email: "root@example.com", Name: "Root", Role: staff.RoleAdmin}, "cli")
	if err != nil {
		t.Fatal(err)
	}
	info, err := a.Staff.Setup(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	opened, _, err := a.Staff.CompleteSetup(ctx, token, "Brand-New-Pass-2026!", staff.TOTP(info.Secret, clock.Now()), "")
	if err != nil {
		t.Fatal(err)
	}
	return opened.Token
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// queryParams are the query parameters the console and socket routes read
// (and one none reads).
var queryParams = []string{"q", "brand", "from", "to", "tz", "dryRun", "after", "unread"}

// TestHostileQueryValues sends hostile values in every query parameter of
// every console route and every socket (the visitor's on a brand host, the
// agents' on the console host), over HTTP on both databases, with a
// signed-in admin's fresh session: no answer may be a 5xx, and a value that
// is not valid UTF-8 or holds a NUL is refused with 400 INVALID_FIELD naming
// the parameter. PostgreSQL answered 500 (SQLSTATE 22021) to a NUL or
// invalid UTF-8 in q or brand on customers and in brand on audit.csv.
func TestHostileQueryValues(t *testing.T) {
	malformed := map[string]bool{"NUL": true, "NUL in an id": true, "invalid UTF-8": true, "overlong UTF-8": true, "UTF-16 surrogate": true}
	eachConsole(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		session := signedInAdmin(t, a, clock)
		srv := serveHTTP(t, a)
		belair, _ := a.Brands.ByID("belair")
		// The brand must be one of the registry's.
		for _, target := range []string{"/api/console/v1/customers?q=ab&brand=nope", "/api/console/v1/audit.csv?from=2026-01-01&to=2026-01-02&brand=nope"} {
			req, _ := http.NewRequest("GET", srv.URL+target, nil)
			req.Host = consoleHost
			req.AddCookie(&http.Cookie{Name: staff.CookieName, Value: session})
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			answer, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 400 || !strings.Contains(string(answer), `"field":"brand"`) {
				t.Errorf("%s: %d %s", target, res.StatusCode, answer)
			}
		}
		n, sockets := 0, 0
		// Sign-out last: it ends the session the others use.
		routes := slices.Clone(a.Routes)
		slices.SortStableFunc(routes, func(x, y httpapi.Route) int {
			return cmp.Compare(b2i(x.Pattern == "DELETE /api/console/v1/session"), b2i(y.Pattern == "DELETE /api/console/v1/session"))
		})
		for _, r := range routes {
			method, path, _ := strings.Cut(r.Pattern, " ")
			socket := r.Kind == httpapi.ChatSocket || r.Kind == httpapi.ConsoleSocket
			if !socket && !(isConsole(r.Kind) && strings.HasPrefix(path, "/api/console/")) || method == "" {
				continue
			}
			n++
			if socket {
				sockets++
			}
			values := map[string]string{}
			for _, p := range pathParam.FindAllStringSubmatch(r.Pattern, -1) {
				values[p[1]] = placeholder
			}
			_, path = fill(r.Pattern, values)
			body := "{}"
			if b := plausibleBodies[r.Pattern]; len(b) > 0 {
				body = b[0]
			}
			for _, param := range queryParams {
				for name, value := range hostileValues {
					target := srv.URL + path + "?" + param + "=" + value
					if param != "q" {
						target += "&q=ab"
					}
					req, err := http.NewRequest(method, target, strings.NewReader(body))
					if err != nil {
						t.Fatalf("%s, %s = %s: %v", r.Pattern, param, name, err)
					}
					req.Host = consoleHost
					if r.Kind == httpapi.ChatSocket {
						req.Host = belair.Hosts[0]
					}
					req.Header.Set("Content-Type", "application/json")
					req.AddCookie(&http.Cookie{Name: staff.CookieName, Value: session})
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatalf("%s, %s = %s: %v", r.Pattern, param, name, err)
					}
					answer, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode >= 500 {
						t.Errorf("%s, %s = %s: %d %.200s", r.Pattern, param, name, res.StatusCode, answer)
					}
					if malformed[name] && (res.StatusCode != 400 || !strings.Contains(string(answer), `"errorCode":"INVALID_FIELD"`) ||
						!strings.Contains(string(answer), `"field":"`+param+`"`)) {
						t.Errorf("%s, %s = %s: %d %.200s, want 400 INVALID_FIELD (%s)", r.Pattern, param, name, res.StatusCode, answer, param)
					}
				}
			}
		}
		if n < 30 || sockets != 3 {
			t.Fatalf("%d routes (%d sockets): the route table was not read", n, sockets)
		}
	})
}
