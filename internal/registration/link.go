package registration

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"guichet/internal/identity"
	"guichet/internal/notify"
	"guichet/internal/policy"
)

// Email proof by link (brand emailProof: link, spec §4.2 "202 goes to
// email-sent"): the email submitted on account-creation/email or new-email
// gets a link instead of a 6-digit code. The link's token is the code of an
// ask-email-link option, kept like one in the registration's row (its HMAC,
// identity.CodeTTL, identity.CodeGuesses wrong tries, spent once by move), so opening the link
// is the validation call with the token as the value: it continues the
// registration where the code would have (verified: the password page;
// taken meanwhile: new-email). The token has the shape of an email token
// (emailtoken.Length characters of base64url, 256 random bits); it never
// reaches a log line, an audit row or a logged path (the SPA posts it in
// the body; the page's query string is not logged).

// LinkPath is the SPA page an email-proof link opens.
const LinkPath = "/registration/confirm-email"

// newLinkToken returns a link's token: 32 random bytes in base64url
// without padding (emailtoken.WellFormed).
func newLinkToken(rnd io.Reader) (string, error) {
	var b [32]byte
	if _, err := io.ReadFull(rnd, b[:]); err != nil {
		return "", fmt.Errorf("registration: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// confirmLink is the address of a link: the site's origin, LinkPath, the
// registration and option ids, the token and the registration's language.
func confirmLink(base string, r registration, o Option, token string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("registration: link base %q is not an http(s) origin", base)
	}
	q := url.Values{"id": {r.id}, "validation": {o.ID}, "token": {token}, "lang": {emailLanguage(r.language, "")}}
	return u.Scheme + "://" + u.Host + LinkPath + "?" + q.Encode(), nil
}

// linkMessage is the email carrying a link to the email submitted, in the
// registration's language (the site's at identification).
func (s *Service) linkMessage(r registration, p policy.Person, o Option, token, base string, now time.Time) (notify.Message, error) {
	link, err := confirmLink(base, r, o, token)
	if err != nil {
		return notify.Message{}, err
	}
	m := notify.Message{Brand: r.brand, Language: emailLanguage(r.language, ""), Channel: notify.ChannelEmail,
		To: r.pendingEmail, Template: notify.TemplateRegistrationInvite, Sensitive: true, ExpiresAt: now.Add(identity.CodeTTL),
		Data: map[string]string{notify.DataLink: link, notify.DataMinutes: strconv.Itoa(int(identity.CodeTTL / time.Minute)),
			notify.DataFirstName: p.FirstName}}
	if r.province != "" {
		m.Data[notify.DataProvince] = r.province
	}
	return m, nil
}
