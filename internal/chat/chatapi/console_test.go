package chatapi

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"guichet/internal/api"
	"guichet/internal/audit"
	"guichet/internal/chat"
	"guichet/internal/staff"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
	"guichet/internal/throttle"
)

// TestSnippetRuneSafe: a message whose lower case is longer in UTF-8
// (U+023A Ⱥ lowers to a 3-byte ⱥ) gives a snippet, not a panic (a visitor
// could plant one and break every supervisor's search).
func TestSnippetRuneSafe(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.svc.Limiter = nil
		ctx := t.Context()
		_, _, id := e.chatting("en")
		body := strings.Repeat("Ⱥ", 50) + " claim"
		if _, err := e.svc.VisitorSend(ctx, id, "c1", body); err != nil {
			t.Fatal(err)
		}
		sup := staff.Principal{ID: "sup", Name: "Sup", Role: staff.RoleSupervisor}
		items, err := e.svc.Search(ctx, sup, "claim", "", e.Clock.Now().Add(-time.Hour), e.Clock.Now().Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != 1 || items[0].Snippet != strings.Repeat("Ⱥ", 39)+" claim" {
			t.Fatalf("items %+v", items)
		}
	})
}

// TestSearchFoldsCaseAndAccents: "émilie" finds ÉMILIE and Emilie on both
// databases (SQLite's LOWER is ASCII only).
func TestSearchFoldsCaseAndAccents(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.svc.Limiter = nil
		ctx := t.Context()
		_, _, id := e.chatting("fr")
		if _, err := e.svc.VisitorSend(ctx, id, "c1", "Écoutez, ÉMILIE ne peut pas se connecter"); err != nil {
			t.Fatal(err)
		}
		sup := staff.Principal{ID: "sup", Name: "Sup", Role: staff.RoleSupervisor}
		for _, q := range []string{"émilie", "EMILIE", "ecoutez"} {
			items, err := e.svc.Search(ctx, sup, q, "", e.Clock.Now().Add(-time.Hour), e.Clock.Now().Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != 1 {
				t.Fatalf("search %q found %d conversations; want 1", q, len(items))
			}
		}
	})
}

// TestBadBytesAre400: a NUL or invalid UTF-8 in a search's q or brand, or
// in a transfer's staffId, is 400 INVALID_FIELD (PostgreSQL refuses NUL
// in text: it was a 500).
func TestBadBytesAre400(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		marie, _, id := e.chatting("en")
		sup := e.AddStaff("sup", "Sup", staff.RoleSupervisor)
		var scenarios []testenv.Scenario
		for _, qs := range []string{"q=%00", "q=%FF", "q=a%00b", "brand=%00", "brand=%FF", "tz=%00", "tz=Nowhere/Land", "tz=../../etc/passwd"} {
			scenarios = append(scenarios, testenv.Scenario{Name: "search " + qs,
				Request: staffRequest(sup, "GET", "/console/transcripts?"+qs, ""), Status: 400, Code: "INVALID_FIELD"})
		}
		testenv.Run(t, e.H, append(scenarios, testenv.Scenario{Name: "transfer to a NUL",
			Request: staffRequest(marie, "POST", "/console/conversations/"+id+"/transfer", `{"staffId":"a\u0000b"}`), Status: 400, Code: "INVALID_FIELD"})...)
	})
}

// TestSearchDatesInTheBrandZone: to=2026-11-24 holds that evening's 7 pm
// chat in Toronto (00:00 UTC the next day), in the brand's default
// province's zone or the tz asked; the search is audited with q.
func TestSearchDatesInTheBrandZone(t *testing.T) {
	db := storetest.Open(t)
	e := newEnv(t, db)
	e.svc.Limiter = nil
	ctx := t.Context()
	sc, _ := e.Brands.ByID("scotia")
	e.Clock.Advance(time.Date(2026, 11, 25, 0, 30, 0, 0, time.UTC).Sub(e.Clock.Now())) // 19:30 in Toronto on the 24th
	if _, err := e.svc.Offline(ctx, chat.OfflineInput{Brand: sc, Province: "on", Language: "en", Name: "Evening", Email: "z@example.com", Question: "late question"}); err != nil {
		t.Fatal(err)
	}
	sup := e.AddStaff("sup", "Sup", staff.RoleSupervisor)
	for _, qs := range []string{"brand=scotia", "tz=America/Toronto", "brand=scotia&tz=America/Toronto"} {
		out := e.staffWant(sup, "GET", "/console/transcripts?q=late&from=2026-11-24&to=2026-11-24&"+qs, "", 200, "")
		if n := len(out["items"].([]any)); n != 1 {
			t.Fatalf("%s: %d items; want the 7:30 pm one", qs, n)
		}
	}
	out := e.staffWant(sup, "GET", "/console/transcripts?q=late&from=2026-11-24&to=2026-11-24&tz=UTC", "", 200, "")
	if n := len(out["items"].([]any)); n != 0 {
		t.Fatalf("tz=UTC: %d items; want none (00:30 on the 25th)", n)
	}
	if n := e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE event = ? AND detail = ?", audit.ChatTranscriptSearch, "brand=scotia q=late"); n != 2 {
		t.Fatalf("%d search audit rows with the brand and q; want 2", n)
	}
}

