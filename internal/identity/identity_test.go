package identity_test

import (
	"slices"
	"testing"
	"time"

	"guichet/internal/identity"
	"guichet/internal/notify"
	"guichet/internal/policy"
)

func TestOffers(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		p    policy.Person
		want []identity.Offer
	}{
		{policy.Person{}, nil},
		{policy.Person{Email: "jf.cote@example.com", CellPhone: "5145550123", PINHash: "h", PINIssuedAt: now.Add(-time.Hour)},
			[]identity.Offer{{"EMAIL", "j•••@e•••.com"}, {"SMS", "•••-•••-0123"}, {"PIN", ""}}},
		{policy.Person{PINHash: "h", PINIssuedAt: now.Add(-policy.PINTTL)}, nil}, // the PIN is too old
	}
	for _, c := range cases {
		if got := identity.Offers(c.p, now); !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.p, got, c.want)
		}
	}
}

func TestCodeMessage(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	m := identity.CodeMessage(identity.Code{Brand: "belair", Language: "de", Province: "qc", SMS: true, To: "5145550123",
		FirstName: "Emma", Code: "123456", TTL: 10 * time.Minute}, now)
	if m.Channel != notify.ChannelSMS || m.Language != "en" || !m.Sensitive || !m.ExpiresAt.Equal(now.Add(10*time.Minute)) ||
		m.Data[notify.DataCode] != "123456" || m.Data[notify.DataMinutes] != "10" || m.Data[notify.DataProvince] != "qc" {
		t.Fatalf("%+v", m)
	}
	if identity.MaskEmail("no-at-sign") != "" || identity.MaskPhone("12") != "" {
		t.Fatal("masks of malformed values")
	}
}
