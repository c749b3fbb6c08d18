package emailtoken_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/emailtoken"
	"guichet/internal/notify"
	"guichet/internal/testenv"
	"guichet/internal/throttle"
)

// each runs fn on a fresh env over SQLite and PostgreSQL.
func each(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	testenv.Each(t, func(t *testing.T, te *testenv.Env) { fn(t, newEnv(t, te)) })
}

// TestActions walks the routing table of spec §4.2: every action, with
// every source, read with its src and without.
func TestActions(t *testing.T) {
	cases := []struct {
		number, email string
		action        string
		check         func(t *testing.T, e *env, a emailtoken.Answer)
	}{
		{"TOK-0001", "theo@example.com", emailtoken.ActionRegister, func(t *testing.T, e *env, a emailtoken.Answer) {
			if len(a.ID) != 22 || a.Email != "theo@example.com" || a.UBIMatchPH || a.UBIDriver || len(a.TwoFactorValidations) != 0 {
				t.Fatalf("%+v", a)
			}
		}},
		{"TOK0006", "VERA@example.com", emailtoken.ActionRegister, func(t *testing.T, e *env, a emailtoken.Answer) {
			if a.Email != "vera@example.com" || !a.UBIDriver || a.UBIMatchPH {
				t.Fatalf("%+v", a)
			}
		}},
		{"TOK0002", "owner@example.com", emailtoken.ActionAskUsername, func(t *testing.T, e *env, a emailtoken.Answer) {
			if len(a.TwoFactorValidations) != 1 || a.TwoFactorValidations[0].Method != "ask-username" || a.Email != "" {
				t.Fatalf("%+v", a)
			}
		}},
		{"TOK0003", "owner@example.com", emailtoken.ActionAskPassword, func(t *testing.T, e *env, a emailtoken.Answer) {
			if len(a.TwoFactorValidations) != 1 || a.TwoFactorValidations[0].Method != "ask-password" ||
				!a.UBIMatchPH || !a.UBIDriver || a.Email != "owner@example.com" {
				t.Fatalf("%+v", a)
			}
		}},
		{"OWN0001", "owner@example.com", emailtoken.ActionReset, func(t *testing.T, e *env, a emailtoken.Answer) {
			if a.ID != e.owner.ID || len(a.TwoFactorValidations) != 0 || a.UBIDriver {
				t.Fatalf("%+v", a)
			}
		}},
	}
	for _, c := range cases {
		for _, src := range emailtoken.Sources {
			t.Run(c.action+"/"+c.number+"/"+src, func(t *testing.T) {
				each(t, func(t *testing.T, e *env) {
					out := e.issue(c.number, c.email, src)
					if len(out.Token) != emailtoken.Length || !strings.Contains(out.Link, "token="+out.Token+"&src="+src+"&lang=") ||
						!strings.HasPrefix(out.Link, "https://") {
						t.Fatalf("issued %+v", out)
					}
					a := tokenOf(t, e.read(out.Token, src).Expect(t, 200, ""))
					if a.Action != c.action || !a.StartDate.Equal(out.StartAt.Truncate(time.Millisecond)) {
						t.Fatalf("action %q, want %q: %+v", a.Action, c.action, a)
					}
					c.check(t, e, a)
					// Without src (web SSO 0x00000000): the same answer.
					b := tokenOf(t, e.read(out.Token, "").Expect(t, 200, ""))
					if b.Action != a.Action || b.ID != a.ID {
						t.Fatalf("without src %+v, with %+v", b, a)
					}
					// Expired: token-expired, with the account id when there is one.
					e.Clock.Advance(14*day + time.Millisecond)
					x := tokenOf(t, e.read(out.Token, src).Expect(t, 200, ""))
					if x.Action != emailtoken.ActionExpired || len(x.TwoFactorValidations) != 0 {
						t.Fatalf("expired %+v", x)
					}
					if want := map[bool]string{true: e.owner.ID, false: ""}[c.email == "owner@example.com"]; x.ID != want {
						t.Fatalf("expired id %q, want %q", x.ID, want)
					}
				})
			})
		}
	}
}

