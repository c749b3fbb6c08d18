package app

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"guichet/internal/account"
	"guichet/internal/account/accounttest"
	"guichet/internal/api/apitest"
	"guichet/internal/notify"
	"guichet/internal/oidc"
	"guichet/internal/privacy"
	"guichet/internal/staff"
	"guichet/internal/store/storetest"
	"guichet/internal/testclock"
	"guichet/internal/testenv"
)

// The customer's data rights on My account (issue 31, Law 25 and PIPEDA):
// the export and the account's deletion, against the whole application on
// both databases, its --dev clock moved instead of waiting.

// raw is the browser's call to the API, with the answer's body as it is.
func (w *rpWorld) raw(method, path string) (int, http.Header, string) {
	w.t.Helper()
	b, _ := w.a.Brands.ByID("belair")
	req, _ := http.NewRequest(method, w.issuer("belair")+path, nil)
	req.Header.Set("api-key", b.APIKey)
	res, err := w.browser.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(body)
}

// mailTo waits for the dev mailbox's newest message of a template to an
// address and returns its text.
func (w *rpWorld) mailTo(template, to string) string {
	w.t.Helper()
	for range 1500 { // the outbox delivers at once when poked; this only bounds a failure
		_, _, body := w.raw("GET", "/_dev/mail.json?to="+url.QueryEscape(to)+"&limit=20")
		var mail []map[string]any
		_ = json.Unmarshal([]byte(body), &mail)
		for _, m := range mail {
			if m["template"] == template {
				return m["text"].(string)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.t.Fatalf("no %s message to %s", template, to)
	return ""
}

// exportState waits until the account's export is in state want.
func (w *rpWorld) exportState(want string) map[string]any {
	w.t.Helper()
	for range 1500 { // the worker is poked at the request; this only bounds a failure
		status, out := w.api("belair", "GET", "/api/v1/me/privacy", "")
		if status != http.StatusOK {
			w.t.Fatalf("privacy status: %d %v", status, out)
		}
		if e, _ := out["export"].(map[string]any); e != nil && e["state"] == want {
			return e
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.t.Fatalf("the export never became %s", want)
	return nil
}

// TestDataExport: asked for after a fresh proof, prepared in the
// background, announced by email, downloaded as JSON and as a page by the
// signed-in owner only, for seven days; a stale proof is refused.
func TestDataExport(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		w.signIn("belair", demoEmail, demoPassword)
		if status, out := w.api("belair", "GET", "/api/v1/me/privacy", ""); status != http.StatusOK || out["export"] != nil || out["deletion"] != nil {
			t.Fatalf("before: %d %v", status, out)
		}
		if status, out := w.api("belair", "GET", "/api/v1/me/export.json", ""); status != http.StatusNotFound || out["errorCode"] != "NO_EXPORT" {
			t.Fatalf("a download before any export: %d %v", status, out)
		}
		if status, out := w.api("belair", "POST", "/api/v1/me/export", ""); status != http.StatusAccepted || out["state"] != "requested" {
			t.Fatalf("ask: %d %v", status, out)
		}
		ready := w.exportState("ready")
		if ready["expiresAt"] == nil {
			t.Fatalf("ready without an end: %v", ready)
		}
		if text := w.mailTo(notify.TemplateExportReady, demoEmail); !strings.Contains(text, "/my-account?lang=en") {
			t.Fatalf("the email: %q", text)
		}

		status, h, body := w.raw("GET", "/api/v1/me/export.json")
		if status != http.StatusOK || !strings.Contains(h.Get("Content-Disposition"), "attachment") {
			t.Fatalf("JSON download: %d %v", status, h)
		}
		var doc privacy.Document
		if err := json.Unmarshal([]byte(body), &doc); err != nil || doc.Format != privacy.DocumentFormat {
			t.Fatalf("JSON: %v %.200s", err, body)
		}
		for _, s := range []string{"account", "policies", "sessions", "knownDevices", "consents", "grants", "contactChanges", "emailUndos", "auditEvents", "chats"} {
			if _, ok := doc.Sections[s]; !ok {
				t.Errorf("section %s missing: %v", s, doc.Sections)
			}
		}
		if acc, _ := doc.Sections["account"].(map[string]any); acc["email"] != demoEmail {
			t.Fatalf("account section: %v", doc.Sections["account"])
		}
		for _, secret := range []string{"argon2", "password_hash", "passwordHash", "token"} {
			if strings.Contains(body, secret) {
				t.Fatalf("the export holds %q", secret)
			}
		}
		if !strings.Contains(body, "export.request") {
			t.Fatalf("the export's audit events lack its request")
		}
		status, h, page := w.raw("GET", "/api/v1/me/export.html")
		if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !strings.Contains(page, demoEmail) ||
			!strings.Contains(page, `lang="en-CA"`) || strings.Contains(page, "<script") {
			t.Fatalf("HTML download: %d %v %.300s", status, h, page)
		}

		// Another customer downloads nothing of it.
		other := w.browserAs("curl/8")
		other.signIn("belair", "francais@belair.example", demoPassword)
		if status, out := other.api("belair", "GET", "/api/v1/me/export.json", ""); status != http.StatusNotFound {
			t.Fatalf("another customer's download: %d %v", status, out)
		}
		// Without a session: 401.
		anon := w.browserAs("curl/8")
		if status, _ := anon.api("belair", "GET", "/api/v1/me/export.html", ""); status != http.StatusUnauthorized {
			t.Fatalf("a download without a session: %d", status)
		}

		// Eleven minutes on, the sign-in is no proof any more.
		w.advance((11 * time.Minute).String())
		for _, c := range []struct{ method, path string }{{"POST", "/api/v1/me/export"}, {"GET", "/api/v1/me/export.json"},
			{"GET", "/api/v1/me/export.html"}, {"POST", "/api/v1/me/deletion"}} {
			if status, out := w.api("belair", c.method, c.path, ""); status != http.StatusForbidden || out["errorCode"] != "REAUTH_REQUIRED" {
				t.Fatalf("%s %s with a stale proof: %d %v", c.method, c.path, status, out)
			}
		}
		if status, out := w.api("belair", "POST", "/api/v1/me/reauth", `{"password":"`+demoPassword+`"}`); status != http.StatusOK {
			t.Fatalf("the proof again: %d %v", status, out)
		}
		if status, _, _ := w.raw("GET", "/api/v1/me/export.json"); status != http.StatusOK {
			t.Fatalf("a download after a new proof: %d", status)
		}

		// Seven days on, it is gone.
		w.advance((privacy.ExportLife).String())
		w.signIn("belair", demoEmail, demoPassword)
		if status, out := w.api("belair", "GET", "/api/v1/me/export.json", ""); status != http.StatusNotFound {
			t.Fatalf("a download after seven days: %d %v", status, out)
		}
		if _, out := w.api("belair", "GET", "/api/v1/me/privacy", ""); out["export"] != nil {
			t.Fatalf("an expired export still shown: %v", out)
		}
		if n, err := w.a.Privacy.PruneExports(t.Context()); err != nil || n != 1 {
			t.Fatalf("prune: %d %v", n, err)
		}
		got := storetest.Strings(t, w.a.DB, "SELECT event || ' ' || detail FROM audit_events WHERE account_id = ? AND event LIKE 'export.%' ORDER BY id", w.account)
		want := []string{"export.request ", "export.ready ", "export.download json", "export.download html", "export.download json"}
		if !slices.Equal(got, want) {
			t.Fatalf("audit %v, want %v", got, want)
		}
		// Five a day, then 429.
		for i := range privacy.ExportsPerDay {
			if status, out := w.api("belair", "POST", "/api/v1/me/export", ""); status != http.StatusAccepted {
				t.Fatalf("export %d of the day: %d %v", i+1, status, out)
			}
		}
		if status, out := w.api("belair", "POST", "/api/v1/me/export", ""); status != http.StatusTooManyRequests || out["errorCode"] != "RATE_LIMITED" {
			t.Fatalf("one more: %d %v", status, out)
		}
	})
}

// TestExportPreparedOnce: workers of several instances sharing the
// database race for one export; one prepares it, one email goes out.
func TestExportPreparedOnce(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		w.signIn("belair", demoEmail, demoPassword)
		// The instances: services like the app's, without its worker.
		racers := make([]*privacy.Service, 4)
		for i := range racers {
			s := *w.a.Privacy
			racers[i] = &s
		}
		if status, _ := w.api("belair", "POST", "/api/v1/me/export", ""); status != http.StatusAccepted {
			t.Fatalf("ask: %d", status)
		}
		var wg sync.WaitGroup
		for _, s := range racers {
			wg.Go(func() {
				if _, err := s.PrepareNext(t.Context()); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		w.exportState("ready")
		if n := storetest.Strings(t, w.a.DB, "SELECT id FROM outbox WHERE template = ?", notify.TemplateExportReady); len(n) != 1 {
			t.Fatalf("%d export emails, want 1", len(n))
		}
		if n := storetest.Strings(t, w.a.DB, "SELECT event FROM audit_events WHERE event = 'export.ready'"); len(n) != 1 {
			t.Fatalf("%d exports prepared, want 1", len(n))
		}
	})
}

// undoToken is the token of the emailed undo link in a message's text.
func undoToken(t *testing.T, text string) string {
	t.Helper()
	i := strings.Index(text, privacy.UndoPath+"?")
	if i < 0 {
		t.Fatalf("no undo link in %q", text)
	}
	link := text[i:]
	if j := strings.IndexAny(link, " \n"); j > 0 {
		link = link[:j]
	}
	u, err := url.Parse(link)
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("undo link %q: %v", link, err)
	}
	return u.Query().Get("token")
}

// TestAccountDeletion: asked for after a fresh proof, pending 30 days (the
// customer still signs in and may cancel, on My account or once by the
// emailed link, never after the grace), then the account and its personal
// rows are erased, its policies kept and unlinked, its audit rows scrubbed.
func TestAccountDeletion(t *testing.T) {
	testenv.EachURL(t, true, func(t *testing.T, databaseURL string) {
		w := newRPWorld(t, databaseURL, "belair", oidc.Confidential)
		w.signIn("belair", demoEmail, demoPassword)
		accountID := w.account
		policies := storetest.Strings(t, w.a.DB, "SELECT policy_id FROM account_policies WHERE account_id = ?", accountID)
		if len(policies) == 0 {
			t.Fatal("the demo account has no policy to keep")
		}
		status, out := w.api("belair", "POST", "/api/v1/me/deletion", "")
		if status != http.StatusAccepted || out["deleteAt"] == nil {
			t.Fatalf("ask: %d %v", status, out)
		}
		token := undoToken(t, w.mailTo(notify.TemplateAccountDeletion, demoEmail))
		// Pending: shown, and the customer still signs in.
		if _, out := w.api("belair", "GET", "/api/v1/me/privacy", ""); out["deletion"] == nil {
			t.Fatalf("pending deletion not shown: %v", out)
		}
		w.signIn("belair", demoEmail, demoPassword)
		// The link cancels it, once.
		anon := w.browserAs("curl/8")
		if status, out := anon.api("belair", "POST", "/api/v1/deletion/undo", `{"token":"`+token+`"}`); status != http.StatusNoContent {
			t.Fatalf("undo by link: %d %v", status, out)
		}
		if status, out := anon.api("belair", "POST", "/api/v1/deletion/undo", `{"token":"`+token+`"}`); status != http.StatusNotFound || out["errorCode"] != "UNDO_LINK_INVALID" {
			t.Fatalf("the link again: %d %v", status, out)
		}
		if status, _ := w.api("belair", "DELETE", "/api/v1/me/deletion", ""); status != http.StatusNotFound {
			t.Fatalf("cancel with nothing pending: %d", status)
		}
		// Asked again; cancelled on My account; asked again.
		if status, _ := w.api("belair", "POST", "/api/v1/me/deletion", ""); status != http.StatusAccepted {
			t.Fatalf("ask again: %d", status)
		}
		if status, _ := w.api("belair", "DELETE", "/api/v1/me/deletion", ""); status != http.StatusNoContent {
			t.Fatalf("cancel on My account: %d", status)
		}
		if status, _ := w.api("belair", "POST", "/api/v1/me/deletion", ""); status != http.StatusAccepted {
			t.Fatalf("ask a third time: %d", status)
		}
		if status, _ := w.api("belair", "POST", "/api/v1/me/export", ""); status != http.StatusAccepted {
			t.Fatalf("an export while pending: %d", status)
		}
		w.exportState("ready")
		// The three emails' links (the last two may be delivered in
		// either order): one is the pending deletion's.
		var texts []string
		for range 1500 {
			if texts = storetest.Strings(t, w.a.DB, "SELECT text_body FROM dev_mailbox WHERE recipient = ? AND template = ?", demoEmail, notify.TemplateAccountDeletion); len(texts) == 3 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if len(texts) != 3 {
			t.Fatalf("%d deletion emails, want 3", len(texts))
		}

		// A cell phone change waiting for its code: erased with the rest.
		if status, out := w.api("belair", "POST", "/api/v1/me/phone", `{"phone":"5145550199"}`); status != http.StatusNoContent {
			t.Fatalf("a phone change: %d %v", status, out)
		}
		insertPasskeyRow(t, w.a.DB, accountID, "cred-"+accountID, 1)
		// Not yet due: nothing erased.
		w.advance((privacy.DeletionGrace - time.Hour).String())
		if n, err := w.a.Privacy.EraseDue(t.Context()); err != nil || n != 0 {
			t.Fatalf("erase before the grace's end: %d %v", n, err)
		}
		// The grace over: the link is refused, and the account erased.
		w.advance((2 * time.Hour).String())
		answers := map[int]int{}
		for _, text := range texts {
			status, _ := anon.api("belair", "POST", "/api/v1/deletion/undo", `{"token":"`+undoToken(t, text)+`"}`)
			answers[status]++
		}
		if answers[http.StatusGone] != 1 || answers[http.StatusNotFound] != 2 {
			t.Fatalf("the links after the grace: %v, want one 410 UNDO_TOO_LATE and two 404", answers)
		}
		if n, err := w.a.Privacy.EraseDue(t.Context()); err != nil || n != 1 {
			t.Fatalf("erase: %d %v", n, err)
		}
		if n, err := w.a.Privacy.EraseDue(t.Context()); err != nil || n != 0 {
			t.Fatalf("erase again: %d %v", n, err)
		}
		for _, q := range []string{
			"SELECT id FROM accounts WHERE id = ?", "SELECT account_id FROM sessions WHERE account_id = ?",
			"SELECT account_id FROM known_devices WHERE account_id = ?", "SELECT account_id FROM account_policies WHERE account_id = ?",
			"SELECT account_id FROM data_exports WHERE account_id = ?", "SELECT account_id FROM account_deletions WHERE account_id = ?",
			"SELECT account_id FROM oidc_grants WHERE account_id = ?", "SELECT account_id FROM audit_events WHERE account_id = ?",
			"SELECT account_id FROM contact_changes WHERE account_id = ?", "SELECT account_id FROM passkeys WHERE account_id = ?",
		} {
			if rows := storetest.Strings(t, w.a.DB, q, accountID); len(rows) != 0 {
				t.Errorf("%s: %v left", q, rows)
			}
		}
		for _, p := range policies {
			if rows := storetest.Strings(t, w.a.DB, "SELECT id FROM policies WHERE id = ?", p); len(rows) != 1 {
				t.Errorf("policy %s gone", p)
			}
		}
		// The audit trail keeps what happened, without whom.
		if rows := storetest.Strings(t, w.a.DB, "SELECT ip || detail FROM audit_events WHERE event = 'deletion.done' OR event = 'deletion.request'"); len(rows) != 4 ||
			slices.ContainsFunc(rows, func(s string) bool { return s != "" }) {
			t.Fatalf("scrubbed audit rows: %q", rows)
		}
		if status, _ := w.api("belair", "GET", "/api/v1/me", ""); status != http.StatusUnauthorized {
			t.Fatalf("the erased account's browser: %d", status)
		}
		if status, out := anon.api("belair", "POST", "/api/v1/accounts/find", `{"email":"`+demoEmail+`"}`); status == http.StatusOK && out["id"] == accountID {
			t.Fatalf("the erased account is still found: %v", out)
		}
	})
}

// TestConsoleShowsPendingDeletion: staff see a customer's pending deletion
// and its date on the customer view (read-only), and no longer once it is
// cancelled.
func TestConsoleShowsPendingDeletion(t *testing.T) {
	eachConsole(t, func(t *testing.T, a *App, clock *testclock.Clock) {
		ctx := t.Context()
		id := accounttest.Insert(t, a.DB, clock.Now(), account.Account{Brand: "belair", Email: "leaving@example.com", FirstName: "Lee"}).ID
		agent := signedInStaff(t, a, clock, "agent.deletion@example.com", staff.RoleAgent, []string{"belair"})
		if got := agent.want("GET", "/api/console/v1/customers/"+id, "", 200, ""); got["deletionAt"] != nil {
			t.Fatalf("before: %v", got["deletionAt"])
		}
		d, err := a.Privacy.RequestDeletion(ctx, privacy.DeletionAsk{Brand: "belair", AccountID: id, Language: "en", Origin: "https://belair.example"})
		if err != nil {
			t.Fatal(err)
		}
		got := agent.want("GET", "/api/console/v1/customers/"+id, "", 200, "")
		if err := apitest.Conform(apitest.Schemas(t), "ConsoleCustomerDetail", got); err != nil {
			t.Fatal(err)
		}
		if at, _ := time.Parse(time.RFC3339, got["deletionAt"].(string)); !at.Equal(d.DeleteAt) || !at.Equal(clock.Now().Add(privacy.DeletionGrace).Truncate(time.Millisecond)) {
			t.Fatalf("deletionAt %v, want %v", got["deletionAt"], d.DeleteAt)
		}
		if err := a.Privacy.CancelDeletion(ctx, "belair", id, ""); err != nil {
			t.Fatal(err)
		}
		if got := agent.want("GET", "/api/console/v1/customers/"+id, "", 200, ""); got["deletionAt"] != nil {
			t.Fatalf("after the cancel: %v", got["deletionAt"])
		}
	})
}
