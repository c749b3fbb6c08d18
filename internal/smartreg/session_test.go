package smartreg_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"guichet/internal/smartreg"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

func key(b byte, n int) string {
	return base64.StdEncoding.EncodeToString([]byte(strings.Repeat(string(rune(b)), n)))
}

func TestParseKeys(t *testing.T) {
	cases := []struct {
		in   string
		kids []string
		bad  string
	}{
		{"", nil, ""},
		{"k2:" + key('a', 32) + ",k1:" + key('b', 48), []string{"k2", "k1"}, ""},
		{" k1:" + strings.TrimRight(key('a', 32), "="), []string{"k1"}, ""},
		{"k1:" + key('a', 31), nil, "31 bytes"},
		{"k1" + key('a', 32), nil, "want kid:base64key"},
		{"k1:not base64!", nil, "not base64"},
		{"k1:" + key('a', 32) + ",k1:" + key('b', 32), nil, "listed twice"},
		{"bad kid:" + key('a', 32), nil, "want kid:base64key"},
		{"k1:" + key('a', 32) + ",", nil, "want kid:base64key"},
	}
	for _, c := range cases {
		keys, err := smartreg.ParseKeys(c.in)
		if c.bad != "" {
			if err == nil || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.bad)
			}
			continue
		}
		if err != nil || len(keys) != len(c.kids) {
			t.Fatalf("%q: %v %v", c.in, keys, err)
		}
		for i, k := range keys {
			if k.ID != c.kids[i] || len(k.Secret) < smartreg.MinKeyBytes {
				t.Errorf("%q: key %d %q", c.in, i, k.ID)
			}
		}
	}
}

// TestExpirySlides: the session lives 30 minutes after its last answer
// (the injected clock moves); then the token is 'jwt expired'; a session
// the server dropped is 'state not found in cache'.
func TestExpirySlides(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		f := e.visitor()
		f.start("policyHolder")
		for range 3 {
			e.Clock.Advance(29 * time.Minute)
			f.do(http.MethodGet, "/api/v2/registration/fields", nil).ok(t, 200, "IDENTIFY")
		}
		c := claims(t, f.token)
		if c["exp"].(float64)-c["iat"].(float64) != 30*60 || int64(c["iat"].(float64)) != e.Clock.Now().Unix() {
			t.Fatalf("claims %v", c)
		}
		e.Clock.Advance(30 * time.Minute)
		a := f.do(http.MethodGet, "/api/v2/registration/fields", nil).refused(t, "invalid-token")
		if a.Str(t, "message") != "jwt expired" || a.token != "" {
			t.Fatalf("expired: %s", a.Body)
		}

		g := e.visitor()
		g.start("policyHolder")
		if _, err := db.Exec(t.Context(), "DELETE FROM smart_registrations"); err != nil {
			t.Fatal(err)
		}
		if m := g.do(http.MethodGet, "/api/v2/back", nil).refused(t, "invalid-token").Str(t, "message"); m != "state not found in cache" {
			t.Fatalf("dropped: %q", m)
		}
		// Prune drops what expired a day ago, and only that.
		h := e.visitor()
		h.start("policyHolder")
		e.Clock.Advance(25 * time.Hour)
		k := e.visitor()
		k.start("policyHolder")
		if n, err := e.svc.Prune(t.Context()); err != nil || n != 1 {
			t.Fatalf("prune %d %v", n, err)
		}
	})
}

// TestKeyRotation: a service whose keys are [new, old] accepts a token of
// the old key and answers with the new; one without the old key refuses
// it; the sessions live in the database, whichever instance serves them.
func TestKeyRotation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		oldKeys, _ := smartreg.ParseKeys("old:" + key('o', 32))
		both, _ := smartreg.ParseKeys("new:" + key('n', 32) + ",old:" + key('o', 32))
		newOnly, _ := smartreg.ParseKeys("new:" + key('n', 32))
		before, rotated, after := mux(e.service(oldKeys)), mux(e.service(both)), mux(e.service(newOnly))

		f := e.visitor()
		f.mux = before
		f.start("policyHolder")
		if kid(t, f.token) != "old" {
			t.Fatalf("kid %q", kid(t, f.token))
		}
		oldToken := f.token
		f.mux = rotated
		f.identify("SMR0001", "Emma", "Courriel").ok(t, 200, "VERIFY")
		if kid(t, f.token) != "new" {
			t.Fatalf("rotated kid %q", kid(t, f.token))
		}
		f.mux = after
		f.do(http.MethodGet, "/api/v2/verify/options", nil).ok(t, 200, "VERIFY")
		stale := &flow{e: e, mux: after, brand: e.belair, token: oldToken}
		if m := stale.do(http.MethodGet, "/api/v2/verify/options", nil).refused(t, "invalid-token").Str(t, "message"); m != "invalid token" {
			t.Fatalf("old key after rotation: %q", m)
		}
	})
}

