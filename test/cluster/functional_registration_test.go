package cluster

import (
	"context"
	"fmt"
	"testing"
)

// Registration across instances: bna's legacy registration (spec §2.4) by
// emailed code, each step on another instance.
const acrossBrand = "bna"

func acrossEmail(i int) string { return fmt.Sprintf("across-%d@bna.example", i) }

// importAcrossPolicies imports two bna policies (XIN-0001, XIN-0002) whose
// holders have an email on file and nothing else (their only option:
// an emailed code).
func importAcrossPolicies(t *testing.T) {
	t.Helper()
	var rows []string
	for i := 1; i <= 2; i++ {
		rows = append(rows, fmt.Sprintf("%s,XIN-%04d,home,qc,holder,Ines,Travers,1985-03-14,H2X 1Y4,,,%s,,,false,active", acrossBrand, i, acrossEmail(i)))
	}
	importPolicies(t, rows)
}

// TestRegistrationCodeAcrossInstances: a registration started on one
// instance, its code sent via that one, entered via a second, the account
// created via the third; a second person's code takes five wrong guesses
// spread over the three instances in all (the fifth closes it, the right
// code is then refused): the registration session and its guess budget
// live in the database, not in an instance.
func TestRegistrationCodeAcrossInstances(t *testing.T) {
	ctx := context.Background()
	host := acrossBrand + ".localhost"
	loadAPIKey(t, host)
	importAcrossPolicies(t)
	c := newClient("127.0.0.12", host)
	call := func(in *instance, path, body string) answer {
		t.Helper()
		a, err := c.json(ctx, in.addr, "POST", path, body)
		if err != nil {
			t.Fatalf("%s via %s: %v", path, in.name, err)
		}
		return a
	}
	// start finds person i via in, sends the emailed code and reads it from
	// the SMTP sink: the registration id, the option's id and the code.
	start := func(i int, in *instance) (id, optionID, code string) {
		t.Helper()
		a := call(in, "/api/v1/accounts/find", fmt.Sprintf(`{"policyNumber":"XIN%04d","firstName":"Ines","lastName":"Travers","dateOfBirth":"1985-03-14","postalCode":"H2X 1Y4"}`, i))
		if a.status != 240 {
			t.Fatalf("find XIN-%04d via %s: %d %v", i, in.name, a.status, a.body)
		}
		id, _ = a.body["id"].(string)
		opts, _ := a.body["twoFactorValidations"].([]any)
		for _, o := range opts {
			if m, _ := o.(map[string]any); m["method"] == "EMAIL" {
				optionID, _ = m["id"].(string)
			}
		}
		if optionID == "" {
			t.Fatalf("find XIN-%04d: no EMAIL option in %v", i, a.body)
		}
		before := cl.sink.lastTo(acrossEmail(i))
		if a := call(in, "/api/v1/registrations/"+id+"/validations/"+optionID+"/", `{}`); a.status != 200 {
			t.Fatalf("send the code via %s: %d %v", in.name, a.status, a.body)
		}
		return id, optionID, waitCode(t, acrossEmail(i), before)
	}
	validate := func(in *instance, id, optionID, value string) answer {
		return call(in, "/api/v1/registrations/"+id+"/validations/"+optionID+"/", fmt.Sprintf(`{"validationValue":%q}`, value))
	}
	app1, app2, app3 := cl.instances[0], cl.instances[1], cl.instances[2]

	id, opt, code := start(1, app1)
	if a := validate(app2, id, opt, code); a.status != 200 || a.body["email"] != acrossEmail(1) {
		t.Fatalf("the code sent via app1, entered via app2: %d %v", a.status, a.body)
	}
	password := "Passerelle-Verte-2026!"
	if a := call(app3, "/api/v1/accounts/"+id+"/create",
		`{"password":"`+password+`","passwordConfirmation":"`+password+`","termsAccepted":true}`); a.status != 201 {
		t.Fatalf("create via app3: %d %v", a.status, a.body)
	}
	c.mustSignIn(ctx, t, "the new account signs in through the load balancer", setup.lb, acrossEmail(1), password)

	id, opt, code = start(2, app2)
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	for i := range 5 {
		in := cl.instances[i%3]
		a := validate(in, id, opt, wrong)
		want, key := 400, "INVALID_ACTIVATION_CODE"
		if i == 4 {
			want, key = 403, "EXCEEDED_RETRIES_CODE_ACTIVATION"
		}
		if a.status != want || a.body["errorCode"] != key {
			t.Fatalf("wrong code %d via %s: %d %v, want %d %s", i+1, in.name, a.status, a.body, want, key)
		}
		if i < 4 && a.body["triesLeft"] != float64(4-i) {
			t.Fatalf("wrong code %d via %s: triesLeft %v, want %d", i+1, in.name, a.body["triesLeft"], 4-i)
		}
	}
	if a := validate(app3, id, opt, code); a.status != 403 {
		t.Fatalf("the right code after five wrong ones over three instances: %d %v", a.status, a.body)
	}
}
