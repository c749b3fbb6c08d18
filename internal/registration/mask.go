package registration

import (
	"strings"
	"unicode/utf8"
)

// maskEmail shows enough of an email to recognise it, never all of it: the
// first character of the name and of the domain, and the domain's ending
// ("jf.cote@example.com" -> "j•••@e•••.com").
func maskEmail(email string) string {
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

// maskPhone shows the last four digits of a 10-digit phone.
func maskPhone(phone string) string {
	if len(phone) < 4 {
		return ""
	}
	return "•••-•••-" + phone[len(phone)-4:]
}

func first(s string) string {
	r, _ := utf8.DecodeRuneInString(s)
	return string(r)
}
