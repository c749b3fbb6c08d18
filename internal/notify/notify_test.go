package notify

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	netmail "net/mail"
	"slices"
	"strings"
	"testing"
	"time"

	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

func TestEnqueueValidates(t *testing.T) {
	db := storetest.Open(t)
	good := resetCodeEmail("alex@example.com", "123456")
	cases := []struct {
		name   string
		change func(m *Message)
		want   error
	}{
		{"valid email", func(m *Message) {}, nil},
		{"valid sms 10 digits", func(m *Message) { m.Channel, m.To = ChannelSMS, "5145550123" }, nil},
		{"valid sms e164", func(m *Message) { m.Channel, m.To = ChannelSMS, "+33612345678" }, nil},
		{"unknown brand pattern", func(m *Message) { m.Brand = "Bel Air" }, ErrInvalidMessage},
		{"language", func(m *Message) { m.Language = "de" }, ErrInvalidMessage},
		{"unknown template", func(m *Message) { m.Template = "welcome" }, ErrInvalidMessage},
		{"template not sent by sms", func(m *Message) {
			m.Channel, m.To, m.Template = ChannelSMS, "5145550123", TemplatePasswordChanged
			m.Data = nil
		}, ErrInvalidMessage},
		{"unknown channel", func(m *Message) { m.Channel = "pigeon" }, ErrInvalidMessage},
		{"missing code", func(m *Message) { m.Data = nil }, ErrInvalidMessage},
		{"blank code", func(m *Message) { m.Data = map[string]string{DataCode: "  "} }, ErrInvalidMessage},
		{"unknown data key", func(m *Message) { m.Data["password"] = "x" }, ErrInvalidMessage},
		{"control char in data", func(m *Message) { m.Data[DataFirstName] = "Al\nex" }, ErrInvalidMessage},
		{"data too long", func(m *Message) { m.Data[DataFirstName] = strings.Repeat("a", maxDataValue+1) }, ErrInvalidMessage},
		{"link not http", func(m *Message) {
			m.Template, m.Data = TemplateResetLink, map[string]string{DataLink: "javascript:alert(1)"}
		}, ErrInvalidMessage},
		{"link with credentials", func(m *Message) {
			m.Template, m.Data = TemplateResetLink, map[string]string{DataLink: "https://u:p@x.example/"}
		}, ErrInvalidMessage},
		{"minutes not a number", func(m *Message) { m.Data[DataMinutes] = "ten" }, ErrInvalidMessage},
		{"already expired", func(m *Message) { m.ExpiresAt = time.Now().Add(-time.Second) }, ErrInvalidMessage},
		{"address with CRLF", func(m *Message) { m.To = "alex@example.com\r\nBcc: eve@example.com" }, ErrInvalidAddress},
		{"address list", func(m *Message) { m.To = "alex@example.com, eve@example.com" }, ErrInvalidAddress},
		{"display name", func(m *Message) { m.To = "Alex <alex@example.com>" }, ErrInvalidAddress},
		{"phone letters", func(m *Message) { m.Channel, m.To = ChannelSMS, "514555CALL" }, ErrInvalidAddress},
		{"phone too short", func(m *Message) { m.Channel, m.To = ChannelSMS, "5550123" }, ErrInvalidAddress},
		{"phone with newline", func(m *Message) { m.Channel, m.To = ChannelSMS, "5145550123\n" }, ErrInvalidAddress},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := good
			m.Data = map[string]string{DataCode: "123456"}
			c.change(&m)
			err := db.InTx(context.Background(), func(tx *store.Tx) error {
				_, err := Enqueue(context.Background(), tx, m)
				return err
			})
			if c.want == nil && err != nil {
				t.Fatalf("Enqueue: %v", err)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("Enqueue error = %v, want %v", err, c.want)
			}
		})
	}
}

func TestEnqueueStoresNormalisedRowDueNow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		expires := time.Now().Add(10 * time.Minute).Truncate(time.Millisecond)
		id := enqueue(t, db, Message{Brand: "belair", Language: "fr", Channel: ChannelSMS, To: "5145550123",
			Template: TemplateRegistrationCode, Data: map[string]string{DataCode: "123456"}, ExpiresAt: expires})
		if len(id) != 32 {
			t.Fatalf("id %q is not 128 bits of hex", id)
		}
		var to, state string
		var sensitive, next, expiresAt int64
		err := db.QueryRow(context.Background(), `SELECT recipient, state, sensitive, next_attempt_at, expires_at
			FROM outbox WHERE id = ?`, id).Scan(&to, &state, &sensitive, &next, &expiresAt)
		if err != nil {
			t.Fatal(err)
		}
		if to != "+15145550123" || state != stateQueued || sensitive != 1 || next != 0 || expiresAt != expires.UnixMilli() {
			t.Fatalf("row: to %s state %s sensitive %d next %d expires %d", to, state, sensitive, next, expiresAt)
		}
	})
}