// TestNotFound: malformed, tampered, unknown, another brand's, another
// source's, an unknown source, not started yet: 404, and nothing opened.
func TestNotFound(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		out := e.issue("TOK0001", "theo@example.com", emailtoken.SourceBA)
		flip := []byte(out.Token)
		flip[10] ^= 1
		for name, c := range map[string]struct{ token, src string }{
			"tampered":       {string(flip), ""},
			"42 characters":  {out.Token[:42], ""},
			"44 characters":  {out.Token + "A", ""},
			"not base64url":  {out.Token[:42] + "+", ""},
			"other source":   {out.Token, "edoc"},
			"unknown source": {out.Token, "xyz"},
			"source case":    {out.Token, "ba"},
			"empty source":   {out.Token, "="},
		} {
			src := c.src
			path := "/api/v1/tokens/" + c.token
			if src == "=" {
				path += "?src="
			} else if src != "" {
				path += "?src=" + src
			}
			e.do(http.MethodGet, path, nil, nil).Expect(t, 404, "NOT_FOUND")
			_ = name
		}
		bna, _ := e.brands.ByID("bna")
		e.do(http.MethodGet, "/api/v1/tokens/"+out.Token, nil, bna).Expect(t, 404, "NOT_FOUND")
		e.do(http.MethodDelete, "/api/v1/tokens/"+out.Token, nil, bna).Expect(t, 404, "NOT_FOUND")
		if n := e.Count(t, "SELECT COUNT(*) FROM registrations"); n != 0 {
			t.Fatalf("%d registrations opened by refused reads", n)
		}
		// A start date in the future: 404 until then.
		later, err := e.tokens.Issue(t.Context(), emailtoken.Request{Brand: "belair", PolicyNumber: "TOK0001",
			Email: "theo@example.com", Source: "mrkt", Start: e.Clock.Now().Add(day), IssuedBy: "cli"})
		if err != nil {
			t.Fatal(err)
		}
		e.read(later.Token, "mrkt").Expect(t, 404, "NOT_FOUND")
		e.Clock.Advance(day)
		if a := tokenOf(t, e.read(later.Token, "mrkt").Expect(t, 200, "")); a.Action != emailtoken.ActionRegister {
			t.Fatalf("%+v", a)
		}
		if !later.ExpiresAt.Equal(later.StartAt.Add(14 * day)) {
			t.Fatalf("expiry %v from start %v", later.ExpiresAt, later.StartAt)
		}
	})
}

// TestRereadKeepsTheRegistration: the same live registration while it
// lives, a new one after it expired; the old one closed when the action
// changed.
func TestRereadKeepsTheRegistration(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		out, first := e.opened("TOK0001", "theo@example.com", "edoc")
		if again := tokenOf(t, e.read(out.Token, "edoc")).ID; again != first {
			t.Fatalf("second read opened %s, first %s", again, first)
		}
		e.Clock.Advance(31 * time.Minute)
		if later := tokenOf(t, e.read(out.Token, "edoc")).ID; later == first {
			t.Fatal("an expired registration was handed out again")
		}
		// The expired one cannot create.
		e.create(first, map[string]any{"postalCode": postal}).Expect(t, 409, "REGISTRATION_STATE")
	})
}

