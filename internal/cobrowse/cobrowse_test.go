package cobrowse

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/audit"
	"guichet/internal/chat"
	"guichet/internal/chat/chatapi"
	"guichet/internal/fanout/fanouttest"
	"guichet/internal/sockets"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// The footer link's whole session: nothing accepted before the agent's
// code, a viewer's join asks for a snapshot, events reach the viewer in
// order, a reconnecting viewer resumes by seq, the pointer reaches the
// visitor, the visitor's end closes both sockets and deletes the events.
func TestCodeSession(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		p := e.addStaff("a1", "belair")
		v, id, code := e.codeSession()
		if !ValidCode(code) || e.Count(t, "SELECT COUNT(*) FROM cobrowse_sessions WHERE code_hmac = ?", code) != 0 {
			t.Fatalf("code %q: six digits, stored only as its HMAC", code)
		}
		vs := v.socket("/api/v1/cobrowse/socket")
		vs.NextState(StatusWaiting)
		vs.Send(map[string]any{"type": "event", "data": map[string]any{"type": 2, "secret": "before"}})
		if f := vs.Next("error"); f["errorCode"] != codeOf(ErrNotActive) {
			t.Fatalf("event before the agent joined: %v", f)
		}
		a := e.agent(p)
		out := a.want("POST", "/console/join", `{"code":"`+code+`"}`, 200, "")
		if out["id"] != id || out["status"] != StatusActive || out["agentName"] != p.Name {
			t.Fatalf("join: %v", out)
		}
		vs.NextState(StatusActive)
		view := a.socket("/console/sessions/" + id + "/socket")
		if f := view.Next("state"); f["status"] != StatusActive {
			t.Fatalf("viewer state: %v", f)
		}
		vs.Next("snapshot")
		for i := range 5 {
			vs.Send(map[string]any{"type": "event", "data": map[string]any{"type": 3, "n": i}})
		}
		var last float64
		for i := range 5 {
			f := view.Next("event")
			if f["data"].(map[string]any)["n"] != float64(i) || f["seq"].(float64) <= last {
				t.Fatalf("event %d: %v (after seq %v)", i, f, last)
			}
			last = f["seq"].(float64)
		}
		view.Conn.Close(websocket.StatusNormalClosure, "")
		vs.Send(map[string]any{"type": "event", "data": map[string]any{"n": 5}})
		vs.Send(map[string]any{"type": "event", "data": map[string]any{"n": 6}})
		fanouttest.Eventually(t, "two more events", func() bool { return e.session(id).LastSeq >= int64(last)+2 })
		view = a.socket(fmt.Sprintf("/console/sessions/%s/socket?after=%d", id, int64(last)))
		for _, n := range []float64{5, 6} {
			if f := view.Next("event"); f["data"].(map[string]any)["n"] != n {
				t.Fatalf("resumed: %v, want n=%v", f, n)
			}
		}
		vs.Next("snapshot") // the second viewer connection asks again
		view.Send(map[string]any{"type": "pointer", "data": map[string]any{"x": 10, "y": 20}})
		if f := vs.Next("pointer"); f["data"].(map[string]any)["x"] != float64(10) {
			t.Fatalf("pointer: %v", f)
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", id); n != 8 {
			t.Fatalf("%d events stored, want 8 (7 visitor's, 1 pointer)", n)
		}
		vs.Send(map[string]any{"type": "end"})
		e.endedFor(ReasonVisitor, vs, view)
		if n := e.Count(t, "SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", id); n != 0 {
			t.Fatalf("%d events kept after the end (belair does not record)", n)
		}
		// A used code is spent.
		a.want("POST", "/console/join", `{"code":"`+code+`"}`, 404, codeOf(ErrInvalidCode))
		for _, ev := range []audit.Name{audit.CobrowseStart, audit.CobrowseJoin, audit.CobrowseEnd} {
			if e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE event = ? AND detail LIKE ?", ev, "%session="+id+"%") == 0 {
				t.Fatalf("no %s audit row", ev)
			}
		}
		if e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE event = ? AND account_id = ? AND actor = ? AND outcome = 'ok'",
			audit.CobrowseJoin, p.ID, p.Actor()) != 1 {
			t.Fatal("join not audited with the staff id")
		}
		// The socket after the end: 4404.
		v.socket("/api/v1/cobrowse/socket").ExpectClose(t, CloseUnknown, "socket after the end")
	})
}

