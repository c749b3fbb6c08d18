package cobrowse

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/chat"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/store/storetest"
)

// The footer link's whole session: nothing accepted before the agent's
// code, a viewer's join asks for a snapshot, events reach the viewer in
// order, a reconnecting viewer resumes by seq, the pointer reaches the
// visitor, the visitor's end closes both sockets and deletes the events.
func TestCodeSession(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		p := e.addStaff("a1", "belair")
		v, id, code := e.codeSession()
		if !ValidCode(code) || e.count("SELECT COUNT(*) FROM cobrowse_sessions WHERE code_hmac = ?", code) != 0 {
			t.Fatalf("code %q: six digits, stored only as its HMAC", code)
		}
		vs := v.socket("/api/v1/cobrowse/socket")
		vs.nextState(StatusWaiting)
		vs.send(map[string]any{"type": "event", "data": map[string]any{"type": 2, "secret": "before"}})
		if f := vs.next("error"); f["errorCode"] != ErrNotActive.Code {
			t.Fatalf("event before the agent joined: %v", f)
		}
		a := e.agent(p)
		out := a.want("POST", "/console/join", `{"code":"`+code+`"}`, 200, "")
		if out["id"] != id || out["status"] != StatusActive || out["agentName"] != p.Name {
			t.Fatalf("join: %v", out)
		}
		vs.nextState(StatusActive)
		view := a.socket("/console/sessions/" + id + "/socket")
		if f := view.next("state"); f["status"] != StatusActive {
			t.Fatalf("viewer state: %v", f)
		}
		vs.next("snapshot")
		for i := range 5 {
			vs.send(map[string]any{"type": "event", "data": map[string]any{"type": 3, "n": i}})
		}
		var last float64
		for i := range 5 {
			f := view.next("event")
			if f["data"].(map[string]any)["n"] != float64(i) || f["seq"].(float64) <= last {
				t.Fatalf("event %d: %v (after seq %v)", i, f, last)
			}
			last = f["seq"].(float64)
		}
		view.conn.Close(websocket.StatusNormalClosure, "")
		vs.send(map[string]any{"type": "event", "data": map[string]any{"n": 5}})
		vs.send(map[string]any{"type": "event", "data": map[string]any{"n": 6}})
		e.eventually("two more events", func() bool { return e.session(id).LastSeq >= int64(last)+2 })
		view = a.socket(fmt.Sprintf("/console/sessions/%s/socket?after=%d", id, int64(last)))
		for _, n := range []float64{5, 6} {
			if f := view.next("event"); f["data"].(map[string]any)["n"] != n {
				t.Fatalf("resumed: %v, want n=%v", f, n)
			}
		}
		vs.next("snapshot") // the second viewer connection asks again
		view.send(map[string]any{"type": "pointer", "data": map[string]any{"x": 10, "y": 20}})
		if f := vs.next("pointer"); f["data"].(map[string]any)["x"] != float64(10) {
			t.Fatalf("pointer: %v", f)
		}
		if n := e.count("SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", id); n != 8 {
			t.Fatalf("%d events stored, want 8 (7 visitor's, 1 pointer)", n)
		}
		vs.send(map[string]any{"type": "end"})
		for _, w := range []*ws{vs, view} {
			if f := w.nextState(StatusEnded); f["reason"] != ReasonVisitor {
				t.Fatalf("end: %v", f)
			}
			if got := w.closeStatus(); got != websocket.StatusNormalClosure {
				t.Fatalf("close %d, want 1000", got)
			}
		}
		if n := e.count("SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", id); n != 0 {
			t.Fatalf("%d events kept after the end (belair does not record)", n)
		}
		// A used code is spent.
		a.want("POST", "/console/join", `{"code":"`+code+`"}`, 404, ErrInvalidCode.Code)
		for _, ev := range []string{EventStart, EventJoin, EventEnd} {
			if e.count("SELECT COUNT(*) FROM audit_events WHERE event = ? AND detail LIKE ?", ev, "%session="+id+"%") == 0 {
				t.Fatalf("no %s audit row", ev)
			}
		}
		if e.count("SELECT COUNT(*) FROM audit_events WHERE event = ? AND account_id = ? AND actor = ? AND outcome = 'ok'",
			EventJoin, p.ID, p.Actor()) != 1 {
			t.Fatal("join not audited with the staff id")
		}
		// The socket after the end: 4404.
		if got := v.socket("/api/v1/cobrowse/socket").closeStatus(); got != CloseUnknown {
			t.Fatalf("socket after the end: %d", got)
		}
	})
}

