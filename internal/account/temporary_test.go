package account_test

import (
	"errors"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/store"
)

func TestResetWithTemporary(t *testing.T) {
	const temp = "Temp-Pass-1"
	const newPassword = "Brand-New-Pass-7?"
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		cases := []struct {
			name     string
			temp     string
			wantErr  error
			wantNext int // authentication status with the new password
		}{
			{"right temporary password", temp, nil, 200},
			{"wrong temporary password", "nope", account.ErrWrongTemporary, 400},
		}
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				a := e.create(belair, "t"+string(rune('a'+i))+"@example.com", nil, temp)
				alsoRan := false
				err := e.service.ResetWithTemporary(ctx, "belair", a.ID, c.temp, newPassword, ip, func(tx *store.Tx, got account.Account) error {
					alsoRan = got.ID == a.ID && got.Status == account.Active
					return nil
				})
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err %v, want %v", err, c.wantErr)
				}
				if alsoRan != (c.wantErr == nil) {
					t.Fatalf("also ran: %v", alsoRan)
				}
				got := e.post(belair, ip, authPath(a.ID), map[string]string{"password": newPassword})
				if got.Status != c.wantNext {
					t.Fatalf("sign in with the new password: %d %s", got.Status, got.Body)
				}
				if c.wantErr == nil {
					if f := e.post(belair, ip, "/api/v1/accounts/find", map[string]string{"email": a.Email}); f.JSON(t)["status"] != "A" {
						t.Fatalf("after the reset find says %s", f.Body)
					}
					if got := e.post(belair, ip, tempPath(a.ID), map[string]string{"tempPassword": temp}); got.Status != 409 {
						t.Fatalf("the temporary password still works: %d", got.Status)
					}
				}
			})
		}
		t.Run("also failing rolls back", func(t *testing.T) {
			a := e.create(belair, "rollback@example.com", nil, temp)
			boom := errors.New("boom")
			err := e.service.ResetWithTemporary(ctx, "belair", a.ID, temp, newPassword, ip, func(*store.Tx, account.Account) error { return boom })
			if !errors.Is(err, boom) {
				t.Fatalf("err %v", err)
			}
			if got := e.post(belair, ip, tempPath(a.ID), map[string]string{"tempPassword": temp}); got.Status != 200 {
				t.Fatalf("the temporary password was consumed by a rolled back reset: %d", got.Status)
			}
		})
	})
}

func TestSetPassword(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		locked := e.create(belair, "locked@example.com", func(a *account.Account) { a.Status = account.Locked }, "")
		timed := e.create(belair, "timed@example.com", nil, "")
		temp := e.create(belair, "temp@example.com", nil, "Temp-Pass-1")
		if err := e.DB.InTx(ctx, func(tx *store.Tx) error {
			return account.Lock(ctx, tx, timed.ID, e.Clock.Now().Add(24*time.Hour), e.Clock.Now())
		}); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name       string
			id         string
			wantStatus int
		}{
			{"a staff lock stays", locked.ID, 400},
			{"a timed lock is lifted", timed.ID, 200},
			{"a temporary account becomes active", temp.ID, 200},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if err := e.service.SetPassword(ctx, "belair", c.id, "Brand-New-Pass-7?", ip, nil); err != nil {
					t.Fatal(err)
				}
				if got := e.post(belair, ip, authPath(c.id), map[string]string{"password": "Brand-New-Pass-7?"}); got.Status != c.wantStatus {
					t.Fatalf("sign in: %d %s", got.Status, got.Body)
				}
			})
		}
		if err := e.service.SetPassword(ctx, "intact", temp.ID, "Brand-New-Pass-7?", ip, nil); !errors.Is(err, account.ErrNotFound) {
			t.Fatalf("another brand's account: %v", err)
		}
	})
}
