package app

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/notify"
	"guichet/internal/store"
	"guichet/internal/testenv"
)

// TestDecoyIDsAnswerLikeAccountIDs: password reset answers an unknown email
// with a decoy id. Walking every route of the table with a path parameter,
// with the same plausible bodies (a wrong password, a wrong code, a dead
// token...), a decoy id and the id of a real account get the same status and
// the same body (ids aside), and the decoy's calls queue no email.
func TestDecoyIDsAnswerLikeAccountIDs(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *App) {
		ctx := t.Context()
		belair, _ := a.Brands.ByID("belair")
		hash, err := account.NewHasher(testHashParams).Hash(ctx, "Correct-Horse-9!")
		if err != nil {
			t.Fatal(err)
		}
		const realEmail = "alex@example.com"
		err = a.DB.InTx(ctx, func(tx *store.Tx) error {
			_, err := account.Insert(ctx, tx, account.Account{
				Brand: "belair", Email: realEmail, FirstName: "Alex", PostalCode: "M5V 2T6", DateOfBirth: "1980-04-12",
			}, hash, time.Now())
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		call := func(method, path, body string) (int, string) {
			rec := testenv.Do(t, a.Handler, testenv.Request{Method: method, Path: path, Host: belair.Hosts[0], Body: body,
				Headers: map[string]string{"api-key": belair.APIKey, "Content-Type": "application/json"}})
			return rec.Status, string(rec.Body)
		}
		type subject struct{ id, validationID string }
		start := func(email string) *subject {
			status, body := call("POST", "/api/v1/accounts/password-reset", `{"email":"`+email+`"}`)
			var s struct{ ID, ValidationID string }
			if err := json.Unmarshal([]byte(body), &s); status != 200 || err != nil {
				t.Fatalf("password reset of %s: %d %s", email, status, body)
			}
			return &subject{s.ID, s.ValidationID}
		}
		real, decoy := start(realEmail), start("nobody@example.com")
		if real.id == decoy.id || !api.IsID(decoy.id) {
			t.Fatalf("ids %q and %q", real.id, decoy.id)
		}

		emails := func() int {
			var n int
			if err := a.DB.QueryRow(ctx, "SELECT COUNT(*) FROM outbox").Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		// wrongCode is a code none of the real account's emails holds.
		wrongCode := func() string {
			rows, err := a.DB.Query(ctx, "SELECT data FROM outbox WHERE recipient = ? AND template = ?", realEmail, notify.TemplateResetCode)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var sent []string
			for rows.Next() {
				var data string
				var m map[string]string
				if err := rows.Scan(&data); err != nil {
					t.Fatal(err)
				}
				_ = json.Unmarshal([]byte(data), &m)
				sent = append(sent, m[notify.DataCode])
			}
			for i := range 10 {
				if c := strings.Repeat(fmt.Sprint(i), 6); !slices.Contains(sent, c) {
					return c
				}
			}
			t.Fatal("no wrong code left")
			return ""
		}

		routes := parameterised(t, a.Routes)
		patterns := make([]string, 0, len(routes))
		for p := range routes {
			patterns = append(patterns, p)
		}
		slices.Sort(patterns)
		realEmails := 0
		for _, pattern := range patterns {
			for _, template := range plausibleBodies[pattern] {
				body := strings.ReplaceAll(template, "{code}", wrongCode())
				var answers [2]string
				for i, s := range []*subject{real, decoy} {
					method, path := fill(pattern, map[string]string{"id": s.id, "validationId": s.validationID})
					before := emails()
					status, answer := call(method, path, body)
					if s == decoy && emails() != before {
						t.Fatalf("%s %s: the decoy's call queued an email", pattern, body)
					}
					if s == real {
						realEmails += emails() - before
					}
					if status >= 500 {
						t.Fatalf("%s %s: %d %s", pattern, body, status, answer)
					}
					// A resend gives a new validation id: later calls use it.
					var started struct{ ValidationID string }
					if status == 200 && json.Unmarshal([]byte(answer), &started) == nil && started.ValidationID != "" {
						s.validationID = started.ValidationID
					}
					answers[i] = fmt.Sprintf("%d %s", status, idsMasked(t, answer))
				}
				if answers[0] != answers[1] {
					t.Errorf("%s %s:\n  account %s\n  decoy   %s", pattern, body, answers[0], answers[1])
				}
			}
		}
		if realEmails == 0 {
			t.Fatal("the real account was sent nothing: the walk compared nothing that sends email")
		}
	})
}

// idsMasked replaces every id in a JSON answer by "<id>": a decoy's ids
// differ from an account's, their shape does not.
func idsMasked(t *testing.T, answer string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(answer), &v); err != nil {
		t.Fatalf("not JSON: %s", answer)
	}
	var mask func(any) any
	mask = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = mask(e)
			}
		case []any:
			for i, e := range x {
				x[i] = mask(e)
			}
		case string:
			if api.IsID(x) {
				return "<id>"
			}
		}
		return v
	}
	out, _ := json.Marshal(mask(v))
	return string(out)
}
