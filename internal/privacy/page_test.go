package privacy_test

import (
	"strings"
	"testing"

	"guichet/internal/privacy"
)

// TestPage: the export's page is in the customer's language, escapes what
// the customer wrote, names sections and fields for people, and orders the
// sections the same way whatever the JSON's order.
func TestPage(t *testing.T) {
	doc := `{"format":"guichet-export/1","brand":"belair","generatedAt":"2026-11-29T10:00:00Z","sections":{
		"chats":[{"name":"Alex","startedAt":"2026-11-01T12:00:00Z","messages":[{"at":"2026-11-01T12:00:01Z","sender":"visitor","text":"<script>alert(1)</script>"}]}],
		"account":{"email":"alex@example.com","ubiDriver":false},
		"sessions":[],
		"extra":{"note":"kept"}}}`
	page, err := privacy.Page([]byte(doc), "fr", "belairdirect")
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{`<html lang="fr-CA">`, "<title>Vos données chez belairdirect</title>", "<dt>Courriel</dt><dd>alex@example.com</dd>",
		"<dd>Non</dd>", "&lt;script&gt;alert(1)&lt;/script&gt;", "Aucun élément.", "2026-11-01 12\u00a0h\u00a000 UTC", "<h2 id=\"s0\">Compte</h2>"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(html, "<script>") {
		t.Fatal("a customer's text ran as HTML")
	}
	order := []string{">Compte<", ">Sessions<", ">Conversations de clavardage<", ">extra<"}
	last := -1
	for _, h := range order {
		i := strings.Index(html, h)
		if i < last {
			t.Fatalf("section %s out of order", h)
		}
		last = i
	}
	if _, err := privacy.Page([]byte("{"), "en", "x"); err == nil {
		t.Fatal("a broken document made a page")
	}
}