func TestCodeExpiresAndGuesses(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		p := e.addStaff("a1", "belair")
		q := e.addStaff("a2", "belair")
		a := e.agent(p)
		_, id, code := e.codeSession()
		e.clock.Advance(CodeTTL)
		a.want("POST", "/console/join", `{"code":"`+code+`"}`, 404, ErrInvalidCode.Code)
		if n, err := e.svc.Sweep(context.Background()); err != nil || n != 1 || e.session(id).EndReason != ReasonExpired {
			t.Fatalf("sweep: %d %v %+v", n, err, e.session(id))
		}
		_, _, code = e.codeSession()
		wrong := fmt.Sprintf("%06d", (atoi(code)+1)%1_000_000)
		for range MaxCodeGuesses - 1 {
			a.want("POST", "/console/join", `{"code":"`+wrong+`"}`, 404, ErrInvalidCode.Code)
		}
		// Guesses past five are refused even with the right code.
		a.want("POST", "/console/join", `{"code":"`+code+`"}`, 429, ErrRateLimited.Code)
		// Another agent is not held back by a1's guesses.
		e.agent(q).want("POST", "/console/join", `{"code":"`+code+`"}`, 200, "")
		e.clock.Advance(GuessWindow)
		_, _, code = e.codeSession()
		a.want("POST", "/console/join", `{"code":"`+code+`"}`, 200, "")
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
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
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
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		p := e.addStaff("a1", "scotia")
		other := e.addStaff("a2", "scotia")
		convID, chatSecret := e.conversation("scotia", p)
		e.agent(other).want("POST", "/console/chat/"+convID+"/cobrowse", "", 409, ErrNotHolder.Code)
		out := e.agent(p).want("POST", "/console/chat/"+convID+"/cobrowse", "", 201, "")
		id := out["id"].(string)
		if out["status"] != StatusPending || out["conversationId"] != convID {
			t.Fatalf("request: %v", out)
		}
		if got := e.systemKeys(convID); !slices.Contains(got, chat.SystemCobrowseRequest+"="+id) {
			t.Fatalf("transcript: %v", got)
		}
		e.agent(p).want("POST", "/console/chat/"+convID+"/cobrowse", "", 409, ErrPending.Code)
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
		stranger.cookies[chat.DevCookieName] = otherSecret
		stranger.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{"accept":true}`, 404, ErrNotFound.Code)
		v.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{"accept":true}`, 401, "")
		v.cookies[chat.DevCookieName] = chatSecret
		v.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{}`, 400, "INVALID_FIELD")
		out = v.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{"accept":false}`, 200, "")
		if out["status"] != StatusDeclined || v.cookies[DevCookieName] != "" {
			t.Fatalf("decline: %v %v", out, v.cookies)
		}
		if _, err := e.svc.AppendEvent(ctx, id, SenderVisitor, []byte(`{}`)); err != ErrNotActive {
			t.Fatalf("event after decline: %v", err)
		}
		v.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{"accept":true}`, 409, ErrState.Code)
		// Asked again, accepted.
		id2 := e.agent(p).want("POST", "/console/chat/"+convID+"/cobrowse", "", 201, "")["id"].(string)
		out = v.want("POST", "/api/v1/cobrowse/sessions/"+id2+"/consent", `{"accept":true}`, 200, "")
		if out["status"] != StatusActive || v.cookies[DevCookieName] == "" {
			t.Fatalf("accept: %v", out)
		}
		vs := v.socket("/api/v1/cobrowse/socket")
		vs.nextState(StatusActive)
		view := e.agent(p).socket("/console/sessions/" + id2 + "/socket")
		vs.next("snapshot")
		vs.send(map[string]any{"type": "event", "data": map[string]any{"type": 2}})
		view.next("event")
		// The agent ends it: both sockets close, the chat says so.
		e.agent(p).want("POST", "/console/sessions/"+id2+"/end", "", 200, "")
		for _, w := range []*ws{vs, view} {
			if f := w.nextState(StatusEnded); f["reason"] != ReasonAgent {
				t.Fatalf("end: %v", f)
			}
			if got := w.closeStatus(); got != websocket.StatusNormalClosure {
				t.Fatalf("close %d", got)
			}
		}
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
			"fr": {"Le conseiller a demandé à voir votre écran", "Partage d’écran refusé", "Partage d’écran accepté", "Partage d’écran terminé"},
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
		for _, ev := range []string{EventStart, EventDecline, EventConsent, EventEnd} {
			if e.count("SELECT COUNT(*) FROM audit_events WHERE event = ? AND detail LIKE ?", ev, "%conversation="+convID+"%") == 0 {
				t.Fatalf("no %s audit row naming the conversation", ev)
			}
		}
	})
}

func TestCapAndVisitorGone(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		p := e.addStaff("a1", "belair")
		_, vs, id := e.activeCode(p)
		view := e.agent(p).socket("/console/sessions/" + id + "/socket")
		vs.next("snapshot")
		e.clock.Advance(MaxDuration - time.Millisecond)
		vs.send(map[string]any{"type": "ping"})
		vs.next("pong")
		if n, _ := e.svc.Sweep(ctx); n != 0 {
			t.Fatal("ended before 60 minutes")
		}
		e.clock.Advance(time.Millisecond)
		if n, _ := e.svc.Sweep(ctx); n != 1 {
			t.Fatal("not ended at 60 minutes")
		}
		for _, w := range []*ws{vs, view} {
			if f := w.nextState(StatusEnded); f["reason"] != ReasonCap {
				t.Fatalf("cap: %v", f)
			}
			w.closeStatus()
		}

		// The visitor's socket closes; back within 30 s it goes on, not
		// back within 30 s it ends.
		v, vs, id := e.activeCode(p)
		vs.conn.Close(websocket.StatusGoingAway, "")
		e.eventually("the close recorded", func() bool { return e.session(id).VisitorLeftAt != 0 })
		e.clock.Advance(GoneAfter - time.Millisecond)
		if n, _ := e.svc.Sweep(ctx); n != 0 {
			t.Fatal("ended within 30 s")
		}
		vs = v.socket("/api/v1/cobrowse/socket")
		vs.nextState(StatusActive)
		e.eventually("the visitor back", func() bool { return e.session(id).VisitorLeftAt == 0 })
		e.clock.Advance(GoneAfter)
		if n, _ := e.svc.Sweep(ctx); n != 0 {
			t.Fatal("ended with the visitor's socket open")
		}
		vs.conn.Close(websocket.StatusGoingAway, "")
		e.eventually("the close recorded", func() bool { return e.session(id).VisitorLeftAt != 0 })
		e.clock.Advance(GoneAfter)
		if n, _ := e.svc.Sweep(ctx); n != 1 || e.session(id).EndReason != ReasonVisitorGone {
			t.Fatalf("visitor gone: %+v", e.session(id))
		}
	})
}

func TestOtherBrandAgentRefused(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		intact := e.addStaff("ai", "intact")
		belair := e.addStaff("ab", "belair")
		_, id, code := e.codeSession()
		e.agent(intact).want("POST", "/console/join", `{"code":"`+code+`"}`, 403, ErrForbiddenBrand.Code)
		if e.count("SELECT COUNT(*) FROM audit_events WHERE event = ? AND account_id = ? AND detail LIKE ?",
			EventForbidden, intact.ID, "%session="+id+"%") != 1 {
			t.Fatal("refusal not audited")
		}
		e.agent(belair).want("POST", "/console/join", `{"code":"`+code+`"}`, 200, "")
		if _, res, err := e.agent(intact).dial("/console/sessions/" + id + "/socket"); err == nil || res.StatusCode != 403 {
			t.Fatalf("other brand's viewer: %v", err)
		}
		e.agent(intact).want("POST", "/console/sessions/"+id+"/end", "", 403, ErrForbiddenBrand.Code)
		if e.count("SELECT COUNT(*) FROM audit_events WHERE event = ? AND account_id = ?", EventForbidden, intact.ID) != 3 {
			t.Fatal("viewer and end refusals not audited")
		}
		other := e.addStaff("ab2", "belair")
		if _, res, err := e.agent(other).dial("/console/sessions/" + id + "/socket"); err == nil || res.StatusCode != 409 {
			t.Fatalf("not the session's agent: %v", err)
		}
		if e.session(id).Status != StatusActive {
			t.Fatal("session touched by refusals")
		}
	})
}

func TestRecordAndPurge(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
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
		if e.count("SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", kept) != 1 {
			t.Fatal("recording brand: events deleted at the end")
		}
		all := e.brands.All()
		if _, err := e.svc.Purge(ctx, all); err != nil {
			t.Fatal(err)
		}
		if e.count("SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", kept) != 0 {
			t.Fatal("the janitor kept events of a brand that no longer records")
		}
		e.mu.Lock()
		e.record["belair"] = false
		e.mu.Unlock()
		if _, err := e.svc.End(ctx, Actor{}, dropped, ReasonAgent); err != nil {
			t.Fatal(err)
		}
		if e.count("SELECT COUNT(*) FROM cobrowse_events") != 0 {
			t.Fatal("events kept at the end")
		}
		if n := e.count("SELECT COUNT(*) FROM cobrowse_sessions"); n != 2 {
			t.Fatalf("%d sessions", n)
		}
		e.clock.Advance(25 * 31 * 24 * time.Hour)
		if _, err := e.svc.Purge(ctx, all); err != nil || e.count("SELECT COUNT(*) FROM cobrowse_sessions") != 0 {
			t.Fatalf("old sessions not purged: %v", err)
		}
	})
}

func TestFrameLimits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		p := e.addStaff("a1", "belair")
		_, vs, id := e.activeCode(p)
		// The clock stands still: the bucket's burst and nothing more.
		for i := range 2*EventRate + 3 {
			vs.send(map[string]any{"type": "event", "data": map[string]any{"n": i}})
		}
		for range 3 {
			if f := vs.next("error"); f["errorCode"] != ErrRateLimited.Code {
				t.Fatalf("over the rate: %v", f)
			}
		}
		vs.send(map[string]any{"type": "ping"})
		vs.next("pong")
		if n := e.count("SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", id); n != 2*EventRate {
			t.Fatalf("%d events stored, want %d", n, 2*EventRate)
		}
		e.clock.Advance(time.Second)
		big := `{"type":"event","data":"` + strings.Repeat("x", MaxEventBytes) + `"}`
		vs.sendRaw([]byte(big))
		if f := vs.next("error"); f["errorCode"] != ErrTooLarge.Code {
			t.Fatalf("too large: %v", f)
		}
		vs.send(map[string]any{"type": "event", "data": map[string]any{"n": "after"}})
		e.eventually("one more event", func() bool {
			return e.count("SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", id) == 2*EventRate+1
		})
		vs.sendRaw([]byte(`{"type":"event","data":"` + strings.Repeat("x", MaxEventBytes+2048) + `"}`))
		if got := vs.closeStatus(); got != websocket.StatusMessageTooBig {
			t.Fatalf("frame over the read limit: close %d, want 1009", got)
		}
	})
}
