package chatapi

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/api/apitest"
	"guichet/internal/audit"
	"guichet/internal/chat"
	"guichet/internal/notify"
	"guichet/internal/staff"
	"guichet/internal/testenv"
)

// TestSalesforceConfigShape: spec §7's shape for every province and
// language of the brand, and the chat object of the request's province
// and language, as api/openapi.yaml declares them.
func TestSalesforceConfigShape(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.svc.Bot = realBot(t, e)
		schemas := apitest.Schemas(t)
		e.availableAgent("marie", "Marie", "fr")
		v := e.visitor("belair")
		v.language = "fr"
		out := v.want("GET", "/api/v1/salesforceConfig", "", 200, "")
		if err := apitest.Conform(schemas, "ChatConfig", out); err != nil {
			t.Fatal(err)
		}
		sf := out["propertySources"].([]any)[0].(map[string]any)["source"].(map[string]any)["salesforce"].(map[string]any)
		belair, _ := e.Brands.ByID("belair")
		if len(sf) != len(belair.Provinces) {
			t.Fatalf("%d provinces, want %d", len(sf), len(belair.Provinces))
		}
		if sf["qc"].(map[string]any)["fr"].(map[string]any)["mode"] != "chatbot" {
			t.Fatalf("belair has the chatbot: %v", sf["qc"])
		}
		chat := out["chat"].(map[string]any)
		if chat["open"] != true || chat["reason"] != "open" || chat["nextOpen"] != nil || chat["timeZone"] != "America/Toronto" ||
			chat["chatbot"] != true || chat["conversation"] != nil {
			t.Fatalf("chat %v", chat)
		}
		id := v.start()
		chat = v.want("GET", "/api/v1/salesforceConfig", "", 200, "")["chat"].(map[string]any)
		if conv := chat["conversation"].(map[string]any); conv["id"] != id || conv["status"] != "bot" {
			t.Fatalf("conversation %v", conv)
		}
		// Sunday: closed, next opening Monday 08:00 in the province's offset.
		e.Clock.Advance(5*24*time.Hour + time.Hour)
		out = v.want("GET", "/api/v1/salesforceConfig", "", 200, "")
		if err := apitest.Conform(schemas, "ChatConfig", out); err != nil {
			t.Fatal(err)
		}
		chat = out["chat"].(map[string]any)
		if chat["open"] != false || chat["reason"] != "closed" || chat["nextOpen"] != "2026-11-30T08:00:00-05:00" {
			t.Fatalf("sunday %v", chat)
		}
	})
}

// TestChatbotHandsOver: a chatbot brand's conversation starts with the
// bot's welcome, the bot answers a question it knows, and a handover moves
// it to the queue with the transcript so far; with nobody available, the
// handover is 409 CHAT_NO_AGENT and the conversation stays with the bot.
func TestChatbotHandsOver(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.svc.Bot = realBot(t, e)
		ctx := t.Context()
		v := e.visitor("belair")
		id := v.start()
		s := v.socket(0)
		if st := s.Read(); st["status"] != "bot" {
			t.Fatalf("state %v", st)
		}
		welcome := s.Next("message")
		if welcome["sender"] != "bot" || welcome["reply"].(map[string]any)["quickReplies"] == nil {
			t.Fatalf("welcome %v", welcome)
		}
		s.Send(map[string]any{"type": "message", "clientId": "q1", "body": "How do I reset my password?"})
		if m := s.Next("message"); m["clientId"] != "q1" {
			t.Fatalf("own %v", m)
		}
		if m := s.Next("message"); m["sender"] != "bot" || m["reply"].(map[string]any)["handover"] != false ||
			m["reply"].(map[string]any)["topicId"] == "" {
			t.Fatalf("answer %v", m)
		}
		// No agent in opening hours: asking for one keeps the bot, and
		// the answer says nobody is available, not closed (the widget
		// offers the form and the phone).
		v.want("POST", "/api/v1/chat/conversation/handover", "", 409, "CHAT_NO_AGENT")
		s.Send(map[string]any{"type": "message", "clientId": "q2", "body": "I want to talk to an agent"})
		s.Next("message")
		if m := s.Next("message"); m["reply"].(map[string]any)["handover"] != true {
			t.Fatalf("handover reply %v", m)
		}
		if c, _ := e.svc.Get(ctx, id); c.Status != chat.StatusBot {
			t.Fatalf("closed handover moved it to %s", c.Status)
		}
		marie := e.availableAgent("marie", "Marie", "en")
		out := v.want("POST", "/api/v1/chat/conversation/handover", "", 200, "")
		if out["status"] != "waiting" || out["queuePosition"] != 1.0 {
			t.Fatalf("handover %v", out)
		}
		if st := s.Next("state"); st["status"] != "waiting" || st["queuePosition"] != 1.0 {
			t.Fatalf("state %v", st)
		}
		got := e.staffWant(marie, "GET", "/console/conversations/"+id, "", 200, "")
		if n := len(got["messages"].([]any)); n != 6 {
			t.Fatalf("the agent sees %d messages of the bot's transcript, want 6", n)
		}
	})
}

