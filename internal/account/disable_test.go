package account_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"guichet/internal/account"
	"guichet/internal/api/apitest"
	"guichet/internal/store"
)

// TestDisabledAccount: an account staff disabled answers spec §8.1's 403
// 3001 (the block roadblock) to its right password or temporary password,
// and exactly what any account answers to a wrong one; Enable gives it back
// as it was; both changes are audited with their actor.
func TestDisabledAccount(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create(belair, "alex@example.com", nil, "")
		other := e.create(belair, "sam@example.com", nil, "")
		temp := e.create(belair, "temp@example.com", nil, "Temp-Pass-1")
		for _, id := range []string{a.ID, temp.ID} {
			if err := e.service.Disable(t.Context(), belair.ID, id, "staff:jdoe", "10.0.0.5"); err != nil {
				t.Fatal(err)
			}
		}
		wantStatus, wantBody := apitest.Answer(t, "disabled")
		isDisabledAnswer := func(got answer) bool {
			var body any
			return json.Unmarshal(got.Body, &body) == nil && got.Status == wantStatus && reflect.DeepEqual(body, wantBody)
		}

		if got := e.post(belair, ip, authPath(a.ID), map[string]string{"password": password}); !isDisabledAnswer(got) {
			t.Fatalf("right password: %d %s, want %d %v", got.Status, got.Body, wantStatus, wantBody)
		}
		wrong := map[string]string{"password": "Wrong-Horse-9!"}
		got, ref := e.post(belair, ip, authPath(a.ID), wrong), e.post(belair, ip, authPath(other.ID), wrong)
		if got.Status != ref.Status || !bytes.Equal(got.Body, ref.Body) {
			t.Fatalf("wrong password: %d %s; an enabled account's: %d %s", got.Status, got.Body, ref.Status, ref.Body)
		}
		withAnswers := map[string]string{"password": password, "dateOfBirth": "1990-01-01"}
		e.post(belair, ip, authPath(a.ID), withAnswers).Expect(t, 400, "1002")
		if got := e.post(belair, ip, tempPath(temp.ID), map[string]string{"tempPassword": "Temp-Pass-1"}); !isDisabledAnswer(got) {
			t.Fatalf("right temporary password: %d %s", got.Status, got.Body)
		}
		e.post(belair, ip, tempPath(temp.ID), map[string]string{"tempPassword": "Temp-Pass-2"}).Expect(t, 400, "3005")

		// Find tells no more than for any account.
		if got := e.post(belair, ip, "/api/v1/accounts/find", map[string]string{"email": "alex@example.com"}); got.Status != 200 ||
			got.JSON(t)["status"] != "A" {
			t.Fatalf("find: %d %s", got.Status, got.Body)
		}
		// A ticket is never issued, and one issued before does not work.
		if err := e.service.Enable(t.Context(), belair.ID, a.ID, "staff:jdoe", "10.0.0.5"); err != nil {
			t.Fatal(err)
		}
		got = e.post(belair, ip, authPath(a.ID), map[string]string{"password": password})
		if got.Status != 200 {
			t.Fatalf("right password once enabled: %d %s", got.Status, got.Body)
		}
		if err := e.service.Disable(t.Context(), belair.ID, a.ID, "staff:jdoe", "10.0.0.5"); err != nil {
			t.Fatal(err)
		}
		err := e.DB.InTx(t.Context(), func(tx *store.Tx) error {
			_, err := account.ConsumeTicket(t.Context(), tx, belair.ID, a.Email, got.JSON(t)["loginTicket"].(string), e.Clock.Now())
			return err
		})
		if !errors.Is(err, account.ErrTicketInvalid) {
			t.Fatalf("a ticket issued before Disable: %v", err)
		}

		// A locked account hides whether the password was right, disabled or not.
		for range account.DefaultLockout.MaxFailures {
			e.post(belair, ip, authPath(a.ID), wrong)
		}
		e.post(belair, ip, authPath(a.ID), map[string]string{"password": password}).Expect(t, 400, "3005")

		if err := e.service.Disable(t.Context(), belair.ID, "AAAAAAAAAAAAAAAAAAAAAA", "staff:jdoe", ""); !errors.Is(err, account.ErrNotFound) {
			t.Fatalf("Disable of no account: %v", err)
		}
		if err := e.service.Disable(t.Context(), intact.ID, a.ID, "staff:jdoe", ""); !errors.Is(err, account.ErrNotFound) {
			t.Fatalf("Disable through another brand: %v", err)
		}
		if err := e.service.Disable(t.Context(), belair.ID, a.ID, "", ""); !errors.Is(err, account.ErrInvalid) {
			t.Fatalf("Disable without actor: %v", err)
		}
		var actors []string
		rows, err := e.DB.Query(t.Context(), "SELECT event || ' ' || outcome || ' ' || actor FROM audit_events WHERE account_id = ? AND event LIKE 'account.%' ORDER BY id", a.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			actors = append(actors, s)
		}
		want := []string{"account.disable ok staff:jdoe", "account.enable ok staff:jdoe", "account.disable ok staff:jdoe"}
		if !reflect.DeepEqual(actors, want) {
			t.Fatalf("audited %q, want %q", actors, want)
		}
		if !contains(e.auditRows(a.ID), "login.authentication disabled") {
			t.Fatalf("the refused sign-in is not audited: %v", e.auditRows(a.ID))
		}
	})
}
