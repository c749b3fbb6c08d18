package notify

import (
	"context"
	"errors"
	"testing"

	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

// logoutRecorder is a LogoutSender that keeps what it was given and
// answers with the next of its errors (nil once they run out).
type logoutRecorder struct {
	got    []Logout
	answer []error
}

func (r *logoutRecorder) SendLogout(_ context.Context, l Logout) error {
	r.got = append(r.got, l)
	if len(r.answer) == 0 {
		return nil
	}
	err := r.answer[0]
	r.answer = r.answer[1:]
	return err
}

func logoutMessage(uri string) Message {
	return Message{Brand: "belair", Language: "en", Channel: ChannelLogout, To: uri, Template: TemplateBackchannelLogout,
		Data: map[string]string{DataIssuer: "https://account.belairdirect.com", DataClient: "claims", DataSubject: "sub-1"}}
}

// TestBackchannelLogoutIsDeliveredByTheOutbox: a back-channel logout rides
// the outbox like an email (queued in the transaction that ends the grant,
// retried after a temporary failure), goes to the LogoutSender, and renders
// nothing.
func TestBackchannelLogoutIsDeliveredByTheOutbox(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		clock := testclock.New()
		w := NewWorker(db, testenv.Brands(t), nil, nil, testWorkerOptions(clock, nil))
		rec := &logoutRecorder{answer: []error{errors.New("503 from the client")}}
		w.UseLogout(rec)
		id := enqueue(t, db, logoutMessage("https://claims.example.com/backchannel-logout"))
		if _, err := w.deliverDue(t.Context()); err != nil {
			t.Fatal(err)
		}
		if state, attempts, _ := outboxState(t, db, id); state != stateQueued || attempts != 1 {
			t.Fatalf("after a temporary failure: %s after %d attempts, want queued for a retry", state, attempts)
		}
		clock.Advance(2 * testWorkerOptions(clock, nil).RetryBase)
		if _, err := w.deliverDue(t.Context()); err != nil {
			t.Fatal(err)
		}
		if state, attempts, _ := outboxState(t, db, id); state != stateSent || attempts != 2 {
			t.Fatalf("after the retry: %s after %d attempts, want sent", state, attempts)
		}
		want := Logout{ID: id, Brand: "belair", URI: "https://claims.example.com/backchannel-logout",
			Issuer: "https://account.belairdirect.com", ClientID: "claims", Subject: "sub-1"}
		if len(rec.got) != 2 || rec.got[1] != want {
			t.Fatalf("sender got %+v, want twice %+v", rec.got, want)
		}
	})
}

func TestBackchannelLogoutRefusals(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for _, uri := range []string{"", "/relative", "ftp://claims.example.com/", "https://user@claims.example.com/",
			"https://claims.example.com/#frag"} {
			err := db.InTx(t.Context(), func(tx *store.Tx) error {
				_, err := Enqueue(t.Context(), tx, logoutMessage(uri))
				return err
			})
			if !errors.Is(err, ErrInvalidAddress) {
				t.Errorf("URI %q: %v, want ErrInvalidAddress", uri, err)
			}
		}
		m := logoutMessage("https://claims.example.com/logout")
		delete(m.Data, DataSubject)
		err := db.InTx(t.Context(), func(tx *store.Tx) error { _, err := Enqueue(t.Context(), tx, m); return err })
		if !errors.Is(err, ErrInvalidMessage) {
			t.Errorf("without a subject: %v, want ErrInvalidMessage", err)
		}
		// Without a sender the row waits for one (a temporary failure).
		w := NewWorker(db, testenv.Brands(t), nil, nil, testWorkerOptions(testclock.New(), nil))
		id := enqueue(t, db, logoutMessage("https://claims.example.com/logout"))
		if _, err := w.deliverDue(t.Context()); err != nil {
			t.Fatal(err)
		}
		if state, _, _ := outboxState(t, db, id); state != stateQueued {
			t.Fatalf("without a sender: %s, want queued", state)
		}
	})
}