// TestOfflineMessageReachesTheQueue: the message form's question is an
// offline item of the agents' queue (live on their socket); the answer is
// an email in the outbox and closes it.
func TestOfflineMessageReachesTheQueue(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		marie := e.AddStaff("marie", "Marie", staff.RoleAgent, "scotia")
		other := e.AddStaff("luc", "Luc", staff.RoleAgent, "belair")
		s := e.agentSocket(marie)
		if q := s.Next("queue"); len(q["offline"].([]any)) != 0 {
			t.Fatalf("queue %v", q)
		}
		v := e.visitor("scotia")
		v.language = "fr"
		out := v.want("POST", "/api/v1/chat/offline", `{"name":"Alex","email":"alex@example.com","question":"Pouvez-vous m’appeler ?","page":"/forgot"}`, 201, "")
		id := out["id"].(string)
		q := s.Next("queue")
		items := q["offline"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["question"] != "Pouvez-vous m’appeler ?" || items[0].(map[string]any)["kind"] != "offline" {
			t.Fatalf("queue %v", q)
		}
		if err := apitest.Conform(apitest.Schemas(t), "ChatQueueFrame", q); err != nil {
			t.Fatal(err)
		}
		reply := func(p staff.Principal, body string) testenv.Request {
			return staffRequest(p, "POST", "/console/conversations/"+id+"/reply", `{"body":"`+body+`"}`)
		}
		testenv.Run(t, e.H,
			testenv.Scenario{Name: "another brand's agent replies", Request: reply(other, "Oui"), Status: 403, Code: "FORBIDDEN_BRAND"},
			testenv.Scenario{Name: "accept", Request: staffRequest(marie, "POST", "/console/conversations/"+id+"/accept", ""), Status: 409, Code: "WRONG_STATUS"},
			testenv.Scenario{Name: "reply", Request: reply(marie, "Oui, demain matin."), Status: 202},
			testenv.Scenario{Name: "reply again", Request: reply(marie, "Encore"), Status: 409, Code: "ALREADY_DONE"},
		)
		if m := e.Mail.Next(t, "alex@example.com"); m.Language != "fr" || m.Template != "chat-offline-reply" || !strings.Contains(m.Data[notify.DataAnswer], "demain matin") {
			t.Fatalf("outbox %+v", m)
		}
		if q := s.Next("queue"); len(q["offline"].([]any)) != 0 {
			t.Fatalf("answered item still queued: %v", q)
		}
	})
}

// TestAgentQueueLiveAndTransfer: a new conversation reaches every agent's
// queue; accepted by one, it leaves the others' queue and joins the
// winner's; a transfer to a present agent moves it and notes it in the
// conversation; a transfer to an absent one is refused.
func TestAgentQueueLiveAndTransfer(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		marie := e.AddStaff("marie", "Marie", staff.RoleAgent)
		luc := e.AddStaff("luc", "Luc", staff.RoleAgent, "scotia")
		away := e.AddStaff("zoe", "Zoé", staff.RoleAgent)
		e.available(marie, "en")
		e.available(luc, "en", "fr")
		sm, sl := e.agentSocket(marie), e.agentSocket(luc)
		sm.Next("queue")
		sl.Next("queue")
		v := e.visitor("scotia")
		id := v.start()
		for _, s := range []*ws{sm, sl} {
			if q := s.Next("queue"); len(q["waiting"].([]any)) != 1 {
				t.Fatalf("queue %v", q)
			}
		}
		e.staffWant(luc, "POST", "/console/conversations/"+id+"/accept", "", 200, "")
		if q := sm.Next("queue"); len(q["waiting"].([]any)) != 0 {
			t.Fatalf("marie still sees it: %v", q)
		}
		if q := sl.Next("queue"); len(q["mine"].([]any)) != 1 {
			t.Fatalf("luc's queue %v", q)
		}
		e.staffWant(luc, "POST", "/console/conversations/"+id+"/transfer", `{"staffId":"zoe"}`, 409, "TARGET_UNAVAILABLE")
		e.staffWant(marie, "POST", "/console/conversations/"+id+"/transfer", `{"staffId":"marie"}`, 409, "NOT_HOLDER")
		_ = away
		item := e.staffWant(luc, "POST", "/console/conversations/"+id+"/transfer", `{"staffId":"marie"}`, 200, "")
		if item["agentId"] != "marie" {
			t.Fatalf("transferred %v", item)
		}
		s := v.socket(0)
		var keys []string
		for len(keys) < 2 {
			if m := s.Next("message"); m["sender"] == "system" {
				keys = append(keys, m["system"].(map[string]any)["key"].(string))
			}
		}
		if !slices.Equal(keys, []string{"agentJoined", "transferred"}) {
			t.Fatalf("system notes %v", keys)
		}
		// The new holder's socket: subscribe, send, the visitor sees it.
		sm.Send(map[string]any{"type": "subscribe", "conversationId": id, "after": 0})
		sm.Send(map[string]any{"type": "message", "conversationId": id, "clientId": "m1", "body": "Bonjour"})
		for {
			f := sm.Read()
			if f["type"] == "message" && f["clientId"] == "m1" {
				if f["conversationId"] != id {
					t.Fatalf("agent frame %v", f)
				}
				break
			}
		}
		if m := s.Next("message"); m["body"] != "Bonjour" || m["agentName"] != "Marie" {
			t.Fatalf("visitor got %v", m)
		}
		sl.Send(map[string]any{"type": "message", "conversationId": id, "clientId": "x", "body": "still mine?"})
		if f := sl.Next("error"); f["errorCode"] != "NOT_HOLDER" {
			t.Fatalf("former holder: %v", f)
		}
	})
}