// TestTampering: an edited payload, alg none, an unknown kid, another
// brand's token, garbage and no token are all 'invalid token'.
func TestTampering(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		f := e.visitor()
		f.start("policyHolder")
		good := f.token
		parts := strings.Split(good, ".")
		c := claims(t, good)
		edit := func(k string, v any) string {
			m := map[string]any{}
			for kk, vv := range c {
				m[kk] = vv
			}
			m[k] = v
			raw, _ := json.Marshal(m)
			return parts[0] + "." + base64.RawURLEncoding.EncodeToString(raw) + "." + parts[2]
		}
		header := func(h string) string { return base64.RawURLEncoding.EncodeToString([]byte(h)) }
		intact, _ := e.reg.ByID("intact")
		other := &flow{e: e, mux: e.mux, brand: intact}
		other.start("policyHolder").ok(t, 200, "IDENTIFY")
		// A token signed with a key of the test's own: right form, wrong key.
		signing := header(`{"alg":"HS256","typ":"JWT","kid":"db1"}`) + "." + parts[1]
		m := hmac.New(sha256.New, []byte(strings.Repeat("k", 32)))
		m.Write([]byte(signing))
		forged := signing + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))

		for name, token := range map[string]string{
			"payload step edited":   edit("step", "CREATE"),
			"payload exp extended":  edit("exp", c["exp"].(float64)+3600),
			"alg none":              header(`{"alg":"none","typ":"JWT","kid":"db1"}`) + "." + parts[1] + ".",
			"alg none, signature":   header(`{"alg":"none","typ":"JWT","kid":"db1"}`) + "." + parts[1] + "." + parts[2],
			"alg HS512":             header(`{"alg":"HS512","typ":"JWT","kid":"db1"}`) + "." + parts[1] + "." + parts[2],
			"unknown kid":           header(`{"alg":"HS256","typ":"JWT","kid":"zz9"}`) + "." + parts[1] + "." + parts[2],
			"another key":           forged,
			"another brand's token": other.token,
			"garbage":               "eyJ.garbage.%00",
			"two parts":             parts[0] + "." + parts[1],
			"none":                  "",
			"10 kB":                 strings.Repeat("A", 10<<10),
		} {
			g := &flow{e: e, mux: e.mux, brand: e.belair, token: token}
			a := g.do(http.MethodGet, "/api/v2/registration/fields", nil).refused(t, "invalid-token")
			if a.Str(t, "message") != "invalid token" || a.token != "" {
				t.Errorf("%s: %s", name, a.Body)
			}
		}
		f.token = good
		f.do(http.MethodGet, "/api/v2/registration/fields", nil).ok(t, 200, "IDENTIFY")
	})
}

func kid(t *testing.T, token string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Kid string `json:"kid"`
	}
	_ = json.Unmarshal(raw, &h)
	return h.Kid
}

// TestTwoInstances: two services on one database (their key the database
// one) serve one visitor's calls in turn, to an account.
func TestTwoInstances(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		a, b := e.mux, mux(e.service(nil))
		f := e.visitor()
		turn := func() { f.mux = map[bool]*http.ServeMux{true: a, false: b}[f.mux == b] }
		f.start("policyHolder")
		turn()
		f.identify("SMR0002", "Simon", "Texto").ok(t, 200, "VERIFY")
		turn()
		id := f.option("SMS")
		turn()
		f.send(id).ok(t, 200, "VERIFY")
		turn()
		f.verify(e.code("+15145550101")).ok(t, 200, "CONFIRM_USERNAME")
		turn()
		f.do(http.MethodPost, "/api/v2/verify/email", map[string]any{}).ok(t, 200, "VERIFY")
		turn()
		f.verify(e.code("simon@example.com")).ok(t, 200, "CREATE")
		turn()
		f.create(newPassword).ok(t, 201, "DONE")
		turn()
		f.do(http.MethodGet, "/api/v2/account-info", nil).ok(t, 200, "DONE")
	})
}