// TestCreateWithToken: wrong postal code or date of birth (1002, counted,
// 1003 the fifth), the right ones (201, linked, welcome, token spent), then
// never a second account.
func TestCreateWithToken(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		out, id := e.opened("TOK0001", "theo@example.com", "edoc")
		e.create(id, map[string]any{}).Expect(t, 400, "VALIDATION")
		e.create(id, map[string]any{"postalCode": "M5V"}).Expect(t, 400, "VALIDATION")
		e.create(id, map[string]any{"postalCode": "M5V 2T7"}).Expect(t, 400, "1002")
		e.create(id, map[string]any{"postalCode": postal, "dateOfBirth": "1985-03-15"}).Expect(t, 400, "1002")
		// The date of birth is optional (a read without src).
		a := e.create(id, map[string]any{"postalCode": "m5v2t6", "dateOfBirth": dob}).Expect(t, 201, "")
		if a.Str(t, "email") != "theo@example.com" {
			t.Fatalf("%s", a.Body)
		}
		accounttest.ExpectLinked(t, e.DB, "belair", "theo@example.com", "TOK0001:holder")
		if n := e.Count(t, "SELECT COUNT(*) FROM email_tokens WHERE used_at <> 0"); n != 1 {
			t.Fatalf("%d tokens used", n)
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM outbox WHERE recipient = ? AND template = ?", "theo@example.com",
			notify.TemplateAccountCreated); n != 1 {
			t.Fatalf("%d welcome emails", n)
		}
		// Used twice: the same registration is closed, a new read says
		// token-expired with the new account's id.
		e.create(id, map[string]any{"postalCode": postal}).Expect(t, 409, "REGISTRATION_STATE")
		x := tokenOf(t, e.read(out.Token, "edoc").Expect(t, 200, ""))
		if x.Action != emailtoken.ActionExpired || x.ID == "" {
			t.Fatalf("%+v", x)
		}
		// Another token for the same person: the account exists now.
		again := e.issue("TOK0001", "theo@example.com", "mrkt")
		if r := tokenOf(t, e.read(again.Token, "mrkt")); r.Action != emailtoken.ActionReset || r.ID != x.ID {
			t.Fatalf("%+v", r)
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM accounts WHERE email_normalized = ?", "theo@example.com"); n != 1 {
			t.Fatalf("%d accounts", n)
		}
		// Audited without the token.
		e.ExpectCount(t, 0, "the token is in the audit trail", "SELECT COUNT(*) FROM audit_events WHERE detail LIKE ?", "%"+out.Token[:12]+"%")
		for _, ev := range []audit.Name{audit.TokenIssue, audit.TokenRead, audit.TokenConsume} {
			if e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE event = ?", ev) == 0 {
				t.Errorf("no %s audited", ev)
			}
		}
	})
}

func TestCreateTriesRunOut(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		_, id := e.opened("TOK0001", "theo@example.com", "edoc")
		for range 4 {
			e.create(id, map[string]any{"postalCode": "H0H 0H0"}).Expect(t, 400, "1002")
		}
		e.create(id, map[string]any{"postalCode": "H0H 0H0"}).Expect(t, 400, "1003")
		e.create(id, map[string]any{"postalCode": postal}).Expect(t, 400, "1003")
		if n := e.Count(t, "SELECT COUNT(*) FROM accounts WHERE email_normalized = ?", "theo@example.com"); n != 0 {
			t.Fatalf("%d accounts", n)
		}
	})
}

// TestConcurrentCreatesWithOneToken: exactly one account.
func TestConcurrentCreatesWithOneToken(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		_, id := e.opened("TOK0001", "theo@example.com", "edoc")
		got := testenv.Parallel(6, func() testenv.Answer { return e.create(id, map[string]any{"postalCode": postal}) })
		if got[201] != 1 || got[409] != 5 || e.Count(t, "SELECT COUNT(*) FROM accounts WHERE email_normalized = ?", "theo@example.com") != 1 {
			t.Fatalf("statuses %v, want one 201 and the others 409", got)
		}
	})
}

// TestWrongCellphone: a UBI driver's wrong cell phone closes the
// registration and locks the person 24 hours.
func TestWrongCellphone(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		out, id := e.opened("TOK0006", "vera@example.com", "BA")
		e.create(id, map[string]any{"postalCode": postal}).Expect(t, 400, "VALIDATION")
		e.create(id, map[string]any{"cellPhone": "514-555-0304"}).Expect(t, 403, "WRONG_CELLPHONE")
		e.create(id, map[string]any{"cellPhone": cell}).Expect(t, 409, "REGISTRATION_STATE")
		id = tokenOf(t, e.read(out.Token, "BA")).ID
		e.create(id, map[string]any{"cellPhone": "514-555-0303"}).Expect(t, 403, "WRONG_CELLPHONE")
		e.Clock.Advance(day - time.Minute)
		id = tokenOf(t, e.read(out.Token, "BA")).ID
		e.create(id, map[string]any{"cellPhone": cell}).Expect(t, 403, "WRONG_CELLPHONE")
		e.Clock.Advance(2 * time.Minute)
		id = tokenOf(t, e.read(out.Token, "BA")).ID
		e.create(id, map[string]any{"cellPhone": "514-555-0303"}).Expect(t, 201, "")
		accounttest.ExpectLinked(t, e.DB, "belair", "vera@example.com", "TOK0006:driver")
		e.ExpectCount(t, 1, "the wrong phone is not audited", "SELECT COUNT(*) FROM audit_events WHERE event = 'registration.wrong_phone' AND outcome = 'wrong_phone'")
	})
}