// TestPollDeliversWithoutNotification: two instances on one database, each
// with its own notifier (as two processes): a message stored through one
// reaches a socket on the other by the poll alone, and so does a state
// change; nothing passes only through memory.
func TestPollDeliversWithoutNotification(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		id, s, other := e.sentFromOtherInstance()
		if err := other.Typing(ctx, id, true, true); err != nil {
			t.Fatal(err)
		}
		if err := e.hub.Poll(ctx); err != nil {
			t.Fatal(err)
		}
		var gotTyping, gotMessage bool
		for !gotTyping || !gotMessage {
			switch f := s.Read(); f["type"] {
			case "typing":
				gotTyping = f["on"] == true
			case "message":
				if f["body"] != "from the other instance" || f["seq"] != 2.0 {
					t.Fatalf("message %v", f)
				}
				gotMessage = true
			}
		}
	})
}

// TestShutdownClosesSockets: the hub's shutdown closes every socket with
// 1012 (reconnect elsewhere), and refuses new ones.
func TestShutdownClosesSockets(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		marie, v, _ := e.chatting("en")
		s, a := v.socket(0), e.agentSocket(marie)
		s.Next("state")
		a.Next("queue")
		e.hub.Shutdown()
		for _, w := range []*ws{s, a} {
			w.ExpectClose(t, websocket.StatusServiceRestart, "at shutdown")
		}
	})
}

// TestVisitorSocketRefusals: cross-origin 403 and no cookie 401 before the
// upgrade; an unknown conversation's cookie or an ended one: 4404; the
// end of the conversation closes with 1000.
func TestVisitorSocketRefusals(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		_, v, _ := e.chatting("en")
		for _, c := range []struct {
			origin, cookie string
			status         int
		}{
			{"http://evil.example", v.cookie, http.StatusForbidden},
			{"", v.cookie, http.StatusForbidden},
			{"http://scotia.test", "", http.StatusUnauthorized},
		} {
			_, res, err := e.dial("/api/v1/chat/socket", v.host, c.origin, c.cookie, nil)
			if err == nil || res == nil || res.StatusCode != c.status {
				t.Fatalf("origin %q cookie %q: %v %v; want %d", c.origin, c.cookie, err, res, c.status)
			}
		}
		w, _, err := e.dial("/api/v1/chat/socket", v.host, "http://"+v.host, "unknown-secret", nil)
		if err != nil {
			t.Fatal(err)
		}
		w.ExpectClose(t, CloseUnknown, "unknown conversation")
		s := v.socket(0)
		s.Next("state")
		v.want("POST", "/api/v1/chat/conversation/end", "", 200, "")
		s.Next("message") // agent joined
		if m := s.Next("message"); m["system"].(map[string]any)["key"] != "ended" {
			t.Fatalf("end note %v", m)
		}
		s.ExpectClose(t, websocket.StatusNormalClosure, "ended")
		// Every message delivered: nothing left, 4404 (do not reconnect).
		last := v.want("GET", "/api/v1/chat/conversation", "", 200, "")["lastSeq"].(float64)
		w, _, err = e.dial(fmt.Sprintf("/api/v1/chat/socket?after=%d", int(last)), v.host, "http://"+v.host, v.cookie, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.ExpectClose(t, CloseUnknown, "ended conversation, nothing left")
		// Messages left: replayed, then 1000.
		w, _, err = e.dial("/api/v1/chat/socket?after=1", v.host, "http://"+v.host, v.cookie, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m := w.Next("message"); m["seq"] != float64(2) {
			t.Fatalf("replay after the end: %v", m)
		}
		w.ExpectClose(t, websocket.StatusNormalClosure, "ended conversation with messages left")
	})
}

