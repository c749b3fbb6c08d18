package notify

import (
	"fmt"
	"net/mail"
	"net/url"
	"strings"
)

// Address limits (RFC 5321 section 4.5.3.1).
const (
	maxAddressLength = 254
	maxLocalLength   = 64
	maxLabelLength   = 63
	// maxURILength bounds a back-channel logout URI (oidc's registration
	// takes 2,000 characters at most).
	maxURILength = 2000
)

// normaliseRecipient checks a recipient for its channel and returns it in
// the form stored and delivered: an email address as given, a phone number
// in E.164.
func normaliseRecipient(ch Channel, to string) (string, error) {
	switch ch {
	case ChannelEmail:
		if err := checkEmailAddress(to); err != nil {
			return "", err
		}
		return to, nil
	case ChannelSMS:
		return normalisePhone(to)
	case ChannelLogout:
		u, err := url.Parse(to)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.Fragment != "" || len(to) > maxURILength {
			return "", fmt.Errorf("%w: a back-channel logout URI must be an absolute http(s) URL", ErrInvalidAddress)
		}
		return to, nil
	}
	return "", fmt.Errorf("%w: channel %q", ErrInvalidMessage, ch)
}

// checkEmailAddress accepts one bare address, local@domain, in ASCII: a
// dot-atom local part and a host name with at least two labels. Anything
// else (a display name, a list, quotes, comments, spaces, CR or LF, other
// control characters) is refused, so nothing a caller passes can add a
// header or a recipient to an email.
func checkEmailAddress(addr string) error {
	if addr == "" || len(addr) > maxAddressLength {
		return fmt.Errorf("%w: email address is empty or longer than %d", ErrInvalidAddress, maxAddressLength)
	}
	for i := 0; i < len(addr); i++ {
		if c := addr[i]; c <= ' ' || c >= 0x7f {
			return fmt.Errorf("%w: email address holds a space, a control or a non-ASCII character", ErrInvalidAddress)
		}
	}
	at := strings.LastIndexByte(addr, '@')
	if at < 0 || strings.IndexByte(addr, '@') != at {
		return fmt.Errorf("%w: email address must hold exactly one @", ErrInvalidAddress)
	}
	local, domain := addr[:at], addr[at+1:]
	if err := checkLocalPart(local); err != nil {
		return err
	}
	if err := checkDomain(domain); err != nil {
		return err
	}
	// The same reading as the mail libraries downstream: one address, no name.
	parsed, err := mail.ParseAddress(addr)
	if err != nil || parsed.Name != "" || parsed.Address != addr {
		return fmt.Errorf("%w: email address is not a single bare address", ErrInvalidAddress)
	}
	return nil
}

// atextSpecials are the non-alphanumeric characters of RFC 5322 atext.
const atextSpecials = "!#$%&'*+-/=?^_`{|}~"

func checkLocalPart(local string) error {
	if local == "" || len(local) > maxLocalLength {
		return fmt.Errorf("%w: the part before @ is empty or longer than %d", ErrInvalidAddress, maxLocalLength)
	}
	if local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
		return fmt.Errorf("%w: misplaced dot before @", ErrInvalidAddress)
	}
	for i := 0; i < len(local); i++ {
		c := local[i]
		if !isAlnum(c) && c != '.' && strings.IndexByte(atextSpecials, c) < 0 {
			return fmt.Errorf("%w: character %q before @", ErrInvalidAddress, c)
		}
	}
	return nil
}

func checkDomain(domain string) error {
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return fmt.Errorf("%w: domain needs a dot", ErrInvalidAddress)
	}
	for _, l := range labels {
		if l == "" || len(l) > maxLabelLength || l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Errorf("%w: malformed domain", ErrInvalidAddress)
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !isAlnum(c) && c != '-' {
				return fmt.Errorf("%w: character %q in domain", ErrInvalidAddress, c)
			}
		}
	}
	tld := labels[len(labels)-1]
	if len(tld) < 2 || (!strings.HasPrefix(tld, "xn--") && strings.ContainsAny(tld, "0123456789-")) {
		return fmt.Errorf("%w: malformed top-level domain", ErrInvalidAddress)
	}
	return nil
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// normalisePhone accepts E.164 (+ and 8 to 15 digits, no leading 0) or a
// North American number of 10 digits (or 11 starting with 1) and returns it
// in E.164.
func normalisePhone(p string) (string, error) {
	digits, plus := strings.CutPrefix(p, "+")
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return "", fmt.Errorf("%w: phone number must be digits, optionally after +", ErrInvalidAddress)
		}
	}
	switch {
	case plus && len(digits) >= 8 && len(digits) <= 15 && digits[0] != '0':
		return p, nil
	case !plus && len(digits) == 10 && digits[0] >= '2':
		return "+1" + digits, nil
	case !plus && len(digits) == 11 && digits[0] == '1' && digits[1] >= '2':
		return "+" + digits, nil
	}
	return "", fmt.Errorf("%w: phone number must be E.164 (+15145550123) or 10 digits", ErrInvalidAddress)
}
