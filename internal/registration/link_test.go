package registration_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/audit"
	"guichet/internal/brand"
	"guichet/internal/emailtoken"
	"guichet/internal/identity"
	"guichet/internal/notify"
	"guichet/internal/registration"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// linkEnv is an env whose brand proves an email by link (emailProof: link).
func linkEnv(t *testing.T, db *store.DB) *env {
	e := newEnv(t, db)
	e.belair.EmailProof = brand.EmailProofLink
	return e
}

// emailLink is the link a registration-invite message carries, read apart.
type emailLink struct {
	id, validation, token, lang string
}

// linkTo reads the one new message to `to`: the email-proof link, in
// language.
func (e *env) linkTo(to, language string) emailLink {
	e.t.Helper()
	m := e.Mail.Next(e.t, to)
	if m.Template != notify.TemplateRegistrationInvite || m.Channel != "email" || m.Language != language ||
		m.Data[notify.DataMinutes] != "10" || m.Data[notify.DataCode] != "" {
		e.t.Fatalf("link message %+v", m)
	}
	u, err := url.Parse(m.Data[notify.DataLink])
	if err != nil {
		e.t.Fatal(err)
	}
	if u.Scheme != "https" || u.Host != e.belair.Hosts[0] || u.Path != registration.LinkPath {
		e.t.Fatalf("link %s", u.Redacted())
	}
	q := u.Query()
	l := emailLink{id: q.Get("id"), validation: q.Get("validation"), token: q.Get("token"), lang: q.Get("lang")}
	if !emailtoken.WellFormed(l.token) || l.lang != language {
		e.t.Fatalf("link query %v", q)
	}
	return l
}

// submitAliceByLink identifies Alice (nothing on file) and submits her
// email: 202 with the ask-email-link option; returns the registration id
// and the link sent.
func (e *env) submitAliceByLink(email string) (string, emailLink) {
	e.t.Helper()
	id, ids := e.start("REG0004", "Alice", "Sansfil")
	a := e.value(id, ids["ask-email"], email).Expect(e.t, http.StatusAccepted, "")
	methods, next := optionsOf(e.t, a)
	if !slices.Equal(methods, []string{"ask-email-link"}) || a.Str(e.t, "id") != id {
		e.t.Fatalf("202: %s", a.Body)
	}
	l := e.linkTo(email, "en")
	if l.id != id || l.validation != next["ask-email-link"] {
		e.t.Fatalf("link %+v for %s %v", l, id, next)
	}
	return id, l
}

// emailByLink submits email at the option (202) and reads the link sent
// to it, in language.
func (e *env) emailByLink(id, optionID, email, language string) emailLink {
	e.t.Helper()
	e.value(id, optionID, email).Expect(e.t, http.StatusAccepted, "")
	return e.linkTo(email, language)
}

// createByLink opens the link (200) and creates the account (201) of the
// email it proved.
func (e *env) createByLink(id string, l emailLink, email string) {
	e.t.Helper()
	e.value(id, l.validation, l.token).Expect(e.t, http.StatusOK, "")
	e.create(id, newPassword).Expect(e.t, http.StatusCreated, "")
	e.linked(email)
}

