package testenv

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"guichet/internal/store"
)

// Mail is a message a request queued in the outbox.
type Mail struct {
	ID, Template, Channel, Recipient, Language string
	Data                                       map[string]string
	ExpiresAt                                  int64 // Unix milliseconds
	Sensitive                                  int
}

// Mailbox catches the outbox's messages in the order the requests queued
// them. Rows carry no sequence (their creation times may tie within a
// millisecond), so a test reads the outbox after each request (All, Next)
// and the mailbox appends what is new.
type Mailbox struct {
	DB *store.DB

	mu     sync.Mutex
	seen   map[string]bool
	queued []Mail
	taken  map[string]int // per recipient, how many Next has handed out
}

// All returns every message queued so far, oldest first.
func (m *Mailbox) All(t testing.TB) []Mail {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.scan(t)
	return slices.Clone(m.queued)
}

// To returns the messages of a template ("" for any) queued to a
// recipient, oldest first.
func (m *Mailbox) To(t testing.TB, template, recipient string) []Mail {
	t.Helper()
	var out []Mail
	for _, x := range m.All(t) {
		if x.Recipient == recipient && (template == "" || x.Template == template) {
			out = append(out, x)
		}
	}
	return out
}

// Next returns the one message queued to the recipient since the last Next
// or None for them; the test fails unless there is exactly one.
func (m *Mailbox) Next(t testing.TB, recipient string) Mail {
	t.Helper()
	fresh := m.fresh(t, recipient)
	if len(fresh) != 1 {
		t.Fatalf("%d new messages to %s, want 1", len(fresh), recipient)
	}
	return fresh[0]
}

// None fails the test when a message was queued to the recipient since
// the last Next or None for them.
func (m *Mailbox) None(t testing.TB, recipient string) {
	t.Helper()
	if fresh := m.fresh(t, recipient); len(fresh) != 0 {
		t.Fatalf("%d unexpected messages to %s", len(fresh), recipient)
	}
}

// Skip marks every message queued so far, to anyone, as handed out: Next
// and None look at later ones only.
func (m *Mailbox) Skip(t testing.TB) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.scan(t)
	if m.taken == nil {
		m.taken = map[string]int{}
	}
	clear(m.taken)
	for _, x := range m.queued {
		m.taken[x.Recipient]++
	}
}

func (m *Mailbox) fresh(t testing.TB, recipient string) []Mail {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.scan(t)
	var to []Mail
	for _, x := range m.queued {
		if x.Recipient == recipient {
			to = append(to, x)
		}
	}
	if m.taken == nil {
		m.taken = map[string]int{}
	}
	fresh := to[m.taken[recipient]:]
	m.taken[recipient] = len(to)
	return fresh
}

// scan appends the rows not seen yet; m.mu is held.
func (m *Mailbox) scan(t testing.TB) {
	t.Helper()
	rows, err := m.DB.Query(context.Background(),
		"SELECT id, template, channel, recipient, language, data, expires_at, sensitive FROM outbox ORDER BY created_at, id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if m.seen == nil {
		m.seen = map[string]bool{}
	}
	for rows.Next() {
		var x Mail
		var data string
		if err := rows.Scan(&x.ID, &x.Template, &x.Channel, &x.Recipient, &x.Language, &data, &x.ExpiresAt, &x.Sensitive); err != nil {
			t.Fatal(err)
		}
		if m.seen[x.ID] {
			continue
		}
		if err := json.Unmarshal([]byte(data), &x.Data); err != nil {
			t.Fatalf("outbox row %s: %v", x.ID, err)
		}
		m.seen[x.ID] = true
		m.queued = append(m.queued, x)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}
