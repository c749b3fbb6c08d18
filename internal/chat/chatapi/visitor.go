// Package chatapi is the live chat's HTTP side: the visitor's API and
// WebSocket on the brand hosts (visitor.go, socket.go) and the agents'
// API and WebSocket on the console host (console.go, agentsocket.go), over
// the domain of internal/chat and the socket registry of
// internal/chat/hub. The two sides are one package because their sockets
// share the frames, the read loop, the conversation subscription that
// streams a conversation's rows (an agent subscribes to conversations as
// the visitor's socket does) and the typing gate; and one function,
// Error, maps the chat's domain errors to the API's statuses and codes
// for both.
package chatapi

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"guichet/internal/api"
	"guichet/internal/chat"
	"guichet/internal/chat/hub"
	"guichet/internal/sockets"
	"guichet/internal/throttle"
)

// VisitorHandler serves the visitor's chat API and socket on the brand
// hosts (routes in internal/httpapi/routes.go).
type VisitorHandler struct {
	Service *chat.Service
	Hub     *hub.Hub
	// Account is the signed-in customer of a request (the portal's
	// session), "" when none.
	Account func(r *http.Request) (id, email string)
}

// Visitor cookie names: __Host- and Secure except over plain http in --dev
// (as the session cookie).
const (
	CookieName    = "__Host-guichet-chat"
	DevCookieName = "guichet-chat"
	cookieMaxAge  = 24 * 60 * 60
)

// VisitorCookie is the visitor cookie (co-browse reads it too).
var VisitorCookie = api.Cookie{Name: CookieName, DevName: DevCookieName}

func visitorSecret(r *http.Request) string { return VisitorCookie.Value(r) }

func setVisitorCookie(w http.ResponseWriter, r *http.Request, secret string) {
	name, secure := VisitorCookie.For(r)
	http.SetCookie(w, &http.Cookie{Name: name, Value: secret, Path: "/", MaxAge: cookieMaxAge, HttpOnly: true,
		Secure: secure, SameSite: http.SameSiteLaxMode})
}

// ConfigAnswer is GET /api/v1/salesforceConfig.
type ConfigAnswer struct {
	PropertySources []PropertySource `json:"propertySources"`
	Chat            ChatState        `json:"chat"`
}

// PropertySource is spec §7's configuration source.
type PropertySource struct {
	Name   string `json:"name"`
	Source struct {
		Salesforce map[string]map[string]ChannelConfig `json:"salesforce"`
	} `json:"source"`
}

// ChannelConfig is one province and language's chat settings.
type ChannelConfig struct {
	Mode                string        `json:"mode"`
	Label               string        `json:"label"`
	ExtraPrechatDetails []PrechatItem `json:"extraPrechatDetails"`
}

// PrechatItem is a detail shown to the agent.
type PrechatItem struct {
	Label            string   `json:"label"`
	TranscriptFields []string `json:"transcriptFields"`
	DisplayToAgent   bool     `json:"displayToAgent"`
}

// ChatState is the request's province and language's chat now.
type ChatState struct {
	Open         bool               `json:"open"`
	Reason       string             `json:"reason"`
	NextOpen     *string            `json:"nextOpen"`
	TimeZone     string             `json:"timeZone"`
	Phone        string             `json:"phone"`
	Chatbot      bool               `json:"chatbot"`
	Conversation *ConversationBrief `json:"conversation"`
	// Now is the server's clock (GUICHET_DEV_NOW's with --dev), in the
	// province's offset: the widget says "today" or "tomorrow" against it.
	Now string `json:"now"`
}

// ConversationBrief is a conversation's id and status.
type ConversationBrief struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

var chatLabels = map[string]string{"en": "Chat with us", "fr": "Clavardez avec nous"}