// TestUBILink: the policyholder's password plus the driver's date of
// birth and postal code; wrong answers are the account's sign-in failures.
func TestUBILink(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		out, id := e.opened("TOK0003", "owner@example.com", "edoc")
		path := "/api/v1/accounts/" + id + "/authentication"
		e.post(path, map[string]string{"password": accounttest.OwnerPassword}).Expect(t, 400, "VALIDATION")
		e.post(path, map[string]string{"password": "Wrong-Horse-9!", "dateOfBirth": dob, "postalCode": postal}).Expect(t, 400, "3005")
		// The owner's own date of birth is not the driver's.
		e.post(path, map[string]string{"password": accounttest.OwnerPassword, "dateOfBirth": "1980-04-12", "postalCode": postal}).Expect(t, 400, "1002")
		e.post(path, map[string]string{"password": accounttest.OwnerPassword, "dateOfBirth": dob, "postalCode": "H2X 1Y4"}).Expect(t, 400, "1002")
		if n := e.Count(t, "SELECT COUNT(*) FROM login_failures WHERE account_id = ?", e.owner.ID); n != 3 {
			t.Fatalf("%d sign-in failures counted, want 3", n)
		}
		a := e.post(path, map[string]string{"password": accounttest.OwnerPassword, "dateOfBirth": dob, "postalCode": "m5v 2t6"}).Expect(t, 200, "")
		if a.Str(t, "email") != "owner@example.com" {
			t.Fatalf("%s", a.Body)
		}
		accounttest.ExpectLinked(t, e.DB, "belair", "owner@example.com", "OWN0001:holder", "TOK0003:driver")
		e.ExpectCount(t, 1, "link not audited", "SELECT COUNT(*) FROM audit_events WHERE event = 'registration.link' AND outcome = 'ok'")
		if x := tokenOf(t, e.read(out.Token, "edoc")); x.Action != emailtoken.ActionExpired || x.ID != e.owner.ID {
			t.Fatalf("%+v", x)
		}
		e.post(path, map[string]string{"password": accounttest.OwnerPassword, "dateOfBirth": dob, "postalCode": postal}).Expect(t, 409, "REGISTRATION_STATE")
	})
}

// TestUBILinkLockout: the sign-in's lockout applies, and a locked account
// answers like a wrong password.
func TestUBILinkLockout(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		_, id := e.opened("TOK0003", "owner@example.com", "edoc")
		path := "/api/v1/registrations/" + id + "/authentication"
		for range account.DefaultLockout.MaxFailures {
			e.post(path, map[string]string{"password": accounttest.OwnerPassword, "dateOfBirth": "1990-01-01", "postalCode": postal}).Expect(t, 400, "1002")
		}
		e.post(path, map[string]string{"password": accounttest.OwnerPassword, "dateOfBirth": dob, "postalCode": postal}).Expect(t, 400, "3005")
		e.ExpectCount(t, 1, "a refused link spent the token", "SELECT COUNT(*) FROM email_tokens WHERE used_at = 0")
	})
}