func TestCodeExpiresAndGuesses(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		p := e.addStaff("a1", "belair")
		q := e.addStaff("a2", "belair")
		a := e.agent(p)
		_, id, code := e.codeSession()
		e.Clock.Advance(CodeTTL)
		a.want("POST", "/console/join", `{"code":"`+code+`"}`, 404, codeOf(ErrInvalidCode))
		if n, err := e.svc.Sweep(context.Background()); err != nil || n != 1 || e.session(id).EndReason != ReasonExpired {
			t.Fatalf("sweep: %d %v %+v", n, err, e.session(id))
		}
		_, _, code = e.codeSession()
		wrong := fmt.Sprintf("%06d", (atoi(code)+1)%1_000_000)
		for range MaxCodeGuesses - 1 {
			a.want("POST", "/console/join", `{"code":"`+wrong+`"}`, 404, codeOf(ErrInvalidCode))
		}
		// Guesses past five are refused even with the right code, with
		// the wait until the oldest of the five leaves the window.
		e.Clock.Advance(time.Minute)
		refused := a.do("POST", "/console/join", `{"code":"`+code+`"}`).Expect(t, 429, codeOf(ErrRateLimited))
		if got := refused.Header.Get("Retry-After"); got != "540" {
			t.Fatalf("Retry-After %q, want 540", got)
		}
		// Another agent is not held back by a1's guesses.
		e.agent(q).want("POST", "/console/join", `{"code":"`+code+`"}`, 200, "")
		e.Clock.Advance(GuessWindow)
		_, _, code = e.codeSession()
		if out := a.want("POST", "/console/join", `{"code":"`+code+`"}`, 200, ""); out["language"] != "en" || out["brand"] != "belair" {
			t.Fatalf("join answer: %v", out)
		}
	})
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func TestConcurrentJoinsOneWins(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		var agents []staff.Principal
		for i := range 6 {
			agents = append(agents, e.addStaff(fmt.Sprintf("a%d", i), "belair"))
		}
		_, id, code := e.codeSession()
		var wg sync.WaitGroup
		errs := make([]error, len(agents))
		for i, p := range agents {
			wg.Go(func() { _, errs[i] = e.svc.Join(context.Background(), Actor{Staff: p}, code) })
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch err {
			case nil:
				won++
			case ErrInvalidCode:
			default:
				t.Fatalf("join: %v", err)
			}
		}
		if s := e.session(id); won != 1 || s.Status != StatusActive || s.CodeHMAC != "" {
			t.Fatalf("%d joins won (%+v)", won, s)
		}
	})
}

