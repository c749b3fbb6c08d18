package recovery_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"guichet/internal/account"
	"guichet/internal/api/apitest"
	"guichet/internal/notify"
	"guichet/internal/recovery"
	"guichet/internal/sso"
)

func TestPasswordWithToken(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		cases := []struct {
			name   string
			ubi    bool
			body   map[string]string // token added
			status int
			code   string
			field  string // key of fields, when the answer names one
			key    string // messageKey
		}{
			{"policyholder, right postal code", false, map[string]string{"password": newPassword, "postalCode": "h2x1y4"}, 200, "", "", ""},
			{"policyholder, wrong postal code", false, map[string]string{"password": newPassword, "postalCode": "H3Z 2Y7"}, 400, "1002", "postalCode", "resetPassword.wrongPostalCode"},
			{"policyholder, malformed postal code", false, map[string]string{"password": newPassword, "postalCode": "123"}, 400, "errorPostalCodeFormat", "postalCode", "errorPostalCodeFormat"},
			{"policyholder, phone instead of postal code", false, map[string]string{"password": newPassword, "cellPhone": phone}, 400, "errorPostalCodeRequired", "postalCode", "errorPostalCodeRequired"},
			{"UBI driver, right phone", true, map[string]string{"password": newPassword, "cellPhone": phone}, 200, "", "", ""},
			{"UBI driver, postal code instead of phone", true, map[string]string{"password": newPassword, "postalCode": postalCode}, 400, "errorPhoneRequired", "phone", "errorPhoneRequired"},
			{"password too short", false, map[string]string{"password": "Sh0rt!", "postalCode": postalCode}, 400, "2001", "password", "protectAccount.passwordInfo"},
			{"password without a special character", false, map[string]string{"password": "Abcdefgh123", "postalCode": postalCode}, 400, "2001", "password", "protectAccount.passwordInfo"},
			{"password empty", false, map[string]string{"password": "", "postalCode": postalCode}, 400, "2001", "password", "errorPasswordRequired"},
			{"password holding the email", false, map[string]string{"password": "Xx-Holder-2026!", "postalCode": postalCode}, 400, "2002", "password", "errorPasswordContainsEmail"},
			{"common password", false, map[string]string{"password": "Password123!", "postalCode": postalCode}, 400, "2001", "password", "errorPasswordCommon"},
		}
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				a := e.create("holder."+string(rune('a'+i))+"@example.com", func(a *account.Account) { a.UBIDriver = c.ubi }, "")
				token := e.verified(a)
				body := map[string]string{"token": token}
				for k, v := range c.body {
					body[k] = v
				}
				got := e.post(passwordPath(a.ID), body)
				got.Expect(t, c.status, c.code)
				if c.status == 200 {
					if got.Str(t, "email") != a.Email {
						t.Fatalf("answer %s", got.Body)
					}
					return
				}
				m := got.JSON(t)
				fields, _ := m["fields"].(map[string]any)
				if m["messageKey"] != c.key || fields[c.field] != c.key {
					t.Fatalf("answer %s, want messageKey and fields.%s %s", got.Body, c.field, c.key)
				}
				if !e.passwordWorks(a, oldPassword) {
					t.Fatal("a refused reset changed the password")
				}
			})
		}
	})
}

func TestWrongPostalCodesKillTheToken(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create("alex@example.com", nil, "")
		token := e.verified(a)
		try := func(postal string) answer {
			return e.post(passwordPath(a.ID), map[string]string{"password": newPassword, "token": token, "postalCode": postal})
		}
		for i := 1; i <= 4; i++ {
			try("H3Z 2Y7").Expect(t, 400, "1002")
		}
		try("H3Z 2Y7").Expect(t, 403, "3004")
		try(postalCode).Expect(t, 403, "3004")
		if !e.passwordWorks(a, oldPassword) {
			t.Fatal("the password changed")
		}
		outcomes := e.auditOutcomes(a.ID)
		if !slices.Contains(outcomes, "recovery.password token_killed") || slices.Contains(outcomes, "recovery.password ok") {
			t.Fatalf("audit %v", outcomes)
		}
	})
}

