package registration_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/notify"
	"guichet/internal/testenv"
)

// TestBranches walks every branch of spec §4.2 (find statuses, options,
// code and PIN submission, email submission, password-validation, create)
// on both databases.
func TestBranches(t *testing.T) {
	branches := []testenv.Case[*env]{
		{Name: "email code, then create, then already registered", Run: func(t *testing.T, e *env) {
			f := e.find("reg-0001", "EMMA", "courriel").Expect(t, 240, "")
			methods, ids := optionsOf(t, f)
			if !slices.Equal(methods, []string{"EMAIL", "NONE"}) || f.Str(t, "status") != "REGISTRATION" ||
				f.Str(t, "email") != "e•••@e•••.com" || f.JSON(t)["ubiMatchPH"] != false {
				t.Fatalf("find: %s", f.Body)
			}
			id := f.Str(t, "id")
			s := e.send(id, ids["EMAIL"]).Expect(t, 200, "")
			if s.JSON(t)["resendsLeft"] != 3.0 {
				t.Fatalf("send: %s", s.Body)
			}
			m := e.Mail.Next(t, "emma@example.com")
			if m.Template != notify.TemplateRegistrationCode || m.Channel != "email" || len(m.Data[notify.DataCode]) != 6 {
				t.Fatalf("code message %+v", m)
			}
			wrong := "000000"
			if m.Data[notify.DataCode] == wrong {
				wrong = "111111"
			}
			w := e.value(id, ids["EMAIL"], wrong).Expect(t, 400, "INVALID_ACTIVATION_CODE")
			if w.JSON(t)["triesLeft"] != 4.0 {
				t.Fatalf("wrong code: %s", w.Body)
			}
			v := e.value(id, ids["EMAIL"], m.Data[notify.DataCode]).Expect(t, 200, "")
			if v.Str(t, "email") != "emma@example.com" || v.Str(t, "id") != id {
				t.Fatalf("verified: %s", v.Body)
			}
			e.create(id, newPassword).Expect(t, 201, "")
			accounttest.ExpectLinked(t, e.DB, "belair", "emma@example.com", "REG0001:holder")
			if m := e.Mail.Next(t, "emma@example.com"); m.Template != notify.TemplateAccountCreated {
				t.Fatalf("welcome %+v", m)
			}
			r := e.find("REG0001", "Emma", "Courriel").Expect(t, 200, "")
			if len(r.JSON(t)) != 1 || r.Str(t, "status") != "REGISTERED" {
				t.Fatalf("registered: %s", r.Body)
			}
			if m := e.Mail.Next(t, "emma@example.com"); m.Template != notify.TemplateRegistrationNotice || m.Language != "en" {
				t.Fatalf("notice %+v", m)
			}
		}},
		{Name: "SMS code", Run: func(t *testing.T, e *env) {
			f := e.find("REG0002", "Simon", "Texto").Expect(t, 240, "")
			ids := offered(t, f, "EMAIL", "SMS", "NONE")
			id := f.Str(t, "id")
			e.send(id, ids["SMS"]).Expect(t, 200, "")
			m := e.Mail.Next(t, "+15145550101")
			if m.Channel != "sms" {
				t.Fatalf("sms %+v", m)
			}
			e.value(id, ids["SMS"], m.Data[notify.DataCode]).Expect(t, 200, "")
			e.create(id, newPassword).Expect(t, 201, "")
			e.linked("simon@example.com")
		}},
		{Name: "PIN", Run: func(t *testing.T, e *env) {
			f := e.find("REG0003", "Paula", "Nip").Expect(t, 240, "")
			ids := offered(t, f, "EMAIL", "PIN", "NONE")
			id := f.Str(t, "id")
			e.send(id, ids["PIN"]).Expect(t, 409, "REGISTRATION_STATE")
			e.value(id, ids["PIN"], "ZZ12CD34").Expect(t, 400, "INVALID_ACTIVATION_CODE")
			e.value(id, ids["PIN"], "ab12-cd34").Expect(t, 200, "")
			e.Mail.None(t, "paula@example.com")
		}},
		{Name: "a PIN older than its life is not offered", Run: func(t *testing.T, e *env) {
			e.Clock.Advance(181 * 24 * time.Hour)
			offered(t, e.find("REG0003", "Paula", "Nip").Expect(t, 240, ""), "EMAIL", "NONE")
		}},
		{Name: "ask-email: nothing on file", Run: func(t *testing.T, e *env) {
			f := e.find("REG0004", "Alice", "Sansfil").Expect(t, 240, "")
			methods, ids := optionsOf(t, f)
			if !slices.Equal(methods, []string{"ask-email"}) || f.Str(t, "email") != "" {
				t.Fatalf("find %s", f.Body)
			}
			id := f.Str(t, "id")
			e.value(id, ids["ask-email"], "not an email").Expect(t, 400, "VALIDATION")
			e.value(id, ids["ask-email"], "Owner@Example.com").Expect(t, 404, "EMAIL_ALREADY_EXISTS")
			n := e.value(id, ids["ask-email"], "alice@example.com").Expect(t, 240, "")
			next := offered(t, n, "ask-email-code")
			code := e.Mail.Next(t, "alice@example.com").Data[notify.DataCode]
			e.send(id, next["ask-email-code"]).Expect(t, 200, "")
			e.value(id, next["ask-email-code"], code).Expect(t, 400, "INVALID_ACTIVATION_CODE") // replaced by the resend
			code = e.Mail.Next(t, "alice@example.com").Data[notify.DataCode]
			v := e.value(id, next["ask-email-code"], code).Expect(t, 200, "")
			if v.Str(t, "email") != "alice@example.com" {
				t.Fatalf("verified %s", v.Body)
			}
			e.create(id, newPassword).Expect(t, 201, "")
			e.linked("alice@example.com")
		}},
		{Name: "ask-username: the email on file is another account's", Run: func(t *testing.T, e *env) {
			id, ids := e.start("REG0005", "Ugo", "Pris")
			n := e.proveByCode(id, ids["EMAIL"], "owner@example.com", 240)
			next := offered(t, n, "ask-username")
			e.create(id, newPassword).Expect(t, 409, "REGISTRATION_STATE")
			n = e.value(id, next["ask-username"], "ugo@example.com").Expect(t, 240, "")
			_, next = optionsOf(t, n)
			e.value(id, next["ask-email-code"], e.Mail.Next(t, "ugo@example.com").Data[notify.DataCode]).Expect(t, 200, "")
			e.create(id, newPassword).Expect(t, 201, "")
			e.linked("ugo@example.com")
		}},
		{Name: "no options: a driver with nothing on file", Run: func(t *testing.T, e *env) {
			f := e.find("REG0006", "Nora", "Aucun").Expect(t, 240, "")
			if methods, _ := optionsOf(t, f); len(methods) != 0 {
				t.Fatalf("options %v", methods)
			}
		}},
		{Name: "NONE leads nowhere on the server", Run: func(t *testing.T, e *env) {
			id, ids := e.start("REG0001", "Emma", "Courriel")
			e.send(id, ids["NONE"]).Expect(t, 409, "REGISTRATION_STATE")
		}},
		{Name: "UBI driver of a policyholder account: password-validation", Run: func(t *testing.T, e *env) {
			id, ids := e.startUBI(true, "REG0007", "Ubald", "Conduit")
			n := e.proveByCode(id, ids["SMS"], "+15145550107", 240)
			offered(t, n, "ask-password")
			e.create(id, newPassword).Expect(t, 409, "REGISTRATION_STATE")
			auth := "/api/v1/registrations/" + id + "/authentication"
			e.post(auth, map[string]string{"password": "Wrong-Horse-9!"}).Expect(t, 400, "3005")
			ok := e.post(auth, map[string]string{"password": accounttest.OwnerPassword}).Expect(t, 200, "")
			if ok.Str(t, "email") != "owner@example.com" {
				t.Fatalf("link %s", ok.Body)
			}
			accounttest.ExpectLinked(t, e.DB, "belair", "owner@example.com", "OWN0001:holder", "REG0007:driver")
			e.post(auth, map[string]string{"password": accounttest.OwnerPassword}).Expect(t, 409, "REGISTRATION_STATE")
			e.find("REG0007", "Ubald", "Conduit").Expect(t, 200, "")
		}},
		{Name: "the policy cancelled between verification and create: 400 4001, the registration closed", Run: func(t *testing.T, e *env) {
			id, ids := e.start("REG0001", "Emma", "Courriel")
			e.proveByCode(id, ids["EMAIL"], "emma@example.com", 200)
			if _, err := e.DB.Exec(t.Context(), "UPDATE policies SET status = 'cancelled' WHERE number = 'REG0001'"); err != nil {
				t.Fatal(err)
			}
			e.create(id, newPassword).Expect(t, 400, "4001")
			e.create(id, newPassword).Expect(t, 409, "REGISTRATION_STATE")
			if _, err := account.ByEmail(t.Context(), e.DB, "belair", "emma@example.com"); !errors.Is(err, account.ErrNotFound) {
				t.Fatalf("an account was created: %v", err)
			}
		}},
		{Name: "UBI link with the account's temporary password: 403 3007, nothing linked", Run: func(t *testing.T, e *env) {
			const temporary = "Temp-Pass-2026"
			accounttest.GiveTemporary(t, e.DB, e.Clock.Now(), e.owner.ID, temporary)
			id, ids := e.start("REG0007", "Ubald", "Conduit")
			e.proveByCode(id, ids["SMS"], "+15145550107", 240)
			auth := "/api/v1/registrations/" + id + "/authentication"
			e.post(auth, map[string]string{"password": "Wrong-Horse-9!"}).Expect(t, 400, "3005")
			e.post(auth, map[string]string{"password": temporary}).Expect(t, 403, "3007")
			accounttest.ExpectLinked(t, e.DB, "belair", "owner@example.com", "OWN0001:holder")
			// The registration waits: the link goes on once the password is new.
			e.post(auth, map[string]string{"password": temporary}).Expect(t, 403, "3007")
		}},
		{Name: "UBI driver without an email: the policyholder's email submitted leads to password-validation", Run: func(t *testing.T, e *env) {
			id, ids := e.startUBI(false, "REG0010", "Victor", "Volant")
			n := e.proveByCode(id, ids["SMS"], "+15145550110", 240)
			next := offered(t, n, "ask-email")
			n = e.value(id, next["ask-email"], "owner@example.com").Expect(t, 240, "")
			offered(t, n, "ask-password")
			e.post("/api/v1/registrations/"+id+"/authentication", map[string]string{"password": accounttest.OwnerPassword}).Expect(t, 200, "")
			accounttest.ExpectLinked(t, e.DB, "belair", "owner@example.com", "OWN0001:holder", "REG0010:driver")
		}},
		{Name: "already registered", Run: func(t *testing.T, e *env) {
			r := e.post("/api/v1/accounts/find", map[string]string{"policyNumber": "OWN-0001", "firstName": "olivia",
				"lastName": "OWNER", "dateOfBirth": "1980-04-12", "postalCode": "m5v2t6"}).Expect(t, 200, "")
			if r.Str(t, "status") != "REGISTERED" {
				t.Fatalf("%s", r.Body)
			}
			if m := e.Mail.Next(t, "owner@example.com"); m.Template != notify.TemplateRegistrationNotice {
				t.Fatalf("notice %+v", m)
			}
		}},
		{Name: "not found: cancelled policy, wrong name, wrong licence", Run: func(t *testing.T, e *env) {
			e.find("REG0008", "Carl", "Annule").Expect(t, 404, "POLICY_NUMBER_NOT_FOUND")
			e.find("REG0001", "Emma", "Courriels").Expect(t, 404, "POLICY_NUMBER_NOT_FOUND")
			lic := func(l string) testenv.Answer {
				return e.post("/api/v1/accounts/find", map[string]string{"policyNumber": "REG0009", "firstName": "lea",
					"lastName": "cote gagnon", "dateOfBirth": dob, "postalCode": postal, "driverLicence": l, "licenceProvince": "on"})
			}
			lic("B12345678901234").Expect(t, 404, "POLICY_NUMBER_NOT_FOUND")
			lic("A1234-56789-01234").Expect(t, 240, "")
			e.Mail.None(t, "carl@example.com")
		}},
		{Name: "malformed fields: 400 VALIDATION with the field", Run: func(t *testing.T, e *env) {
			for field, body := range map[string]map[string]string{
				"policyNumber": {"policyNumber": "REG-01", "firstName": "Emma", "lastName": "Courriel", "dateOfBirth": dob, "postalCode": postal},
				"firstName":    {"policyNumber": "REG0001", "firstName": "E", "lastName": "Courriel", "dateOfBirth": dob, "postalCode": postal},
				"birthDate":    {"policyNumber": "REG0001", "firstName": "Emma", "lastName": "Courriel", "dateOfBirth": "1985-02-30", "postalCode": postal},
				"postalCode":   {"policyNumber": "REG0001", "firstName": "Emma", "lastName": "Courriel", "dateOfBirth": dob, "postalCode": "123"},
			} {
				a := e.post("/api/v1/accounts/find", body).Expect(t, 400, "VALIDATION")
				if a.Str(t, "field") != field || a.Str(t, "messageKey") == "" {
					t.Errorf("%s: %s", field, a.Body)
				}
			}
			e.post("/api/v1/accounts/find", `{"policyNumber":"REG0001","colour":"red"}`).Expect(t, 400, "BAD_REQUEST")
		}},
		{Name: "create: password rules, 1003 after 5 refusals", Run: func(t *testing.T, e *env) {
			id, ids := e.start("REG0003", "Paula", "Nip")
			e.value(id, ids["PIN"], pin).Expect(t, 200, "")
			e.create(id, "Paula-paula@example.com-1").Expect(t, 400, "2002")
			e.create(id, "Brand-New-Pass-7\u0000").Expect(t, 400, "2003")
			e.post("/api/v1/accounts/"+id+"/create", map[string]any{"password": newPassword,
				"passwordConfirmation": "other", "termsAccepted": true}).Expect(t, 400, "2002")
			e.create(id, "short").Expect(t, 400, "2002")
			e.create(id, "short").Expect(t, 400, "1003")
			e.create(id, newPassword).Expect(t, 400, "1003")
		}},
	}
	testenv.RunCases(t, newEnv, branches)
}