// TestTranscriptAndRating: after the end the visitor may have the
// transcript emailed once (outbox, the conversation's language) and rate
// once; before the end neither.
func TestTranscriptAndRating(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		marie := e.availableAgent("marie", "Marie", "fr")
		v := e.visitor("scotia")
		v.language = "fr"
		id := e.activeConversation(v, marie)
		if _, err := e.svc.VisitorSend(ctx, id, "1", "Bonjour, <script>alert(1)</script>"); err != nil {
			t.Fatal(err)
		}
		transcript := func(email string) testenv.Request {
			return v.request("POST", "/api/v1/chat/conversation/transcript", `{"email":"`+email+`"}`)
		}
		rating := func(n int) testenv.Request {
			return v.request("POST", "/api/v1/chat/conversation/rating", fmt.Sprintf(`{"rating":%d}`, n))
		}
		testenv.Run(t, e.H,
			testenv.Scenario{Name: "transcript before the end", Request: transcript("alex@example.com"), Status: 409, Code: "NOT_ENDED"},
			testenv.Scenario{Name: "rating before the end", Request: rating(5), Status: 409, Code: "NOT_ENDED"},
			testenv.Scenario{Name: "the agent ends", Request: staffRequest(marie, "POST", "/console/conversations/"+id+"/end", "")},
			testenv.Scenario{Name: "transcript to no address", Request: transcript("not an email"), Status: 400, Code: "INVALID_FIELD"},
			testenv.Scenario{Name: "transcript", Request: transcript("alex@example.com"), Status: 202},
			testenv.Scenario{Name: "transcript again", Request: transcript("alex@example.com"), Status: 409, Code: "ALREADY_DONE"},
			testenv.Scenario{Name: "rating out of range", Request: rating(6), Status: 400, Code: "INVALID_FIELD"},
			testenv.Scenario{Name: "rating", Request: rating(4), Status: 204},
			testenv.Scenario{Name: "rating again", Request: rating(4), Status: 409, Code: "ALREADY_DONE"},
		)
		m := e.Mail.Next(t, "alex@example.com")
		if m.Language != "fr" || m.Template != "chat-transcript" || !strings.Contains(m.Data["transcript"], "Alex\u00a0: Bonjour, <script>") ||
			!strings.Contains(m.Data["transcript"], "Marie a rejoint la conversation") ||
			// 15:00 UTC is 10:00 in Ontario (scotia's default province), in November EST.
			!strings.Contains(m.Data["transcript"], "10 h 00 EST — Alex\u00a0: Bonjour") {
			t.Fatalf("outbox %s %s %q", m.Language, m.Template, m.Data["transcript"])
		}
	})
}

// TestPurge: the janitor deletes the conversations (and messages) older
// than each brand's retentionMonths, and keeps the rest.
func TestPurge(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		marie := e.availableAgent("marie", "Marie", "en")
		oldScotia := e.activeConversation(e.visitor("scotia"), marie) // scotia keeps 36 months
		v := e.visitor("belair")                                      // belair 24
		oldBelair := v.start()
		e.Clock.Advance(25 * 30 * 24 * time.Hour)
		e.available(marie, "en")
		v2 := e.visitor("belair")
		v2.ip = "192.0.2.77"
		recent := v2.start()
		n, err := chat.Purge(ctx, e.svc, e.Brands.All())
		if err != nil || n != 1 {
			t.Fatalf("purged %d, %v; want 1", n, err)
		}
		for id, kept := range map[string]bool{oldScotia: true, oldBelair: false, recent: true} {
			_, err := e.svc.Get(ctx, id)
			if (err == nil) != kept {
				t.Fatalf("%s kept=%v: %v", id, kept, err)
			}
			if msgs := e.Count(t, "SELECT COUNT(*) FROM chat_messages WHERE conversation_id = ?", id); !kept && msgs != 0 {
				t.Fatalf("%d messages left of a purged conversation", msgs)
			}
		}
	})
}