func TestSuccessfulResetWithACode(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		a := e.create("alex@example.com", nil, "")
		other := e.create("other@example.com", nil, "")
		sessions := []string{e.signIn(a, oldPassword), e.signIn(a, oldPassword)}
		otherSession := e.signIn(other, oldPassword)
		token := e.verified(a)
		// A code requested meanwhile (say by someone else) dies with the reset.
		pending := e.request(a.Email)
		pendingCode := e.lastCode(a.Email)

		e.postAs(belair, "fr", passwordPath(a.ID), map[string]string{"password": newPassword, "token": token, "postalCode": postalCode}).
			Expect(t, 200, "")

		for _, s := range sessions {
			if _, err := e.sso.Lookup(ctx, belair.ID, s); !errors.Is(err, sso.ErrNoSession) {
				t.Fatalf("a session survived the reset: %v", err)
			}
		}
		if _, err := e.sso.Lookup(ctx, belair.ID, otherSession); err != nil {
			t.Fatalf("another account's session was revoked: %v", err)
		}
		changed := e.mails(notify.TemplatePasswordChanged, a.Email)
		if len(changed) != 1 || changed[0].Language != "fr" || changed[0].Data[notify.DataFirstName] != "Alex" {
			t.Fatalf("'password changed' emails: %+v", changed)
		}
		if e.passwordWorks(a, oldPassword) {
			t.Fatal("the old password still works")
		}
		if !e.passwordWorks(a, newPassword) {
			t.Fatal("the new password does not work")
		}
		e.post(passwordPath(a.ID), map[string]string{"password": "Another-Pass-8#", "token": token, "postalCode": postalCode}).
			Expect(t, 403, "3004")
		e.post(validatePath(pending.id, pending.validationID), map[string]string{"validationValue": pendingCode}).
			Expect(t, 403, "CODE_EXPIRED")
		outcomes := e.auditOutcomes(a.ID)
		for _, want := range []string{"recovery.request code_sent", "recovery.verify ok", "recovery.password ok"} {
			if !slices.Contains(outcomes, want) {
				t.Fatalf("audit %v lacks %q", outcomes, want)
			}
		}
	})
}

// TestDisabledAccountCannotResetItsWay: staff disabled the account; once the
// holder has proved their identity (code and postal code) they are told so
// (403 3001, the block roadblock) and nothing changes: the password stays,
// and Enable gives the account back as it was.
func TestDisabledAccountCannotResetItsWay(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		a := e.create("disabled.reset@example.com", nil, "")
		if err := e.accounts.Disable(ctx, belair.ID, a.ID, "staff:jdoe", ""); err != nil {
			t.Fatal(err)
		}
		token := e.verified(a)
		e.post(passwordPath(a.ID), map[string]string{"password": newPassword, "token": token, "postalCode": postalCode}).
			Expect(t, 403, "3001")
		if err := e.accounts.Enable(ctx, belair.ID, a.ID, "staff:jdoe", ""); err != nil {
			t.Fatal(err)
		}
		if !e.passwordWorks(a, oldPassword) || e.passwordWorks(a, newPassword) {
			t.Fatal("a disabled account's password was reset")
		}
	})
}

func TestResetWithACodeEndsATemporaryPassword(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		const temp = "Temp-Pass-2026"
		a := e.create("temp@example.com", nil, temp)
		token := e.verified(a)
		e.post(passwordPath(a.ID), map[string]string{"password": newPassword, "token": token, "postalCode": postalCode}).Expect(t, 200, "")
		got, err := e.accounts.Find(t.Context(), belair.ID, a.Email, ip)
		if err != nil || got.Status != "A" {
			t.Fatalf("find after the reset: %+v %v", got, err)
		}
		if err := e.accounts.CheckTemporary(t.Context(), belair.ID, a.ID, temp, ip); !errors.Is(err, account.ErrTemporaryInvalid) {
			t.Fatalf("the temporary password still answers %v", err)
		}
		if !e.passwordWorks(a, newPassword) {
			t.Fatal("the new password does not work")
		}
	})
}