// TestAskUsername: the token's email is another account's: a new email,
// its code, then the token create.
func TestAskUsername(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		_, a := e.issueAndRead("TOK0002", "owner@example.com", "mrkt")
		opt := a.TwoFactorValidations[0].ID
		vpath := "/api/v1/registrations/" + a.ID + "/validations/" + opt + "/"
		e.post(vpath, map[string]string{"validationValue": "owner@example.com"}).Expect(t, 404, "EMAIL_ALREADY_EXISTS")
		next := e.post(vpath, map[string]string{"validationValue": "tina@example.com"}).Expect(t, 240, "")
		var body struct {
			TwoFactorValidations []emailtoken.Validation `json:"twoFactorValidations"`
		}
		if err := json.Unmarshal(next.Body, &body); err != nil || len(body.TwoFactorValidations) != 1 ||
			body.TwoFactorValidations[0].Method != "ask-email-code" {
			t.Fatalf("%s", next.Body)
		}
		code := e.Mail.Next(t, "tina@example.com").Data[notify.DataCode]
		cpath := "/api/v1/registrations/" + a.ID + "/validations/" + body.TwoFactorValidations[0].ID + "/"
		e.post(cpath, map[string]string{"validationValue": code}).Expect(t, 200, "")
		e.create(a.ID, map[string]any{"postalCode": "H2X 1Y4"}).Expect(t, 400, "1002")
		e.create(a.ID, map[string]any{"postalCode": postal, "dateOfBirth": dob}).Expect(t, 201, "")
		accounttest.ExpectLinked(t, e.DB, "belair", "tina@example.com", "TOK0002:holder")
		e.ExpectCount(t, 1, "token not spent", "SELECT COUNT(*) FROM email_tokens WHERE used_at <> 0")
	})
}

// TestResetWithEmailToken: reset-password-login's /reset with the email
// token as proof.
func TestResetWithEmailToken(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		out, a := e.issueAndRead("OWN0001", "owner@example.com", "edoc")
		path := "/api/v1/accounts/" + a.ID + "/password"
		other := e.issue("TOK0001", "theo@example.com", "edoc")
		e.post(path, map[string]string{"password": newPassword, "token": other.Token, "postalCode": postal}).Expect(t, 403, "3004")
		e.post(path, map[string]string{"password": newPassword, "token": out.Token, "postalCode": "H2X 1Y4"}).Expect(t, 400, "1002")
		e.post(path, map[string]string{"password": newPassword, "token": out.Token, "postalCode": postal}).Expect(t, 200, "")
		if e.Count(t, "SELECT COUNT(*) FROM outbox WHERE recipient = ? AND template = ?", "owner@example.com",
			notify.TemplatePasswordChanged) != 1 {
			t.Fatal("no password-changed email")
		}
		e.post(path, map[string]string{"password": "Another-Pass-2026!", "token": out.Token, "postalCode": postal}).Expect(t, 403, "3004")
		if x := tokenOf(t, e.read(out.Token, "edoc")); x.Action != emailtoken.ActionExpired {
			t.Fatalf("%+v", x)
		}
		// Five wrong postal codes kill a token.
		dead := e.issue("OWN0001", "owner@example.com", "BA")
		for range emailtoken.ResetAttempts - 1 {
			e.post(path, map[string]string{"password": newPassword + "x", "token": dead.Token, "postalCode": "H2X 1Y4"}).Expect(t, 400, "1002")
		}
		e.post(path, map[string]string{"password": newPassword + "x", "token": dead.Token, "postalCode": "H2X 1Y4"}).Expect(t, 403, "3004")
		e.post(path, map[string]string{"password": newPassword + "x", "token": dead.Token, "postalCode": postal}).Expect(t, 403, "3004")
		if x := tokenOf(t, e.read(dead.Token, "BA")); x.Action != emailtoken.ActionExpired || x.ID != e.owner.ID {
			t.Fatalf("a killed token reads %+v", x)
		}
	})
}

