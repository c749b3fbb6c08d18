// Package identity is what the legacy registration (internal/registration)
// and smart registration (internal/smartreg) share about an insured person
// (design.md "identity"): the verification options what is on file allows,
// the code and security-notice messages, and the creation of the person's
// online account. Each flow keeps its own tables, states and answers.
package identity

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"guichet/internal/account"
	"guichet/internal/notify"
	"guichet/internal/policy"
	"guichet/internal/store"
)

// Methods of the options a person's file allows (spec §3 two-factor option).
const (
	MethodEmail = "EMAIL"
	MethodSMS   = "SMS"
	MethodPIN   = "PIN"
)

// Offer is one way to verify a person: its method and what the visitor sees
// of the value (masked; empty for the PIN).
type Offer struct {
	Method, Masked string
}

// Offers are the options what is on file allows at now, in spec §4.2's
// order: EMAIL, SMS, then PIN (a usable mailed PIN).
func Offers(p policy.Person, now time.Time) []Offer {
	var out []Offer
	if p.Email != "" {
		out = append(out, Offer{MethodEmail, MaskEmail(p.Email)})
	}
	if p.CellPhone != "" {
		out = append(out, Offer{MethodSMS, MaskPhone(p.CellPhone)})
	}
	if p.HasPIN(now) {
		out = append(out, Offer{MethodPIN, ""})
	}
	return out
}

// Language is the site's language when it is one of spec §1's, else the
// fallback's (the emails' language).
func Language(site, fallback string) string {
	switch {
	case site == "en" || site == "fr":
		return site
	case fallback == "fr":
		return "fr"
	}
	return "en"
}

// Notice is the security notice to the owner of an account someone passed
// identification for.
func Notice(a account.Account, language, province string) notify.Message {
	data := map[string]string{}
	if a.FirstName != "" {
		data[notify.DataFirstName] = a.FirstName
	}
	if province != "" {
		data[notify.DataProvince] = province
	}
	return notify.Message{Brand: a.Brand, Language: Language(language, a.Language), Channel: notify.ChannelEmail,
		To: a.Email, Template: notify.TemplateRegistrationNotice, Data: data}
}

// Code is a registration code on its way to a person.
type Code struct {
	Brand, Language, Province string
	// SMS sends it to the person's cell phone; else it goes by email to To.
	SMS       bool
	To        string
	FirstName string
	Code      string
	TTL       time.Duration
}

// CodeMessage is the registration-code email or SMS.
func CodeMessage(c Code, now time.Time) notify.Message {
	m := notify.Message{Brand: c.Brand, Language: Language(c.Language, ""), Channel: notify.ChannelEmail, To: c.To,
		Template: notify.TemplateRegistrationCode, Sensitive: true, ExpiresAt: now.Add(c.TTL),
		Data: map[string]string{notify.DataCode: c.Code, notify.DataMinutes: strconv.Itoa(int(c.TTL / time.Minute)),
			notify.DataFirstName: c.FirstName}}
	if c.Province != "" {
		m.Data[notify.DataProvince] = c.Province
	}
	if c.SMS {
		m.Channel = notify.ChannelSMS
	}
	return m
}

// HolderAccount reports whether the person is a UBI driver whose email on
// file is the email of an account holding a policy (spec §4.2 ubiMatchPH).
func HolderAccount(ctx context.Context, q policy.Reader, p policy.Person) (bool, error) {
	if !p.UBI || p.Role != policy.Driver || p.Email == "" {
		return false, nil
	}
	a, err := account.ByEmail(ctx, q, p.Brand, p.Email)
	if errors.Is(err, account.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return Holds(ctx, q, a.ID)
}

// Holds reports whether the account holds a policy (as policyholder).
func Holds(ctx context.Context, q policy.Reader, accountID string) (bool, error) {
	linked, err := policy.ForAccount(ctx, q, accountID)
	if err != nil {
		return false, err
	}
	for _, l := range linked {
		if l.Role == policy.Holder {
			return true, nil
		}
	}
	return false, nil
}

// Creation is the account a verified person gets.
type Creation struct {
	Email, Language, Province string
	PasswordHash              string
	// Wake, when set, is called once tx commits (the notify worker's
	// Poke: the account-created email leaves at once).
	Wake func()
}

// CreateAccount creates the person's account in tx: the account (username
// c.Email), its link to the person's policy in the person's role, the
// person marked registered and the account-created email queued. Errors:
// account.ErrEmailTaken when another account has the email.
func CreateAccount(ctx context.Context, tx *store.Tx, p policy.Person, c Creation, now time.Time) (account.Account, error) {
	a, err := account.Insert(ctx, tx, account.Account{
		Brand: p.Brand, Email: c.Email, UBIDriver: p.UBI, FirstName: p.FirstName, LastName: p.LastName,
		Language: Language(c.Language, ""), PostalCode: p.PostalCode, Phone: p.CellPhone,
		DateOfBirth: p.DateOfBirth,
	}, c.PasswordHash, now)
	if err != nil {
		return account.Account{}, err
	}
	if err := policy.Link(ctx, tx, a.ID, p.PolicyID, p.Role); err != nil {
		return account.Account{}, err
	}
	if err := policy.SetAccount(ctx, tx, p.ID, a.ID, now); err != nil {
		return account.Account{}, err
	}
	data := map[string]string{notify.DataFirstName: a.FirstName}
	if c.Province != "" {
		data[notify.DataProvince] = c.Province
	}
	if err := notify.Queue(ctx, tx, notify.Message{Brand: a.Brand, Language: a.Language,
		Channel: notify.ChannelEmail, To: a.Email, Template: notify.TemplateAccountCreated, Data: data}, c.Wake); err != nil {
		return account.Account{}, err
	}
	return a, nil
}

// WrongCode is a wrong code or PIN typed in either registration, with the
// guesses left (each answers it with its triesLeft).
type WrongCode struct{ TriesLeft int }

func (e *WrongCode) Error() string { return "identity: wrong code" }

// MaskEmail shows enough of an email to recognise it, never all of it: the
// first character of the name and of the domain, and the domain's ending
// ("jf.cote@example.com" -> "j•••@e•••.com").
func MaskEmail(email string) string {
	at := strings.LastIndexByte(email, '@')
	if at <= 0 {
		return ""
	}
	local, domain := email[:at], email[at+1:]
	dot := strings.LastIndexByte(domain, '.')
	if dot <= 0 {
		return ""
	}
	return first(local) + "•••@" + first(domain) + "•••" + domain[dot:]
}

// MaskPhone shows the last four digits of a 10-digit phone.
func MaskPhone(phone string) string {
	if len(phone) < 4 {
		return ""
	}
	return "•••-•••-" + phone[len(phone)-4:]
}

func first(s string) string {
	r, _ := utf8.DecodeRuneInString(s)
	return string(r)
}
