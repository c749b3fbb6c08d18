package sso

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"guichet/internal/account"
	"guichet/internal/audit"
	"guichet/internal/codes"
	"guichet/internal/notify"
	"guichet/internal/store"
)

// The new-device notice (issue 31): a browser carries a device cookie (a
// random id, DeviceCookie); a sign-in from one the account has not seen in
// DeviceMemory emails the customer, once, with the time, the browser and
// its system, and a link to secure the account. The first browser of an
// account (the one that created it) is recorded silently.

// DeviceMemory is how long a browser stays known to an account without
// signing in to it.
const DeviceMemory = 90 * 24 * time.Hour

// Device cookie names: __Host- and Secure except over plain http in --dev.
const (
	DeviceCookie    = "__Host-guichet_device"
	DevDeviceCookie = "guichet_device"
	// DeviceCookieAge is how long a browser keeps its device id.
	DeviceCookieAge = 400 * 24 * time.Hour
)

// NewDevice is what a sign-in tells of the browser.
type NewDevice struct {
	ID        string // the device cookie's id; "" records nothing
	UserAgent string
	Province  string // the site's, for the notice's time zone
	// Link is the notice's "secure my account" link (the brand's /forgot).
	Link string
}

// noteDevice records in tx that a's account was signed in from d, and
// queues the notice when the browser is new to it (it leaves as soon as
// the sign-in has committed).
func (s *Service) noteDevice(ctx context.Context, tx *store.Tx, a account.Account, d NewDevice, ip string) error {
	if d.ID == "" {
		return nil
	}
	now := s.Now()
	hash := codes.TokenHash(d.ID)
	ua := UserAgent(d.UserAgent)
	// This browser's last visit (NULL: never) and the account's browsers,
	// in one statement (issue 34: one round trip, not two).
	var lastSeen sql.NullInt64
	var others int
	if err := tx.QueryRow(ctx, `SELECT (SELECT last_seen FROM known_devices WHERE account_id = ? AND device_hash = ?),
		(SELECT COUNT(*) FROM known_devices WHERE account_id = ?)`, a.ID, hash, a.ID).Scan(&lastSeen, &others); err != nil {
		return fmt.Errorf("known devices: %w", err)
	}
	if lastSeen.Valid && now.Sub(store.FromMillis(lastSeen.Int64)) < DeviceMemory {
		_, err := tx.Exec(ctx, "UPDATE known_devices SET last_seen = ?, user_agent = ? WHERE account_id = ? AND device_hash = ?",
			now.UnixMilli(), ua, a.ID, hash)
		return err
	}
	// The account's first browser is the one that made it (or, for an
	// account older than this notice, the one it has used since): silent.
	notify := others > 0
	notified := int64(0)
	if notify {
		notified = now.UnixMilli()
	}
	if _, err := tx.Exec(ctx, `INSERT INTO known_devices (account_id, device_hash, brand, user_agent, first_seen, last_seen, notified_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (account_id, device_hash)
		DO UPDATE SET user_agent = excluded.user_agent, first_seen = excluded.first_seen, last_seen = excluded.last_seen, notified_at = excluded.notified_at`,
		a.ID, hash, a.Brand, ua, now.UnixMilli(), now.UnixMilli(), notified); err != nil {
		return fmt.Errorf("known device: %w", err)
	}
	if !notify {
		return nil
	}
	return s.newDeviceNotice(ctx, tx, a, d, ua, now, ip)
}

func (s *Service) newDeviceNotice(ctx context.Context, tx *store.Tx, a account.Account, d NewDevice, ua string, now time.Time, ip string) error {
	data := map[string]string{notify.DataWhen: now.UTC().Format(time.RFC3339), notify.DataLink: d.Link}
	for k, v := range map[string]string{notify.DataBrowser: Browser(ua), notify.DataSystem: System(ua), notify.DataFirstName: a.FirstName,
		notify.DataProvince: d.Province} {
		if v != "" {
			data[k] = v
		}
	}
	var wake func()
	if s.Accounts != nil {
		wake = s.Accounts.Poke
	}
	if err := notify.Queue(ctx, tx, notify.Message{Brand: a.Brand, Language: a.MessageLanguage(""), Channel: notify.ChannelEmail, To: a.Email,
		Template: notify.TemplateNewDevice, Data: data}, wake); err != nil {
		return err
	}
	return audit.Record(ctx, tx, audit.Event{At: now, Brand: a.Brand, AccountID: a.ID, IP: ip, Event: audit.SSONewDevice, Outcome: "notified",
		Detail: Browser(ua) + " " + System(ua)})
}

// pruneDevices forgets the browsers unseen for as long as their cookie
// lives (a browser unseen for DeviceMemory is new again, but its row stays
// until then, so that the account's next sign-in is noticed at all).
func pruneDevices(ctx context.Context, db *store.DB, now time.Time) (int64, error) {
	n, err := db.Affected(ctx, "DELETE FROM known_devices WHERE last_seen <= ?", now.Add(-DeviceCookieAge).UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("prune known devices: %w", err)
	}
	return n, nil
}