// TestDelete: 204 twice for a known token, 404 otherwise; a deleted token
// reads token-expired.
func TestDelete(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		out, id := e.opened("TOK0001", "theo@example.com", "edoc")
		e.do(http.MethodDelete, "/api/v1/tokens/"+out.Token, nil, nil).Expect(t, 204, "")
		e.do(http.MethodDelete, "/api/v1/tokens/"+out.Token, nil, nil).Expect(t, 204, "")
		e.do(http.MethodDelete, "/api/v1/tokens/"+strings.Repeat("A", 43), nil, nil).Expect(t, 404, "NOT_FOUND")
		e.do(http.MethodDelete, "/api/v1/tokens/short", nil, nil).Expect(t, 404, "NOT_FOUND")
		if x := tokenOf(t, e.read(out.Token, "edoc")); x.Action != emailtoken.ActionExpired {
			t.Fatalf("%+v", x)
		}
		e.create(id, map[string]any{"postalCode": postal}).Expect(t, 409, "REGISTRATION_STATE")
	})
}

// TestIssue: refusals, the language, the invitation email per source.
func TestIssue(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		base := emailtoken.Request{Brand: "belair", PolicyNumber: "TOK0001", Email: "theo@example.com", Source: "edoc", IssuedBy: "cli"}
		for name, c := range map[string]struct {
			change func(r *emailtoken.Request)
			want   error
		}{
			"unknown source": {func(r *emailtoken.Request) { r.Source = "EDOC" }, emailtoken.ErrSource},
			"no such email":  {func(r *emailtoken.Request) { r.Email = "someone@example.com" }, emailtoken.ErrNoPerson},
			"no such policy": {func(r *emailtoken.Request) { r.PolicyNumber = "ZZZ9999" }, emailtoken.ErrNoPerson},
			"other brand":    {func(r *emailtoken.Request) { r.Brand = "bna" }, emailtoken.ErrNoPerson},
			"unknown brand":  {func(r *emailtoken.Request) { r.Brand = "acme" }, emailtoken.ErrBrand},
			"cancelled":      {func(r *emailtoken.Request) { r.PolicyNumber, r.Email = "TOK0005", "carl@example.com" }, emailtoken.ErrInactive},
		} {
			r := base
			c.change(&r)
			if _, err := e.tokens.Issue(ctx, r); !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", name, err, c.want)
			}
		}
		var inv *emailtoken.InvalidError
		for _, change := range []func(r *emailtoken.Request){
			func(r *emailtoken.Request) { r.Email = "not an email" },
			func(r *emailtoken.Request) { r.Language = "de" },
			func(r *emailtoken.Request) { r.Expiry = 400 * day },
			func(r *emailtoken.Request) { r.PolicyNumber = "" },
		} {
			r := base
			change(&r)
			if _, err := e.tokens.Issue(ctx, r); !errors.As(err, &inv) {
				t.Errorf("%+v: %v", r, err)
			}
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM email_tokens"); n != 0 {
			t.Fatalf("%d tokens issued by refused requests", n)
		}
		// The language: the account's (fr), else the brand's default (en).
		for _, src := range emailtoken.Sources {
			r := base
			r.PolicyNumber, r.Email, r.Source, r.Send = "OWN0001", "Owner@Example.com", src, true
			out, err := e.tokens.Issue(ctx, r)
			if err != nil || !strings.HasSuffix(out.Link, "&src="+src+"&lang=fr") {
				t.Fatalf("%v %+v", err, out)
			}
			var template, language, data string
			if err := e.DB.QueryRow(ctx, "SELECT template, language, data FROM outbox WHERE recipient = ? AND data LIKE ?",
				"owner@example.com", "%"+out.Token+"%").Scan(&template, &language, &data); err != nil {
				t.Fatal(err)
			}
			if template != emailtoken.Template(src) || language != "fr" || !strings.Contains(data, out.Token) ||
				!strings.Contains(data, `"expires":"`+out.ExpiresAt.Format(time.DateOnly)+`"`) {
				t.Fatalf("%s %s %s", template, language, data)
			}
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM outbox WHERE template LIKE 'invitation_%'"); n != 3 {
			t.Fatalf("%d invitations", n)
		}
		belair, _ := e.brands.ByID("belair")
		out := e.issue("TOK0001", "theo@example.com", "edoc")
		if want := "https://" + belair.Hosts[0] + "/registration/link?token=" + out.Token + "&src=edoc&lang=en"; out.Link != want {
			t.Fatalf("link %s, want %s", out.Link, want)
		}
		// Only the token's hash is stored.
		if e.Count(t, "SELECT COUNT(*) FROM email_tokens WHERE token_hash = ? AND id = ?", codes.TokenHash(out.Token), out.ID) != 1 ||
			e.Count(t, "SELECT COUNT(*) FROM email_tokens WHERE token_hash = ?", out.Token) != 0 {
			t.Fatal("the token is not stored as its hash")
		}
	})
}