// TestAuditRows: the agents' actions are audited with the staff id; a
// brand not served is 403 FORBIDDEN_BRAND and a console.forbidden row;
// supervisors' calls are refused to agents.
func TestAuditRows(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		marie := e.AddStaff("marie", "Marie", staff.RoleAgent, "belair")
		sup := e.AddStaff("sue", "Sue", staff.RoleSupervisor, "scotia")
		e.staffWant(marie, "PUT", "/console/availability", `{"status":"available","languages":["en"]}`, 200, "")
		e.available(sup, "en")
		id := e.visitor("scotia").start()
		testenv.Run(t, e.H,
			testenv.Scenario{Name: "another brand's agent accepts", Request: staffRequest(marie, "POST", "/console/conversations/"+id+"/accept", ""), Status: 403, Code: "FORBIDDEN_BRAND"},
			testenv.Scenario{Name: "an agent reads the figures", Request: staffRequest(marie, "GET", "/console/figures", ""), Status: 403, Code: "FORBIDDEN_ROLE"},
			testenv.Scenario{Name: "the supervisor accepts", Request: staffRequest(sup, "POST", "/console/conversations/"+id+"/accept", "")},
			testenv.Scenario{Name: "the supervisor searches", Request: staffRequest(sup, "GET", "/console/transcripts?q=alex", "")},
		)
		count := func(staffID, event, outcome string) int {
			return e.Count(t, "SELECT COUNT(*) FROM audit_events WHERE brand = ? AND account_id = ? AND actor = ? AND event = ? AND outcome = ?",
				staff.AuditBrand, staffID, "staff:"+staffID, event, outcome)
		}
		for _, c := range []struct {
			id, event, outcome string
		}{
			{"marie", string(audit.ChatAvailability), "ok"},
			{"marie", string(audit.ChatAccept), "FORBIDDEN_BRAND"},
			{"marie", string(audit.ConsoleForbidden), "forbidden_brand"},
			{"marie", string(audit.ConsoleForbidden), "forbidden_role"},
			{"sue", string(audit.ChatAccept), "ok"},
			{"sue", string(audit.ChatTranscriptSearch), "ok"},
		} {
			if n := count(c.id, c.event, c.outcome); n != 1 {
				t.Errorf("%s %s %s: %d rows", c.id, c.event, c.outcome, n)
			}
		}
		items := e.staffWant(sup, "GET", "/console/transcripts?q=ALEX", "", 200, "")["items"].([]any)
		if len(items) != 1 {
			t.Fatalf("search found %d", len(items))
		}
	})
}

// TestSilentSocketsAreClosed: a client that sent nothing (not even its
// ping) for the idle timeout is closed (1001) by the hub's reaper; one
// that pings is kept.
func TestSilentSocketsAreClosed(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		_, v, _ := e.chatting("en")
		s := v.socket(0)
		s.Next("state")
		s.Send(map[string]any{"type": "ping"})
		s.Next("pong")
		e.hub.Reap(time.Now().Add(-time.Minute).UnixMilli())
		s.Send(map[string]any{"type": "ping"})
		s.Next("pong")
		e.hub.Reap(time.Now().Add(time.Minute).UnixMilli())
		s.ExpectClose(t, websocket.StatusGoingAway, "reaped")
	})
}

// TestBotHandsOverByMessage: asking the bot for a person while chat is
// open moves the conversation to the queue at once, the bot's reply and
// the handover note in the transcript.
func TestBotHandsOverByMessage(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.svc.Bot = realBot(t, e)
		ctx := t.Context()
		e.availableAgent("marie", "Marie", "fr")
		v := e.visitor("belair")
		v.language = "fr"
		id := v.start()
		if _, err := e.svc.VisitorSend(ctx, id, "c1", "Je veux parler à un conseiller"); err != nil {
			t.Fatal(err)
		}
		c, _ := e.svc.Get(ctx, id)
		msgs, _ := e.svc.Messages(ctx, id, 0, 0)
		if c.Status != chat.StatusWaiting || len(msgs) != 4 || msgs[2].Reply == nil || !msgs[2].Reply.Handover || msgs[3].SystemKey != chat.SystemHandover {
			t.Fatalf("%s with %+v", c.Status, msgs)
		}
		// A supervisor's socket gets the figures.
		sue := e.AddStaff("sue", "Sue", staff.RoleSupervisor)
		s := e.agentSocket(sue)
		f := s.Next("figures")
		if f["waiting"] != 1.0 {
			t.Fatalf("figures %v", f)
		}
		if err := apitest.Conform(apitest.Schemas(t), "ChatFiguresFrame", f); err != nil {
			t.Fatal(err)
		}
	})
}