func TestEnqueueRolledBackLeavesNoMessage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		boom := errors.New("the change failed")
		err := db.InTx(ctx, func(tx *store.Tx) error {
			if _, err := Enqueue(ctx, tx, resetCodeEmail("alex@example.com", "123456")); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx = %v", err)
		}
		var n int
		if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM outbox`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("a rolled-back transaction left %d outbox rows", n)
		}
		id := enqueue(t, db, resetCodeEmail("alex@example.com", "123456"))
		state, attempts, data := outboxState(t, db, id)
		if state != stateQueued || attempts != 0 || !strings.Contains(data, "123456") {
			t.Fatalf("committed row: state %s attempts %d data %q", state, attempts, data)
		}
	})
}

func TestNormalisePhone(t *testing.T) {
	cases := []struct{ in, want string }{
		{"5145550123", "+15145550123"},
		{"15145550123", "+15145550123"},
		{"+15145550123", "+15145550123"},
		{"+33612345678", "+33612345678"},
		{"0145550123", ""},
		{"+0145550123", ""},
		{"+1234567", ""},
		{"+1234567890123456", ""},
		{"514-555-0123", ""},
		{"", ""},
		{"+", ""},
	}
	for _, c := range cases {
		got, err := normalisePhone(c.in)
		if c.want == "" {
			if err == nil {
				t.Errorf("normalisePhone(%q) = %q, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("normalisePhone(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestCheckEmailAddress(t *testing.T) {
	cases := []struct {
		in string
		ok bool
	}{
		{"alex@example.com", true},
		{"o'brien+policy@sub.example.ca", true},
		{"a.b-c_d@xn--caf-dma.ca", true},
		{"alex@example", false},
		{"alex@@example.com", false},
		{"al@ex@example.com", false},
		{".alex@example.com", false},
		{"al..ex@example.com", false},
		{"alex.@example.com", false},
		{"alex@-example.com", false},
		{"alex@example.c", false},
		{"alex@example.123", false},
		{"alex@exa_mple.com", false},
		{"\"alex\"@example.com", false},
		{"alex(comment)@example.com", false},
		{"alex@example.com\r\n", false},
		{"alex@example.com\nBcc: eve@example.com", false},
		{"alex@example.com\x00", false},
		{"alex@example.com,eve@example.com", false},
		{"alex@example.com;eve@example.com", false},
		{"<alex@example.com>", false},
		{"alex @example.com", false},
		{"aléx@example.com", false},
		{strings.Repeat("a", 65) + "@example.com", false},
		{"a@" + strings.Repeat("b", 64) + ".com", false},
		{"", false},
	}
	for _, c := range cases {
		err := checkEmailAddress(c.in)
		if (err == nil) != c.ok {
			t.Errorf("checkEmailAddress(%q) = %v, want ok=%v", c.in, err, c.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidAddress) {
			t.Errorf("checkEmailAddress(%q) error %v does not wrap ErrInvalidAddress", c.in, err)
		}
	}
}

// FuzzEmailRecipient: whatever the address, either it is refused before
// anything reaches SMTP, or the message built for it has exactly that one
// recipient and no header the address could have smuggled in.
func FuzzEmailRecipient(f *testing.F) {
	for _, s := range []string{
		"alex@example.com", "alex@example.com\r\nBcc: eve@example.com", "alex@example.com\nSubject: hi",
		"alex@example.com\rX: y", "a@b.ca,c@d.ca", "\"a\r\n\"@b.ca", "Alex <alex@example.com>",
		"alex@example.com%0d%0aBcc:eve@example.com", "=?utf-8?q?a=0D=0A?=@b.ca", "a@b.ca\x00", "a@b.ca\u2028x",
		"o'brien@example.ca", "a+b@sub.example.ca",
	} {
		f.Add(s)
	}
	sender := &SMTPSender{from: "no-reply@guichet.test", now: time.Now}
	f.Fuzz(func(t *testing.T, addr string) {
		to, err := normaliseRecipient(ChannelEmail, addr)
		msg, buildErr := sender.message(Email{ID: "0123abcd", To: addr, FromName: "belairdirect", Subject: "s",
			Text: "t", HTML: "<p>h</p>"})
		if err != nil {
			if !errors.Is(err, ErrInvalidAddress) {
				t.Fatalf("refused %q with %v, not ErrInvalidAddress", addr, err)
			}
			if buildErr == nil || !IsPermanent(buildErr) {
				t.Fatalf("Enqueue refuses %q but the SMTP sender would send it (%v)", addr, buildErr)
			}
			return
		}
		if to != addr || strings.ContainsAny(addr, "\r\n\x00,;<>\" ") {
			t.Fatalf("accepted %q as %q", addr, to)
		}
		if buildErr != nil {
			t.Fatalf("accepted %q but the message cannot be built: %v", addr, buildErr)
		}
		var raw bytes.Buffer
		if _, err := msg.WriteTo(&raw); err != nil {
			t.Fatal(err)
		}
		parsed, err := netmail.ReadMessage(&raw)
		if err != nil {
			t.Fatalf("message for %q does not parse: %v", addr, err)
		}
		list, err := parsed.Header.AddressList("To")
		if err != nil || len(list) != 1 || list[0].Address != addr {
			t.Fatalf("To of %q parses as %v, %v", addr, list, err)
		}
		for key := range parsed.Header {
			if !slices.Contains([]string{"To", "From", "Subject", "Message-Id", "Date", "Mime-Version",
				"Content-Type", "Auto-Submitted"}, key) {
				t.Fatalf("address %q produced header %q", addr, key)
			}
		}
	})
}

func TestLogValuesHideData(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	m := resetCodeEmail("alex@example.com", "864209")
	log.Info("x", "message", m,
		"email", Email{ID: "1", To: "alex@example.com", Subject: "s", Text: "code 864209", HTML: "864209"},
		"sms", SMS{ID: "2", To: "+15145550123", Body: "code 864209"})
	if strings.Contains(buf.String(), "864209") {
		t.Fatalf("a log line shows the code: %s", buf.String())
	}
	if !strings.Contains(buf.String(), "reset-code") {
		t.Fatalf("log line lost the template: %s", buf.String())
	}
}