// TestAdminAPI: per-brand service keys.
func TestAdminAPI(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		body := map[string]any{"brand": "belair", "policyNumber": "TOK-0001", "email": "theo@example.com", "source": "edoc"}
		for _, h := range []string{"", "Bearer", "Bearer ", "Basic " + e.keys["belair"], e.keys["belair"]} {
			a := e.adminCall(h, body).Expect(t, 401, "UNAUTHORIZED")
			if a.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("%q: no WWW-Authenticate", h)
			}
		}
		e.adminCall("Bearer wrong-key-0123456789", body).Expect(t, 403, "FORBIDDEN")
		e.adminCall("Bearer "+e.keys["bna"], body).Expect(t, 403, "FORBIDDEN")
		intact := map[string]any{"brand": "intact", "policyNumber": "X", "email": "a@example.com", "source": "edoc"}
		e.adminCall("Bearer "+e.keys["belair"], intact).Expect(t, 403, "FORBIDDEN")
		if n := e.Count(t, "SELECT COUNT(*) FROM email_tokens"); n != 0 {
			t.Fatalf("%d tokens issued without the right key", n)
		}
		key := "Bearer " + e.keys["belair"]
		bad := map[string]any{"brand": "belair", "policyNumber": "TOK0001", "email": "theo@example.com", "source": "sms"}
		e.adminCall(key, bad).Expect(t, 400, "INVALID_SOURCE")
		bad["source"], bad["email"] = "BA", "nobody@example.com"
		e.adminCall(key, bad).Expect(t, 404, "NO_PERSON")
		bad["email"], bad["days"] = "theo@example.com", 0
		e.adminCall(key, bad).Expect(t, 400, "VALIDATION")
		delete(bad, "days")
		bad["startDate"] = "tomorrow"
		e.adminCall(key, bad).Expect(t, 400, "VALIDATION")
		body["send"], body["days"], body["startDate"], body["language"] = true, 3, "2030-01-02T03:04:05Z", "fr"
		a := e.adminCall(key, body).Expect(t, 201, "")
		m := a.JSON(t)
		if len(m["id"].(string)) != 22 || !strings.Contains(m["link"].(string), "&src=edoc&lang=fr") ||
			m["startDate"] != "2030-01-02T03:04:05Z" || m["expiresAt"] != "2030-01-05T03:04:05Z" {
			t.Fatalf("%s", a.Body)
		}
		if e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE event = ? AND actor = ? AND ip = ?", audit.TokenIssue,
			emailtoken.IssuedByAdmin, "10.0.0.5") != 1 {
			t.Fatal("admin issue not audited")
		}
		if e.Count(t, "SELECT COUNT(*) FROM outbox WHERE recipient = ? AND template = ? AND language = 'fr'",
			"theo@example.com", notify.TemplateInvitationEdoc) != 1 {
			t.Fatal("no invitation queued")
		}
	})
}

// TestReadsAreLimited: per client address, 429 with Retry-After.
func TestReadsAreLimited(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.tokens.Limits = emailtoken.Limits{Reads: throttle.Rule{Scope: "test.read", Limit: 3, Window: time.Minute}}
		for range 3 {
			e.read(strings.Repeat("B", 43), "").Expect(t, 404, "NOT_FOUND")
		}
		a := e.read(strings.Repeat("B", 43), "").Expect(t, 429, "RATE_LIMITED")
		if a.Header.Get("Retry-After") == "" {
			t.Fatal("no Retry-After")
		}
	})
}