// The chat's way in: the holder's request is a system message in the
// transcript; nothing is accepted before consent nor after a decline.
func TestChatRequest(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		p := e.addStaff("a1", "scotia")
		other := e.addStaff("a2", "scotia")
		convID, chatSecret := e.conversation("scotia", p)
		e.agent(other).want("POST", "/console/chat/"+convID+"/cobrowse", "", 409, "NOT_HOLDER")
		out := e.agent(p).want("POST", "/console/chat/"+convID+"/cobrowse", "", 201, "")
		id := out["id"].(string)
		if out["status"] != StatusPending || out["conversationId"] != convID {
			t.Fatalf("request: %v", out)
		}
		if got := e.systemKeys(convID); !slices.Contains(got, chat.SystemCobrowseRequest+"="+id) {
			t.Fatalf("transcript: %v", got)
		}
		e.agent(p).want("POST", "/console/chat/"+convID+"/cobrowse", "", 409, codeOf(ErrPending))
		if _, err := e.svc.AppendEvent(ctx, id, SenderVisitor, []byte(`{}`)); err != ErrNotActive {
			t.Fatalf("event before consent: %v", err)
		}
		v := e.visitor("scotia")
		if _, res, err := v.dial("/api/v1/cobrowse/socket"); err == nil || res.StatusCode != 401 {
			t.Fatalf("socket without consent: %v", err)
		}
		// Another visitor's chat cookie does not answer.
		_, otherSecret := e.conversation("scotia", p)
		stranger := e.visitor("scotia")
		stranger.cookies[chatapi.DevCookieName] = otherSecret
		stranger.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{"accept":true}`, 404, codeOf(ErrNotFound))
		v.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{"accept":true}`, 401, "")
		v.cookies[chatapi.DevCookieName] = chatSecret
		v.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{}`, 400, "INVALID_FIELD")
		out = v.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{"accept":false}`, 200, "")
		if out["status"] != StatusDeclined || v.cookies[DevCookieName] != "" {
			t.Fatalf("decline: %v %v", out, v.cookies)
		}
		if _, err := e.svc.AppendEvent(ctx, id, SenderVisitor, []byte(`{}`)); err != ErrNotActive {
			t.Fatalf("event after decline: %v", err)
		}
		v.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{"accept":true}`, 409, codeOf(ErrState))
		// Asked again, accepted.
		id2 := e.agent(p).want("POST", "/console/chat/"+convID+"/cobrowse", "", 201, "")["id"].(string)
		out = v.want("POST", "/api/v1/cobrowse/sessions/"+id2+"/consent", `{"accept":true}`, 200, "")
		if out["status"] != StatusActive || v.cookies[DevCookieName] == "" {
			t.Fatalf("accept: %v", out)
		}
		vs, view := e.watched(v, p, id2)
		// The agent ends it: both sockets close, the chat says so.
		e.agent(p).want("POST", "/console/sessions/"+id2+"/end", "", 200, "")
		e.endedFor(ReasonAgent, vs, view)
		want := []string{chat.SystemCobrowseRequest + "=" + id, chat.SystemCobrowseDeclined + "=" + p.Name,
			chat.SystemCobrowseRequest + "=" + id2, chat.SystemCobrowseAccepted + "=" + p.Name, chat.SystemCobrowseEnded + "=" + p.Name}
		got := e.systemKeys(convID)
		if !slices.Equal(got[len(got)-len(want):], want) {
			t.Fatalf("transcript %v, want it to end with %v", got, want)
		}
		// The emailed transcript says it in the conversation's language.
		msgs, err := e.chat.Messages(ctx, convID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for lang, texts := range map[string][]string{
			"en": {"The agent asked to see your screen", "Screen sharing declined", "Screen sharing accepted", "Screen sharing ended"},
			"fr": {"Votre conseiller ou conseillère a demandé à voir votre écran", "Partage d’écran refusé", "Partage d’écran accepté", "Partage d’écran terminé"},
		} {
			text := chat.Transcript(msgs, lang, "Alex", time.UTC)
			for _, want := range texts {
				if !strings.Contains(text, want) {
					t.Fatalf("%s transcript lacks %q:\n%s", lang, want, text)
				}
			}
			if strings.Contains(text, id) {
				t.Fatalf("%s transcript shows the session id", lang)
			}
		}
		for _, ev := range []audit.Name{audit.CobrowseStart, audit.CobrowseDecline, audit.CobrowseConsent, audit.CobrowseEnd} {
			if e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE event = ? AND detail LIKE ?", ev, "%conversation="+convID+"%") == 0 {
				t.Fatalf("no %s audit row naming the conversation", ev)
			}
		}
	})
}

func TestCapAndVisitorGone(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		p := e.addStaff("a1", "belair")
		_, vs, id := e.activeCode(p)
		view := e.agent(p).socket("/console/sessions/" + id + "/socket")
		vs.Next("snapshot")
		e.Clock.Advance(MaxDuration - time.Millisecond)
		vs.Send(map[string]any{"type": "ping"})
		vs.Next("pong")
		if n, _ := e.svc.Sweep(ctx); n != 0 {
			t.Fatal("ended before 60 minutes")
		}
		e.Clock.Advance(time.Millisecond)
		if n, _ := e.svc.Sweep(ctx); n != 1 {
			t.Fatal("not ended at 60 minutes")
		}
		for _, w := range []*ws{vs, view} {
			if f := w.NextState(StatusEnded); f["reason"] != ReasonCap {
				t.Fatalf("cap: %v", f)
			}
			w.CloseStatus()
		}

		// The visitor's socket closes; back within 30 s it goes on, not
		// back within 30 s it ends.
		v, vs, id := e.activeCode(p)
		vs.Conn.Close(websocket.StatusGoingAway, "")
		fanouttest.Eventually(t, "the close recorded", func() bool { return e.session(id).VisitorLeftAt != 0 })
		e.Clock.Advance(GoneAfter - time.Millisecond)
		if n, _ := e.svc.Sweep(ctx); n != 0 {
			t.Fatal("ended within 30 s")
		}
		vs = v.socket("/api/v1/cobrowse/socket")
		vs.NextState(StatusActive)
		fanouttest.Eventually(t, "the visitor back", func() bool { return e.session(id).VisitorLeftAt == 0 })
		e.Clock.Advance(GoneAfter)
		if n, _ := e.svc.Sweep(ctx); n != 0 {
			t.Fatal("ended with the visitor's socket open")
		}
		vs.Conn.Close(websocket.StatusGoingAway, "")
		fanouttest.Eventually(t, "the close recorded", func() bool { return e.session(id).VisitorLeftAt != 0 })
		e.Clock.Advance(GoneAfter)
		if n, _ := e.svc.Sweep(ctx); n != 1 || e.session(id).EndReason != ReasonVisitorGone {
			t.Fatalf("visitor gone: %+v", e.session(id))
		}
	})
}

func TestOtherBrandAgentRefused(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		intact := e.addStaff("ai", "intact")
		belair := e.addStaff("ab", "belair")
		_, id, code := e.codeSession()
		e.agent(intact).want("POST", "/console/join", `{"code":"`+code+`"}`, 403, "FORBIDDEN_BRAND")
		if e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE event = ? AND account_id = ? AND detail LIKE ?",
			audit.ConsoleForbidden, intact.ID, "%session="+id+"%") != 1 {
			t.Fatal("refusal not audited")
		}
		e.agent(belair).want("POST", "/console/join", `{"code":"`+code+`"}`, 200, "")
		// Refused after the upgrade with a close code the console does not
		// reconnect after (a status before it shows as 1006 in a browser).
		e.agent(intact).socket("/console/sessions/"+id+"/socket").ExpectClose(t, CloseForbidden, "other brand's viewer")
		e.agent(intact).want("POST", "/console/sessions/"+id+"/end", "", 403, "FORBIDDEN_BRAND")
		e.ExpectCount(t, 3, "viewer and end refusals not audited", "SELECT COUNT(*) FROM audit_events WHERE event = ? AND account_id = ?", audit.ConsoleForbidden, intact.ID)
		other := e.addStaff("ab2", "belair")
		e.agent(other).socket("/console/sessions/"+id+"/socket").ExpectClose(t, CloseNotHolder, "not the session's agent")
		// No staff session: 4401; an unknown or malformed id: 4404.
		nobody := &client{e: e, host: "console.test", cookies: map[string]string{}}
		nobody.socket("/console/sessions/"+id+"/socket").ExpectClose(t, CloseSignedOut, "signed out")
		for _, unknown := range []string{"AAAAAAAAAAAAAAAAAAAAAA", "not%20an%20id"} {
			e.agent(belair).socket("/console/sessions/"+unknown+"/socket").ExpectClose(t, CloseUnknown, "unknown "+unknown)
		}
		if e.session(id).Status != StatusActive {
			t.Fatal("session touched by refusals")
		}
	})
}

func TestRecordAndPurge(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		p := e.addStaff("a1", "belair")
		_, _, kept := e.activeCode(p)
		_, _, dropped := e.activeCode(p)
		for _, id := range []string{kept, dropped} {
			if _, err := e.svc.AppendEvent(ctx, id, SenderVisitor, []byte(`{"type":2}`)); err != nil {
				t.Fatal(err)
			}
		}
		e.mu.Lock()
		e.record["belair"] = true
		e.mu.Unlock()
		if _, err := e.svc.End(ctx, Actor{}, kept, ReasonAgent); err != nil {
			t.Fatal(err)
		}
		e.ExpectCount(t, 1, "recording brand: events deleted at the end", "SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", kept)
		all := e.Brands.All()
		if _, err := e.svc.Purge(ctx, all); err != nil {
			t.Fatal(err)
		}
		e.ExpectCount(t, 0, "the janitor kept events of a brand that no longer records", "SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", kept)
		e.mu.Lock()
		e.record["belair"] = false
		e.mu.Unlock()
		if _, err := e.svc.End(ctx, Actor{}, dropped, ReasonAgent); err != nil {
			t.Fatal(err)
		}
		e.ExpectCount(t, 0, "events kept at the end", "SELECT COUNT(*) FROM cobrowse_events")
		if n := e.Count(t, "SELECT COUNT(*) FROM cobrowse_sessions"); n != 2 {
			t.Fatalf("%d sessions", n)
		}
		e.Clock.Advance(25 * 31 * 24 * time.Hour)
		if _, err := e.svc.Purge(ctx, all); err != nil || e.Count(t, "SELECT COUNT(*) FROM cobrowse_sessions") != 0 {
			t.Fatalf("old sessions not purged: %v", err)
		}
	})
}

func TestFrameLimits(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		p := e.addStaff("a1", "belair")
		_, vs, id := e.activeCode(p)
		// The clock stands still: the bucket's burst and nothing more.
		for i := range 2*EventRate + 3 {
			vs.Send(map[string]any{"type": "event", "data": map[string]any{"n": i}})
		}
		for range 3 {
			if f := vs.Next("error"); f["errorCode"] != codeOf(ErrRateLimited) {
				t.Fatalf("over the rate: %v", f)
			}
		}
		vs.Send(map[string]any{"type": "ping"})
		vs.Next("pong")
		if n := e.Count(t, "SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", id); n != 2*EventRate {
			t.Fatalf("%d events stored, want %d", n, 2*EventRate)
		}
		e.Clock.Advance(time.Second)
		big := `{"type":"event","data":"` + strings.Repeat("x", MaxEventBytes) + `"}`
		vs.SendRaw([]byte(big))
		if f := vs.Next("error"); f["errorCode"] != codeOf(ErrTooLarge) {
			t.Fatalf("too large: %v", f)
		}
		vs.Send(map[string]any{"type": "event", "data": map[string]any{"n": "after"}})
		fanouttest.Eventually(t, "one more event", func() bool {
			return e.Count(t, "SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", id) == 2*EventRate+1
		})
		vs.SendRaw([]byte(`{"type":"event","data":"` + strings.Repeat("x", MaxEventBytes+2048) + `"}`))
		vs.ExpectClose(t, websocket.StatusMessageTooBig, "frame over the read limit")
	})
}

// Ending a chat conversation ends its live co-browse session in the same
// transaction (chat's OnEnd hook, wired by internal/app as here): an
// active one closes both sockets with 1000 after an ended state, a
// pending request can no longer be accepted; audited, events deleted.
// The open sockets gauge counts the visitor's and the viewer's under their
// kinds, and counts them out when they close (issue 33).
func TestChatEndEndsCobrowse(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		p := e.addStaff("a1", "scotia", "belair")
		reg := prometheus.NewRegistry()
		e.hub.Registry().Metrics = sockets.NewMetrics(reg)
		open := func(kind string) float64 { return testenv.Metric(t, reg, "guichet_websockets_open", "kind", kind) }

		// Active, the agent ends the chat.
		convID, id, vs, view := e.sharedChat(p)
		if open(sockets.KindCobrowseVisitor) != 1 || open(sockets.KindCobrowseViewer) != 1 || open(sockets.KindChatVisitor) != 0 {
			t.Fatalf("open sockets: visitor %v, viewer %v", open(sockets.KindCobrowseVisitor), open(sockets.KindCobrowseViewer))
		}
		if _, err := e.chat.EndBy(ctx, p, convID); err != nil {
			t.Fatal(err)
		}
		if s := e.session(id); s.Status != StatusEnded || s.EndReason != ReasonAgent {
			t.Fatalf("after the chat's end: %+v", s)
		}
		e.endedFor(ReasonAgent, vs, view)
		fanouttest.Eventually(t, "the closed sockets counted out", func() bool {
			return open(sockets.KindCobrowseVisitor) == 0 && open(sockets.KindCobrowseViewer) == 0
		})
		if n := e.Count(t, "SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", id); n != 0 {
			t.Fatalf("%d events left", n)
		}
		if n := e.Count(t, `SELECT COUNT(*) FROM audit_events WHERE event = ? AND outcome = ? AND account_id = ? AND detail LIKE ?`,
			audit.CobrowseEnd, ReasonAgent, p.ID, "%session="+id+" conversation="+convID+"%"); n != 1 {
			t.Fatalf("%d cobrowse.end audit rows by the agent", n)
		}

		// Pending, the visitor ends the chat: the request is over, audited
		// with the visitor's address.
		convID, chatSecret := e.conversation("scotia", p)
		id = e.agent(p).want("POST", "/console/chat/"+convID+"/cobrowse", "", 201, "")["id"].(string)
		if _, err := e.chat.EndFromVisitor(ctx, convID, "203.0.113.9"); err != nil {
			t.Fatal(err)
		}
		if s := e.session(id); s.Status != StatusEnded || s.EndReason != ReasonVisitor {
			t.Fatalf("pending after the chat's end: %+v", s)
		}
		if n := e.Count(t, `SELECT COUNT(*) FROM audit_events WHERE event = ? AND outcome = ? AND ip = ? AND detail LIKE ?`,
			audit.CobrowseEnd, ReasonVisitor, "203.0.113.9", "%session="+id+"%"); n != 1 {
			t.Fatalf("%d cobrowse.end audit rows with the visitor's address", n)
		}
		v := e.visitor("scotia")
		v.cookies[chatapi.DevCookieName] = chatSecret
		v.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{"accept":true}`, 409, codeOf(ErrState))

		// A conversation already ended ends nothing more; another
		// conversation's session is untouched.
		_, vs2, other := e.activeCode(p)
		if _, err := e.chat.End(ctx, convID, ""); err != nil {
			t.Fatal(err)
		}
		if s := e.session(other); s.Status != StatusActive {
			t.Fatalf("a code session ended with a chat: %+v", s)
		}
		vs2.Conn.Close(websocket.StatusNormalClosure, "")
	})
}

