package notify

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

func get(t testing.TB, h http.Handler, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec
}

func TestMailboxStoresAndServesMessages(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		reg := testenv.Brands(t)
		box := NewMailbox(db, reg)
		w := NewWorker(db, reg, box, box, testWorkerOptions(testclock.New(), nil))
		emailID := enqueue(t, db, Message{Brand: "belair", Language: "fr", Channel: ChannelEmail, To: "alex@example.com",
			Template: TemplateResetLink, Data: map[string]string{DataLink: testLink}})
		deliverDue(t, w, 1)
		smsID := enqueue(t, db, Message{Brand: "servus", Language: "en", Channel: ChannelSMS, To: "5145550123",
			Template: TemplateRegistrationCode, Data: map[string]string{DataCode: testCode}})
		deliverDue(t, w, 1)
		h := box.Handler()

		rec := get(t, h, http.MethodGet, "/_dev/mail.json")
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			t.Fatalf("mail.json: %d %s", rec.Code, rec.Header().Get("Content-Type"))
		}
		var list []map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0]["id"] != smsID || list[1]["id"] != emailID {
			t.Fatalf("mail.json is not newest first: %v", list)
		}
		for _, key := range []string{"id", "to", "subject", "text", "html", "channel", "brand", "language", "template", "createdAt"} {
			if _, ok := list[1][key]; !ok {
				t.Errorf("mail.json entries lack %q", key)
			}
		}
		sms, email := list[0], list[1]
		if sms["channel"] != "sms" || sms["to"] != "+15145550123" || !strings.Contains(sms["text"].(string), testCode) ||
			sms["brand"] != "servus" || sms["template"] != TemplateRegistrationCode || sms["language"] != "en" {
			t.Errorf("sms entry: %v", sms)
		}
		if email["channel"] != "email" || email["to"] != "alex@example.com" || email["language"] != "fr" ||
			!strings.Contains(email["text"].(string), testLink) || !strings.Contains(email["html"].(string), "<html") ||
			!strings.Contains(email["subject"].(string), "réinitialisez votre mot de passe") {
			t.Errorf("email entry: %v", email)
		}

		rec = get(t, h, http.MethodGet, "/_dev/mail.json?to=alex@example.com")
		if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || len(list) != 1 || list[0]["id"] != emailID {
			t.Errorf("?to= filter: %v %v", list, err)
		}
		rec = get(t, h, http.MethodGet, "/_dev/mail.json?limit=1")
		if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || len(list) != 1 {
			t.Errorf("?limit=1: %v %v", list, err)
		}
		for _, bad := range []string{"0", "-1", "x", "100000"} {
			if rec := get(t, h, http.MethodGet, "/_dev/mail.json?limit="+bad); rec.Code != http.StatusBadRequest {
				t.Errorf("limit=%s: %d", bad, rec.Code)
			}
		}

		rec = get(t, h, http.MethodGet, "/_dev/mail")
		page := rec.Body.String()
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			t.Fatalf("/_dev/mail: %d", rec.Code)
		}
		checkCSPFriendly(t, page)
		srcdoc := regexp.MustCompile(`<iframe class="html-part" sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc="([^"]*)"`).
			FindStringSubmatch(page)
		if srcdoc == nil || html.UnescapeString(srcdoc[1]) != email["html"] {
			t.Fatalf("the page does not carry the email's HTML in a sandboxed srcdoc iframe")
		}
		if miss, ok := containsAll(html.UnescapeString(page), "SMS to +15145550123", email["subject"].(string), testCode,
			"Template previews"); !ok {
			t.Errorf("page lacks %q", miss)
		}
		previews := 0
		for _, name := range Templates() {
			previews += len(catalogue[name].channels)
		}
		if n := strings.Count(page, `href="/_dev/mail/preview?`); n != len(reg.All())*len(languages)*previews {
			t.Errorf("page has %d preview links", n)
		}

		rec = get(t, h, http.MethodGet, "/_dev/mail.css")
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/css") {
			t.Errorf("mail.css: %d %s", rec.Code, rec.Header().Get("Content-Type"))
		}
		if rec := get(t, h, http.MethodPost, "/_dev/mail"); rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("POST /_dev/mail: %d", rec.Code)
		}
	})
}

// checkCSPFriendly: no script, no inline style attribute or block in the
// page itself (the emails' own styles are escaped inside srcdoc).
func checkCSPFriendly(t *testing.T, page string) {
	t.Helper()
	for _, bad := range []string{"<script", ` style="`, "<style", "javascript:", " onload=", " onclick="} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q, which the CSP blocks", bad)
		}
	}
}

func TestMailboxPreviews(t *testing.T) {
	db := storetest.Open(t)
	reg := testenv.Brands(t)
	h := NewMailbox(db, reg).Handler()
	page := get(t, h, http.MethodGet, "/_dev/mail").Body.String()
	links := regexp.MustCompile(`href="(/_dev/mail/preview\?[^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(links) == 0 {
		t.Fatal("no preview links")
	}
	for _, l := range links {
		target := html.UnescapeString(l[1])
		rec := get(t, h, http.MethodGet, target)
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != http.StatusOK {
			t.Errorf("%s: %d", target, rec.Code)
			continue
		}
		checkCSPFriendly(t, string(body))
		if !strings.Contains(string(body), "123456") && (strings.Contains(target, "code")) {
			t.Errorf("%s: the sample code is not shown", target)
		}
		if !strings.Contains(string(body), "Preview with sample data") {
			t.Errorf("%s: not marked as a preview", target)
		}
	}
	for _, bad := range []string{
		"/_dev/mail/preview?brand=nobrand&language=en&template=reset-code&channel=email",
		"/_dev/mail/preview?brand=belair&language=de&template=reset-code&channel=email",
		"/_dev/mail/preview?brand=belair&language=en&template=nope&channel=email",
		"/_dev/mail/preview?brand=belair&language=en&template=password-changed&channel=sms",
		"/_dev/mail/preview",
	} {
		if rec := get(t, h, http.MethodGet, bad); rec.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", bad, rec.Code)
		}
	}
	empty := get(t, h, http.MethodGet, "/_dev/mail").Body.String()
	if !strings.Contains(empty, "No message yet.") {
		t.Errorf("an empty mailbox says nothing")
	}
}

func TestMailboxRefusesBadAddress(t *testing.T) {
	box := NewMailbox(storetest.Open(t), nil)
	if err := box.Send(context.Background(), testEmail("a@b.ca\r\nBcc: c@d.ca")); !IsPermanent(err) {
		t.Fatalf("Send = %v", err)
	}
}