// TestLinkBase: https on the first host; in --dev http on the first dev
// host at GUICHET_ADDR's port.
func TestLinkBase(t *testing.T) {
	reg := testenv.Brands(t)
	b, _ := reg.ByID("belair")
	for _, c := range []struct {
		dev  bool
		addr string
		want string
	}{
		{false, "127.0.0.1:8080", "https://" + b.Hosts[0]},
		{true, "127.0.0.1:8080", "http://" + b.DevHosts[0] + ":8080"},
		{true, "127.0.0.1:0", "http://" + b.DevHosts[0]},
		{true, "", "http://" + b.DevHosts[0]},
	} {
		if got := emailtoken.LinkBase(b, c.dev, c.addr); got != c.want {
			t.Errorf("dev %v addr %q: %s, want %s", c.dev, c.addr, got, c.want)
		}
	}
}

// TestConcurrentReadsShareOneRegistration: reads racing on one token open
// one registration, so none escapes the token's checks.
func TestConcurrentReadsShareOneRegistration(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		out := e.issue("TOK0001", "theo@example.com", "edoc")
		const n = 6
		ids := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ids[i] = tokenOf(t, e.read(out.Token, "edoc")).ID
			}()
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("reads got %v", ids)
			}
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM registrations WHERE state <> 'closed'"); n != 1 {
			t.Fatalf("%d open registrations", n)
		}
	})
}

// TestResetWithEmailTokenWrongCellphone: a UBI driver's reset with an email
// token asks the cell phone; a wrong one kills the token and locks the
// account 24 hours.
func TestResetWithEmailTokenWrongCellphone(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		out, a := e.issueAndRead("TOK0007", "uma@example.com", "edoc")
		if a.Action != emailtoken.ActionReset || a.ID != e.uma.ID || !a.UBIDriver {
			t.Fatalf("%+v", a)
		}
		path := "/api/v1/accounts/" + a.ID + "/password"
		e.post(path, map[string]string{"password": newPassword, "token": out.Token, "postalCode": postal}).Expect(t, 400, "")
		e.post(path, map[string]string{"password": newPassword, "token": out.Token, "cellPhone": "5145550304"}).Expect(t, 403, "WRONG_CELLPHONE")
		e.post(path, map[string]string{"password": newPassword, "token": out.Token, "cellPhone": cell}).Expect(t, 403, "3004")
		again := e.issue("TOK0007", "uma@example.com", "BA")
		e.post(path, map[string]string{"password": newPassword, "token": again.Token, "cellPhone": cell}).Expect(t, 403, "WRONG_CELLPHONE")
		e.Clock.Advance(day + time.Minute)
		e.post(path, map[string]string{"password": newPassword, "token": again.Token, "cellPhone": cell}).Expect(t, 200, "")
	})
}

// TestInconsistent: a token whose person already has an account, sent to
// another account's email, reads 412 INCONSISTENT (spec §8.1, the
// inconsistency roadblock): no action, nothing opened, audited; a dead
// token still reads token-expired.
func TestInconsistent(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, c := range []struct{ number, email string }{
			{"TOK0008", "owner@example.com"}, // Uma has her account (uma@); owner@ is Olivia's
		} {
			out := e.issue(c.number, c.email, emailtoken.SourceEdoc)
			e.read(out.Token, emailtoken.SourceEdoc).Expect(t, 412, "INCONSISTENT")
			e.read(out.Token, "").Expect(t, 412, "INCONSISTENT")
			e.Clock.Advance(14*day + time.Millisecond)
			if x := tokenOf(t, e.read(out.Token, emailtoken.SourceEdoc).Expect(t, 200, "")); x.Action != emailtoken.ActionExpired {
				t.Fatalf("expired %+v", x)
			}
		}
		var registrations, audited int
		if err := e.DB.QueryRow(t.Context(), "SELECT COUNT(*) FROM registrations").Scan(&registrations); err != nil {
			t.Fatal(err)
		}
		if err := e.DB.QueryRow(t.Context(), "SELECT COUNT(*) FROM audit_events WHERE outcome = 'inconsistent'").Scan(&audited); err != nil {
			t.Fatal(err)
		}
		if registrations != 0 || audited != 2 {
			t.Fatalf("%d registrations opened, %d reads audited inconsistent; want 0, 2", registrations, audited)
		}
	})
}