// TestTransferEndsCobrowse (a reviewer's find): a chat's transfer used to
// leave its co-browse session with the former holder, who kept watching
// the visitor's screen of a conversation no longer theirs, while the new
// holder's viewer was refused and a new request was COBROWSE_PENDING. The
// transfer's transaction (chat's OnTransfer hook) now ends it: reason
// agent, cobrowseEnded in the chat, both sockets closed, audited with the
// staff member who transferred; the new holder may ask again.
func TestTransferEndsCobrowse(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		a1 := e.addStaff("a1", "scotia")
		a2 := e.addStaff("a2", "scotia")
		convID, id, vs, view := e.sharedChat(a1)
		if err := e.chat.SetAvailability(ctx, a2.ID, chat.AgentAvailable, []string{"en"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.chat.Transfer(ctx, a1, convID, a2.ID); err != nil {
			t.Fatal(err)
		}
		s := e.session(id)
		if s.Status != StatusEnded || s.EndReason != ReasonAgent {
			t.Fatalf("after the transfer: %s %s, want ended (agent)", s.Status, s.EndReason)
		}
		// Both sockets told and closed: the former holder sees no more.
		for name, w := range map[string]*ws{"visitor": vs, "former holder's viewer": view} {
			if st := w.NextState(StatusEnded); st["reason"] != ReasonAgent {
				t.Errorf("%s: %v", name, st)
			}
			if got := w.CloseStatus(); got != 1000 {
				t.Errorf("%s: close %d, want 1000", name, got)
			}
		}
		if e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE event = ? AND outcome = ? AND account_id = ? AND detail LIKE ?",
			audit.CobrowseEnd, ReasonAgent, a1.ID, "%session="+id+"%") != 1 {
			t.Error("the end is not audited with the staff member who transferred")
		}
		if e.Count(t, "SELECT COUNT(*) FROM chat_messages WHERE conversation_id = ? AND system_key = ?", convID,
			chat.SystemCobrowseEnded) != 1 {
			t.Error("no cobrowseEnded in the chat")
		}
		// The new holder's viewer of the old session: a close code, not
		// an HTTP refusal (no reconnecting for ever).
		if got := e.agent(a2).socket("/console/sessions/" + id + "/socket").CloseStatus(); got != CloseNotHolder {
			t.Errorf("the new holder's viewer of the old session: close %d, want %d", got, CloseNotHolder)
		}
		// The former holder's viewer cannot come back.
		if got := e.agent(a1).socket("/console/sessions/" + id + "/socket").CloseStatus(); got != CloseUnknown {
			t.Errorf("the former holder's viewer back: close %d, want %d", got, CloseUnknown)
		}
		// The new holder asks again, the former may not.
		e.agent(a1).want("POST", "/console/chat/"+convID+"/cobrowse", "", 409, "NOT_HOLDER")
		e.agent(a2).want("POST", "/console/chat/"+convID+"/cobrowse", "", 201, "")
	})
}

