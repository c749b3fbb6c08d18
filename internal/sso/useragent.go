package sso

import (
	"strings"
	"unicode"
)

// maxUserAgent bounds what a session keeps of a User-Agent header.
const maxUserAgent = 400

// UserAgent is what a session keeps of a User-Agent header: printable
// characters only, at most maxUserAgent bytes.
func UserAgent(header string) string {
	clean := strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, header)
	if len(clean) > maxUserAgent {
		clean = strings.ToValidUTF8(clean[:maxUserAgent], "")
	}
	return clean
}

// uaRule names a browser or a system when a User-Agent holds its marker
// (and none of the markers of the ones listed before it, which claim it
// too: Edge says Chrome and Safari, Chrome says Safari).
type uaRule struct{ marker, name string }

var browsers = []uaRule{
	{"Edg/", "Edge"}, {"EdgA/", "Edge"}, {"EdgiOS/", "Edge"},
	{"OPR/", "Opera"}, {"SamsungBrowser/", "Samsung Internet"},
	{"Firefox/", "Firefox"}, {"FxiOS/", "Firefox"},
	{"CriOS/", "Chrome"}, {"Chrome/", "Chrome"}, {"Chromium/", "Chromium"},
	{"Version/", "Safari"},
}

var systems = []uaRule{
	{"iPhone", "iOS"}, {"iPad", "iPadOS"}, {"Android", "Android"}, {"CrOS", "ChromeOS"},
	{"Windows", "Windows"}, {"Mac OS X", "macOS"}, {"Linux", "Linux"},
}

func firstOf(rules []uaRule, ua string) string {
	for _, r := range rules {
		if strings.Contains(ua, r.marker) {
			return r.name
		}
	}
	return ""
}

// Browser is the browser a User-Agent names ("" when none is known): a
// name for people, not a fingerprint.
func Browser(ua string) string {
	if name := firstOf(browsers, ua); name != "Safari" || strings.Contains(ua, "Safari/") {
		return name
	}
	return ""
}

// System is the operating system a User-Agent names ("" when none is known).
func System(ua string) string { return firstOf(systems, ua) }