// Config is GET /api/v1/salesforceConfig: spec §7's shape from the brand
// file, plus whether chat is open now for the request's province and
// language and when it next opens.
func (h *VisitorHandler) Config(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	site := api.SiteOf(r)
	b := site.Brand
	mode := "direct"
	if b.Features.Chatbot {
		mode = "chatbot"
	}
	var ps PropertySource
	ps.Name = "guichet"
	ps.Source.Salesforce = map[string]map[string]ChannelConfig{}
	for _, p := range b.Provinces {
		byLang := map[string]ChannelConfig{}
		for _, lang := range p.Languages {
			byLang[lang] = ChannelConfig{Mode: mode, Label: chatLabels[lang], ExtraPrechatDetails: []PrechatItem{{
				Label: map[string]string{"en": "Page", "fr": "Page"}[lang], TranscriptFields: []string{"Page__c"}, DisplayToAgent: true}}}
		}
		ps.Source.Salesforce[p.Key] = byLang
	}
	av, err := h.Service.Availability(r.Context(), b, site.Province, site.Language)
	if err != nil {
		return err
	}
	st := ChatState{Open: av.Open, Reason: av.Reason, Phone: b.Phone(site.Province), Chatbot: b.Features.Chatbot && h.Service.Bot != nil,
		Now: h.Service.Clock().UTC().Format(time.RFC3339)}
	if p, ok := b.Province(site.Province); ok {
		st.TimeZone = p.TimeZone
		st.Now = h.Service.Clock().In(p.Location()).Format(time.RFC3339)
		if !av.NextOpen.IsZero() {
			s := av.NextOpen.In(p.Location()).Format(time.RFC3339)
			st.NextOpen = &s
		}
	}
	if c, err := h.Service.ByVisitor(r.Context(), visitorSecret(r)); err == nil && c.Brand == b.ID && c.Kind == chat.KindLive {
		st.Conversation = &ConversationBrief{ID: c.ID, Status: c.Status}
	}
	api.JSON(w, http.StatusOK, ConfigAnswer{PropertySources: []PropertySource{ps}, Chat: st})
	return nil
}

type startRequest struct {
	Name      string `json:"name"`
	Topic     string `json:"topic"`
	Page      string `json:"page"`
	Roadblock string `json:"roadblock"`
}

// conversationAnswer is a visitor's conversation.
type conversationAnswer struct {
	ID            string  `json:"id"`
	Status        string  `json:"status"`
	QueuePosition *int    `json:"queuePosition"`
	AgentName     *string `json:"agentName"`
	LastSeq       int64   `json:"lastSeq"`
}

func (h *VisitorHandler) answer(r *http.Request, c chat.Conversation) (conversationAnswer, error) {
	a := conversationAnswer{ID: c.ID, Status: c.Status, LastSeq: c.LastSeq}
	if c.Status == chat.StatusWaiting {
		pos, err := h.Service.QueuePosition(r.Context(), c)
		if err != nil {
			return a, err
		}
		a.QueuePosition = &pos
	}
	if c.Status == chat.StatusActive {
		a.AgentName = &c.AgentName
	}
	return a, nil
}

// Start is POST /api/v1/chat/conversations.
func (h *VisitorHandler) Start(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	var in startRequest
	if err := api.Decode(w, r, &in); err != nil {
		return err
	}
	site := api.SiteOf(r)
	start := chat.StartInput{Brand: site.Brand, Province: site.Province, Language: site.Language, Name: in.Name, Topic: in.Topic,
		Page: in.Page, Roadblock: in.Roadblock, IP: api.ClientIP(r), Secret: visitorSecret(r)}
	if h.Account != nil {
		start.AccountID, start.AccountEmail = h.Account(r)
	}
	res, err := h.Service.Start(r.Context(), start)
	if err != nil {
		return err
	}
	a, err := h.answer(r, res.Conversation)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
		setVisitorCookie(w, r, res.Secret)
	}
	api.JSON(w, status, a)
	return nil
}

// visitorConversation is the cookie's live conversation on this brand.
func (h *VisitorHandler) visitorConversation(r *http.Request) (chat.Conversation, error) {
	c, err := h.Service.ByVisitor(r.Context(), visitorSecret(r))
	if err != nil {
		return c, err
	}
	if c.Brand != api.SiteOf(r).Brand.ID || c.Kind != chat.KindLive {
		return c, chat.ErrNoConversation
	}
	return c, nil
}

// visitorWith is the request body decoded into v (api.Decode), then the
// visitor's conversation (visitorConversation).
func (h *VisitorHandler) visitorWith(w http.ResponseWriter, r *http.Request, v any) (chat.Conversation, error) {
	if err := api.Decode(w, r, v); err != nil {
		return chat.Conversation{}, err
	}
	return h.visitorConversation(r)
}

// visitorAct answers the visitor's conversation after act (nil: as it is).
func (h *VisitorHandler) visitorAct(w http.ResponseWriter, r *http.Request, act func(id string) (chat.Conversation, error)) error {
	c, err := h.visitorConversation(r)
	if err != nil {
		return err
	}
	if act != nil {
		if c, err = act(c.ID); err != nil {
			return err
		}
	}
	a, err := h.answer(r, c)
	return api.Reply(w, http.StatusOK, a, err)
}

// Current is GET /api/v1/chat/conversation.
func (h *VisitorHandler) Current(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	return h.visitorAct(w, r, nil)
}