// TestViewerRechecksSession: each of the viewer's pings re-runs the staff
// session's check: signed out or disabled closes it with 4401, a brand no
// longer served with 4403; a database error keeps it (the next ping
// retries).
func TestViewerRechecksSession(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for _, tc := range []struct {
			name  string
			check func(p staff.Principal) (staff.Principal, error)
			want  websocket.StatusCode
		}{
			{"signed out", func(staff.Principal) (staff.Principal, error) { return staff.Principal{}, staff.ErrNoSession }, CloseSignedOut},
			{"brand taken away", func(p staff.Principal) (staff.Principal, error) {
				p.Brands = []string{"intact"}
				return p, nil
			}, CloseForbidden},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := newEnvWith(t, db, &chat.LocalNotifier{})
				a := e.addStaff("a-"+strings.ReplaceAll(tc.name, " ", "-"), "belair")
				_, _, id := e.activeCode(a)
				vw := e.agent(a).socket("/console/sessions/" + id + "/socket?after=0")
				vw.NextState(StatusActive)
				// A database error: the viewer stays.
				e.mu.Lock()
				e.check = func(string) (staff.Principal, error) { return staff.Principal{}, errors.New("database away") }
				e.mu.Unlock()
				vw.Send(map[string]string{"type": "ping"})
				vw.Next("pong")
				e.mu.Lock()
				e.check = func(string) (staff.Principal, error) { return tc.check(a) }
				e.mu.Unlock()
				vw.Send(map[string]string{"type": "ping"})
				if _, code := vw.ReadAll(); code != tc.want {
					t.Fatalf("after the check: close %d, want %d", code, tc.want)
				}
			})
		}
	})
}