func TestTemporaryVariant(t *testing.T) {
	const temp = "Temp-Pass-2026"
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		cases := []struct {
			name   string
			body   map[string]string
			status int
			code   string
			done   bool
		}{
			{"right temporary password", map[string]string{"password": newPassword, "tempPassword": temp}, 200, "", true},
			{"wrong temporary password", map[string]string{"password": newPassword, "tempPassword": "Wrong-Temp-1"}, 400, "3005", false},
			{"new password breaks a rule", map[string]string{"password": "weak", "tempPassword": temp}, 400, "2001", false},
			{"new password holds the email", map[string]string{"password": "Tmpholder-2026!", "tempPassword": temp}, 400, "2002", false},
			{"token and temporary password", map[string]string{"password": newPassword, "tempPassword": temp, "token": "x"}, 400, "BAD_REQUEST", false},
			{"postal code with the temporary password", map[string]string{"password": newPassword, "tempPassword": temp, "postalCode": postalCode}, 400, "BAD_REQUEST", false},
			{"neither token nor temporary password", map[string]string{"password": newPassword}, 400, "BAD_REQUEST", false},
		}
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				// A browser signed in, then staff issued a temporary password.
				a := e.create("tmpholder."+string(rune('a'+i))+"@example.com", nil, "")
				session := e.signIn(a, oldPassword)
				e.giveTemporary(a, temp)
				// Sign-in found the temporary password (spec §4.3).
				if err := e.accounts.CheckTemporary(ctx, belair.ID, a.ID, temp, ip); err != nil {
					t.Fatal(err)
				}
				e.post(passwordPath(a.ID), c.body).Expect(t, c.status, c.code)
				_, serr := e.sso.Lookup(ctx, belair.ID, session)
				if c.done {
					if !errors.Is(serr, sso.ErrNoSession) {
						t.Fatalf("the session survived: %v", serr)
					}
					if n := len(e.mails(notify.TemplatePasswordChanged, a.Email)); n != 1 {
						t.Fatalf("%d 'password changed' emails", n)
					}
					if !e.passwordWorks(a, newPassword) || e.passwordWorks(a, oldPassword) {
						t.Fatal("the new password is not the only one that works")
					}
					// The temporary password is spent.
					e.post(passwordPath(a.ID), map[string]string{"password": "Another-Pass-8#", "tempPassword": temp}).
						Expect(t, 409, "TEMPORARY_PASSWORD_INVALID")
					return
				}
				if serr != nil {
					t.Fatalf("a refused reset revoked the session: %v", serr)
				}
				if err := e.accounts.CheckTemporary(ctx, belair.ID, a.ID, temp, ip); err != nil {
					t.Fatalf("a refused reset spent the temporary password: %v", err)
				}
			})
		}
		t.Run("three wrong temporary passwords", func(t *testing.T) {
			a := e.create("thrice@example.com", nil, temp)
			for range 2 {
				e.post(passwordPath(a.ID), map[string]string{"password": newPassword, "tempPassword": "Wrong-Temp-1"}).Expect(t, 400, "3005")
			}
			e.post(passwordPath(a.ID), map[string]string{"password": newPassword, "tempPassword": "Wrong-Temp-1"}).Expect(t, 409, "TEMPORARY_PASSWORD_INVALID")
			e.post(passwordPath(a.ID), map[string]string{"password": newPassword, "tempPassword": temp}).Expect(t, 409, "TEMPORARY_PASSWORD_INVALID")
		})
		t.Run("unknown account", func(t *testing.T) {
			e.post(passwordPath("AAAAAAAAAAAAAAAAAAAAAA"), map[string]string{"password": newPassword, "tempPassword": temp}).
				Expect(t, 409, "TEMPORARY_PASSWORD_INVALID")
		})
		t.Run("disabled account", func(t *testing.T) {
			a := e.create("disabled@example.com", nil, temp)
			if err := e.accounts.Disable(ctx, belair.ID, a.ID, "staff:jdoe", ""); err != nil {
				t.Fatal(err)
			}
			e.post(passwordPath(a.ID), map[string]string{"password": newPassword, "tempPassword": temp}).Expect(t, 403, "3001")
			e.post(passwordPath(a.ID), map[string]string{"password": newPassword, "tempPassword": "Wrong-Temp-1"}).Expect(t, 400, "3005")
		})
		t.Run("account without a temporary password", func(t *testing.T) {
			a := e.create("plain@example.com", nil, "")
			e.post(passwordPath(a.ID), map[string]string{"password": newPassword, "tempPassword": oldPassword}).
				Expect(t, 409, "TEMPORARY_PASSWORD_INVALID")
			if !e.passwordWorks(a, oldPassword) {
				t.Fatal("the password changed")
			}
		})
	})
}