// TestHolderCheckedInTheTransaction: an agent's end or transfer that read
// the conversation before a supervisor transferred it away is refused
// (NOT_HOLDER), and the conversation stays with the new holder.
func TestHolderCheckedInTheTransaction(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		marie, _, id := e.chatting("en")
		bob := e.availableAgent("bob", "Bob", "en")
		paul := e.availableAgent("paul", "Paul", "en")
		sup := staff.Principal{ID: "sup", Name: "Sup", Role: staff.RoleSupervisor}
		meanwhile := func() {
			e.svc.BeforeTx = nil
			if _, err := e.svc.Transfer(ctx, sup, id, bob.ID); err != nil {
				t.Fatal(err)
			}
		}
		e.svc.BeforeTx = meanwhile
		if _, err := e.svc.EndBy(ctx, marie, id); err != chat.ErrNotHolder {
			t.Fatalf("marie's end after the transfer: %v", err)
		}
		if _, err := e.svc.Transfer(ctx, sup, id, marie.ID); err != nil { // back to marie
			t.Fatal(err)
		}
		e.svc.BeforeTx = meanwhile
		if _, err := e.svc.Transfer(ctx, marie, id, paul.ID); err != chat.ErrNotHolder {
			t.Fatalf("marie's transfer after the supervisor's: %v", err)
		}
		c, err := e.svc.Get(ctx, id)
		if err != nil || c.Status != chat.StatusActive || c.AgentID != bob.ID {
			t.Fatalf("conversation %s held by %s; want active with bob (%v)", c.Status, c.AgentID, err)
		}
	})
}

// TestAbandonedConversationsEnd: a live conversation whose visitor sent no
// heartbeat for chat.AbandonAfter ends (system message "ended"); one whose
// visitor pinged meanwhile does not.
func TestAbandonedConversationsEnd(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.svc.Limiter = nil
		ctx := t.Context()
		m := e.availableAgent("m", "M", "en")
		gone := e.visitor("scotia")
		goneID := gone.start()
		here := e.visitor("scotia")
		here.ip = "198.51.100.8"
		hereID := here.start()
		s := here.socket(0)
		s.Next("state")
		e.Clock.Advance(chat.AbandonAfter / 2)
		s.Send(map[string]any{"type": "ping"})
		s.Next("pong")
		e.Clock.Advance(chat.AbandonAfter/2 + time.Second)
		n, err := e.svc.EndAbandoned(ctx)
		if err != nil || n != 1 {
			t.Fatalf("ended %d (%v); want 1", n, err)
		}
		c, _ := e.svc.Get(ctx, goneID)
		msgs, _ := e.svc.Messages(ctx, goneID, 0, 0)
		if c.Status != chat.StatusEnded || msgs[len(msgs)-1].SystemKey != chat.SystemEnded {
			t.Fatalf("abandoned conversation %s, last message %+v", c.Status, msgs[len(msgs)-1])
		}
		if c, _ := e.svc.Get(ctx, hereID); c.Status != chat.StatusWaiting {
			t.Fatalf("conversation with a heartbeat: %s", c.Status)
		}
		if q, _ := e.svc.Queue(ctx, m); q.WaitingTotal != 1 {
			t.Fatalf("queue holds %d waiting; want 1", q.WaitingTotal)
		}
	})
}

// TestIdempotencyPerSender: an agent's clientId equal to one of the
// visitor's stores the agent's message (not the visitor's back); a
// visitor's resend is its ack and does not count against the rate limit.
func TestIdempotencyPerSender(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		marie, _, id := e.chatting("en")
		if _, err := e.svc.VisitorSend(ctx, id, "same", "visitor's words"); err != nil {
			t.Fatal(err)
		}
		m, err := e.svc.AgentSend(ctx, marie, id, "same", "agent's words")
		if err != nil || m.Body != "agent's words" || m.Sender != chat.SenderAgent {
			t.Fatalf("agent's message with the visitor's clientId: %+v %v", m, err)
		}
		for range chat.VisitorMessageLimit.Limit + 5 {
			if m, err := e.svc.VisitorSend(ctx, id, "same", "visitor's words"); err != nil || m.Body != "visitor's words" {
				t.Fatalf("resend: %+v %v", m, err)
			}
		}
		if _, err := e.svc.VisitorSend(ctx, id, "new", "a new one"); err != nil {
			t.Fatalf("a new message after resends: %v", err)
		}
	})
}

// TestTranscriptEmailsLimitedPerAddress: one client address gets at most
// chat.TranscriptLimit transcript emails an hour.
func TestTranscriptEmailsLimitedPerAddress(t *testing.T) {
	db := storetest.Open(t)
	e := newEnv(t, db)
	ctx := t.Context()
	e.svc.Limiter = throttle.New(db, e.Clock.Now)
	e.availableAgent("m", "M", "en")
	var ids []string
	for i := range chat.TranscriptLimit.Limit + 1 {
		v := e.visitor("scotia")
		v.ip = fmt.Sprintf("192.0.2.%d", i+1)
		id := v.start()
		if _, err := e.svc.End(ctx, id, ""); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for i, id := range ids {
		err := e.svc.SendTranscript(ctx, id, "anyone@example.com", "203.0.113.9")
		if i < chat.TranscriptLimit.Limit && err != nil {
			t.Fatalf("transcript %d: %v", i, err)
		}
		var apiErr *api.Error
		if i == chat.TranscriptLimit.Limit && (!errors.As(Error(err), &apiErr) || apiErr.Code != "RATE_LIMITED") {
			t.Fatalf("transcript past the limit: %v", err)
		}
	}
}