// Handover is POST /api/v1/chat/conversation/handover.
func (h *VisitorHandler) Handover(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	return h.visitorAct(w, r, func(id string) (chat.Conversation, error) { return h.Service.Handover(r.Context(), id) })
}

// End is POST /api/v1/chat/conversation/end.
func (h *VisitorHandler) End(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	return h.visitorAct(w, r, func(id string) (chat.Conversation, error) {
		return h.Service.EndFromVisitor(r.Context(), id, api.ClientIP(r))
	})
}

// Transcript is POST /api/v1/chat/conversation/transcript.
func (h *VisitorHandler) Transcript(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	var in struct {
		Email string `json:"email"`
	}
	c, err := h.visitorWith(w, r, &in)
	if err != nil {
		return err
	}
	if err := h.Service.SendTranscript(r.Context(), c.ID, in.Email, api.ClientIP(r)); err != nil {
		return err
	}
	api.JSON(w, http.StatusAccepted, map[string]string{"status": "queued"})
	return nil
}

// Rating is POST /api/v1/chat/conversation/rating.
func (h *VisitorHandler) Rating(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	var in struct {
		Rating int `json:"rating"`
	}
	c, err := h.visitorWith(w, r, &in)
	if err != nil {
		return err
	}
	if c.Status != chat.StatusEnded {
		return chat.ErrNotEnded
	}
	if err := h.Service.Rate(r.Context(), c.ID, in.Rating); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Offline is POST /api/v1/chat/offline (the message form).
func (h *VisitorHandler) Offline(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	var in struct {
		Name      string `json:"name"`
		Email     string `json:"email"`
		Question  string `json:"question"`
		Page      string `json:"page"`
		Roadblock string `json:"roadblock"`
	}
	if err := api.Decode(w, r, &in); err != nil {
		return err
	}
	site := api.SiteOf(r)
	o := chat.OfflineInput{Brand: site.Brand, Province: site.Province, Language: site.Language, Name: in.Name, Email: in.Email,
		Question: in.Question, Page: in.Page, Roadblock: in.Roadblock, IP: api.ClientIP(r)}
	if h.Account != nil {
		o.AccountID, o.AccountEmail = h.Account(r)
	}
	c, err := h.Service.Offline(r.Context(), o)
	return api.Reply(w, http.StatusCreated, map[string]string{"id": c.ID, "status": c.Status}, err)
}

// SameOrigin tells whether a WebSocket handshake comes from a page of the
// host it asks (browsers always send Origin on a WebSocket).
func SameOrigin(r *http.Request) bool {
	u, err := url.Parse(r.Header.Get("Origin"))
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host) && (u.Scheme == "http" || u.Scheme == "https")
}

// Socket is GET /api/v1/chat/socket?after=N: the visitor's WebSocket. The
// route's middleware resolved the brand and answered maintenance; here:
// same origin (403), the cookie (401 NO_CONVERSATION), then the upgrade.
// An unknown conversation, or an ended one the visitor has every message
// of (after >= its last seq), is closed with 4404; more sockets than the
// caps allow (per conversation, per address) get 429 RATE_LIMITED.
func (h *VisitorHandler) Socket(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	if !SameOrigin(r) {
		return ErrCrossOrigin
	}
	secret := visitorSecret(r)
	if secret == "" {
		return ErrNoCookie
	}
	after, err := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	if err != nil || after < 0 {
		after = 0
	}
	c, cerr := h.visitorConversation(r)
	if cerr != nil && !errors.Is(cerr, chat.ErrNoConversation) {
		return cerr
	}
	// 4404 only when there is nothing left to give: no conversation, or
	// one that ended and whose every message the visitor has. One that
	// ended while the visitor was away is replayed, then closed with 1000.
	gone := cerr != nil || c.Status == chat.StatusEnded && after >= c.LastSeq
	release := func() {}
	if !gone {
		var ok bool
		release, ok = h.Hub.Reserve(map[string]int{"conversation:" + c.ID: hub.MaxSocketsPerConversation,
			"ip:" + throttle.ClientKey(api.ClientIP(r)): hub.MaxSocketsPerIP})
		if !ok {
			return chat.ErrRateLimited
		}
	}
	conn, err := sockets.Accept(w, r, chat.MaxFrameBytes)
	if err != nil {
		release()
		return nil // Accept has answered
	}
	if gone {
		_ = conn.Close(CloseUnknown, "no live conversation")
		return nil
	}
	// The socket lives on in a goroutine of its own: the request's (its
	// deep stack, the request and the middleware's values) ends here.
	go serveVisitor(h.Hub, h.Service, conn, c.ID, after, release, sockets.LogContext(r))
	return nil
}