// TestWrongCellphoneLocks24Hours: a UBI driver's wrong cell phone on /reset
// answers 403 WRONG_CELLPHONE (the wrong-cellphone roadblock), kills the
// token and locks the account 24 hours (spec §9): sign-in answers as for a
// wrong password, and a new code's token meets the same answer even with the
// right phone until the 24 hours pass.
func TestWrongCellphoneLocks24Hours(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create("ubi@example.com", func(a *account.Account) { a.UBIDriver = true }, "")
		token := e.verified(a)
		wrong := map[string]string{"token": token, "password": newPassword, "cellPhone": "4165550199"}
		got := e.post(passwordPath(a.ID), wrong)
		got.Expect(t, 403, "WRONG_CELLPHONE")
		if status, body := apitest.Answer(t, "wrong-cellphone"); got.Status != status || !reflect.DeepEqual(any(got.JSON(t)), body) {
			t.Fatalf("wrong cell phone: %d %s, want testdata/api/answers.json's %d %v", got.Status, got.Body, status, body)
		}
		right := map[string]string{"token": token, "password": newPassword, "cellPhone": phone}
		e.post(passwordPath(a.ID), right).Expect(t, 403, "3004") // the token died
		if _, err := e.accounts.Authenticate(t.Context(), account.Credentials{Brand: "belair",
			AccountID: a.ID, Password: oldPassword, IP: ip}); !errors.Is(err, account.ErrWrongPassword) {
			t.Fatalf("sign-in while phone-locked: %v", err)
		}
		right["token"] = e.verified(a)
		e.post(passwordPath(a.ID), right).Expect(t, 403, "WRONG_CELLPHONE")
		e.Clock.Advance(account.PhoneLock)
		right["token"] = e.verified(a)
		e.post(passwordPath(a.ID), right).Expect(t, 200, "")
	})
}

// TestNoSecondFactorOnFile: a reset of an account whose proof of identity
// is not on file (a UBI driver registered without a cell phone, an account
// without a postal code) answers 403 3006 (the two-factor roadblock)
// whatever is typed: nothing is counted, the account is not locked and the
// token stays as it was.
func TestNoSecondFactorOnFile(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ubi := e.create("ubi-nophone@example.com", func(a *account.Account) { a.UBIDriver, a.Phone = true, "" }, "")
		token := e.verified(ubi)
		for range recovery.TokenAttempts + 1 {
			got := e.post(passwordPath(ubi.ID), map[string]string{"token": token, "password": newPassword, "cellPhone": "4165550199"})
			got.Expect(t, 403, "3006")
		}
		if locked, err := account.PhoneLocked(t.Context(), e.DB, "belair", ubi.ID, e.Clock.Now()); err != nil || locked {
			t.Fatalf("phone-locked %v %v", locked, err)
		}
		if _, err := e.accounts.Authenticate(t.Context(), account.Credentials{Brand: "belair",
			AccountID: ubi.ID, Password: oldPassword, IP: ip}); err != nil {
			t.Fatalf("sign-in with the old password: %v", err)
		}
		holder := e.create("nopostal@example.com", func(a *account.Account) { a.PostalCode = "" }, "")
		e.post(passwordPath(holder.ID), map[string]string{"token": e.verified(holder), "password": newPassword,
			"postalCode": postalCode}).Expect(t, 403, "3006")
	})
}