// TestEmailLink: a brand that proves an email by link answers the email
// submission 202 and emails a link; opening it (the validation call with
// the link's token) continues the registration once, within a code's life
// and tries (spec §4.2 "202 goes to email-sent").
func TestEmailLink(t *testing.T) {
	cases := []testenv.Case[*env]{
		{Name: "ask-email: 202, the link verifies once, then the account is created", Run: func(t *testing.T, e *env) {
			id, l := e.submitAliceByLink("alice@example.com")
			wrong := strings.Repeat("A", emailtoken.Length)
			w := e.value(id, l.validation, wrong).Expect(t, 400, "INVALID_ACTIVATION_CODE")
			if w.JSON(t)["triesLeft"] != 4.0 {
				t.Fatalf("wrong link: %s", w.Body)
			}
			e.value(id, l.validation, "short").Expect(t, 400, "INVALID_ACTIVATION_CODE")
			v := e.value(id, l.validation, l.token).Expect(t, 200, "")
			if v.Str(t, "email") != "alice@example.com" || v.Str(t, "id") != id {
				t.Fatalf("verified: %s", v.Body)
			}
			e.value(id, l.validation, l.token).Expect(t, 409, "REGISTRATION_STATE") // single use
			e.create(id, newPassword).Expect(t, 201, "")
			accounttest.ExpectLinked(t, e.DB, "belair", "alice@example.com", "REG0004:holder")
			if m := e.Mail.Next(t, "alice@example.com"); m.Template != notify.TemplateAccountCreated {
				t.Fatalf("welcome %+v", m)
			}
		}},
		{Name: "the link is in the registration's language", Run: func(t *testing.T, e *env) {
			e.language = "fr"
			id, ids := e.start("REG0004", "Alice", "Sansfil")
			l := e.emailByLink(id, ids["ask-email"], "alice@example.com", "fr")
			e.value(l.id, l.validation, l.token).Expect(t, 200, "")
		}},
		{Name: "an email taken is refused as with a code; no link goes", Run: func(t *testing.T, e *env) {
			id, ids := e.start("REG0004", "Alice", "Sansfil")
			e.value(id, ids["ask-email"], "owner@example.com").Expect(t, 404, "EMAIL_ALREADY_EXISTS")
			e.Mail.None(t, "owner@example.com")
		}},
		{Name: "expired: a code's life", Run: func(t *testing.T, e *env) {
			id, l := e.submitAliceByLink("alice@example.com")
			e.Clock.Advance(identity.CodeTTL)
			e.value(id, l.validation, l.token).Expect(t, 403, "EXCEEDED_RETRIES_CODE_ACTIVATION")
		}},
		{Name: "a code's tries: the fifth wrong link kills the right one", Run: func(t *testing.T, e *env) {
			id, l := e.submitAliceByLink("alice@example.com")
			wrong := strings.Repeat("B", emailtoken.Length)
			for range identity.CodeGuesses - 1 {
				e.value(id, l.validation, wrong).Expect(t, 400, "INVALID_ACTIVATION_CODE")
			}
			e.value(id, l.validation, wrong).Expect(t, 403, "EXCEEDED_RETRIES_CODE_ACTIVATION")
			e.value(id, l.validation, l.token).Expect(t, 403, "EXCEEDED_RETRIES_CODE_ACTIVATION")
		}},
		{Name: "another registration's option, a resend, a code call: refused", Run: func(t *testing.T, e *env) {
			id, l := e.submitAliceByLink("alice@example.com")
			e.send(id, l.validation).Expect(t, 409, "REGISTRATION_STATE")
			e.value(id, "AAAAAAAAAAAAAAAAAAAAAA", l.token).Expect(t, 409, "REGISTRATION_STATE")
			e.create(id, newPassword).Expect(t, 409, "REGISTRATION_STATE")
			e.value("AAAAAAAAAAAAAAAAAAAAAA", l.validation, l.token).Expect(t, 404, "")
			e.value(id, l.validation, l.token).Expect(t, 200, "")
		}},
		{Name: "the email taken since it was submitted: the link goes on to new-email", Run: func(t *testing.T, e *env) {
			id, l := e.submitAliceByLink("alice@example.com")
			err := e.DB.InTx(t.Context(), func(tx *store.Tx) error {
				_, err := account.Insert(t.Context(), tx, account.Account{Brand: "belair", Email: "alice@example.com",
					FirstName: "Other", LastName: "Person", DateOfBirth: "1970-01-01", PostalCode: postal}, "x", e.Clock.Now())
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			n := e.value(id, l.validation, l.token).Expect(t, 240, "")
			next := offered(t, n, "ask-username")
			l2 := e.emailByLink(id, next["ask-username"], "alice2@example.com", "en")
			e.value(id, l2.validation, l.token).Expect(t, 400, "INVALID_ACTIVATION_CODE") // the first link is spent
			e.createByLink(id, l2, "alice2@example.com")
		}},
		{Name: "new-email (ask-username) proves by link too", Run: func(t *testing.T, e *env) {
			id, ids := e.start("REG0005", "Ugo", "Pris")
			n := e.proveByCode(id, ids["EMAIL"], "owner@example.com", 240)
			_, next := optionsOf(t, n)
			e.createByLink(id, e.emailByLink(id, next["ask-username"], "ugo@example.com", "en"), "ugo@example.com")
		}},
		{Name: "a UBI driver giving the policyholder's email still goes to password-validation", Run: func(t *testing.T, e *env) {
			id, ids := e.start("REG0010", "Victor", "Volant")
			n := e.proveByCode(id, ids["SMS"], "+15145550110", 240)
			_, next := optionsOf(t, n)
			a := e.value(id, next["ask-email"], "owner@example.com").Expect(t, 240, "")
			offered(t, a, "ask-password")
			e.Mail.None(t, "owner@example.com")
		}},
		{Name: "the token is in no audit row", Run: func(t *testing.T, e *env) {
			id, l := e.submitAliceByLink("alice@example.com")
			e.value(id, l.validation, strings.Repeat("C", emailtoken.Length)).Expect(t, 400, "")
			e.value(id, l.validation, l.token).Expect(t, 200, "")
			rows, err := e.DB.Query(t.Context(), "SELECT event, outcome, detail FROM audit_events WHERE event = ? OR event = ?",
				audit.RegistrationEmail, audit.RegistrationVerify)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var got []string
			for rows.Next() {
				var event, outcome, detail string
				if err := rows.Scan(&event, &outcome, &detail); err != nil {
					t.Fatal(err)
				}
				got = append(got, event+" "+outcome+" "+detail)
			}
			want := []string{"registration.email link_sent ", "registration.verify wrong_link ask-email-link",
				"registration.verify ok ask-email-link"}
			if !slices.Equal(got, want) {
				t.Fatalf("audit %q, want %q", got, want)
			}
		}},
	}
	testenv.RunCases(t, linkEnv, cases)
}

// TestConcurrentLinkOpensSucceedOnce: the link opened 16 times at once
// verifies once; the others are refused (single use).
func TestConcurrentLinkOpensSucceedOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := linkEnv(t, db)
		id, l := e.submitAliceByLink("alice@example.com")
		got := testenv.Parallel(16, func() testenv.Answer { return e.value(id, l.validation, l.token) })
		if got[http.StatusOK] != 1 || got[http.StatusConflict] != 15 {
			t.Fatalf("statuses %v", got)
		}
	})
}

// TestCodeBrandStillSendsACode: without emailProof the email submission
// answers 240 ask-email-code, as before.
func TestCodeBrandStillSendsACode(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		if e.belair.EmailByLink() {
			t.Fatal("belair proves an email by link")
		}
		f := e.find("REG0004", "Alice", "Sansfil").Expect(t, 240, "")
		_, ids := optionsOf(t, f)
		n := e.value(f.Str(t, "id"), ids["ask-email"], "alice@example.com").Expect(t, 240, "")
		offered(t, n, "ask-email-code")
		if m := e.Mail.Next(t, "alice@example.com"); m.Template != notify.TemplateRegistrationCode {
			t.Fatalf("code message %+v", m)
		}
	})
}
