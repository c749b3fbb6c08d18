package cobrowse

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/coder/websocket"

	"guichet/internal/api"
	"guichet/internal/audit"
	"guichet/internal/chat/chatapi"
	"guichet/internal/sockets"
	"guichet/internal/staff"
)

// Visitor cookie names: __Host- and Secure except over plain http in --dev
// (as chat's).
const (
	CookieName    = "__Host-guichet-cobrowse"
	DevCookieName = "guichet-cobrowse"
	cookieMaxAge  = 2 * 60 * 60
)

// sessionCookie is the co-browse session's cookie.
var sessionCookie = api.Cookie{Name: CookieName, DevName: DevCookieName}

func setCookie(w http.ResponseWriter, r *http.Request, secret string) {
	name, secure := sessionCookie.For(r)
	http.SetCookie(w, &http.Cookie{Name: name, Value: secret, Path: "/", MaxAge: cookieMaxAge, HttpOnly: true,
		Secure: secure, SameSite: http.SameSiteLaxMode})
}

// SessionAnswer is a session as either side's calls answer it.
type SessionAnswer struct {
	ID             string  `json:"id"`
	Status         string  `json:"status"`
	Origin         string  `json:"origin"`
	Brand          string  `json:"brand"`
	Language       string  `json:"language,omitempty"`
	ConversationID string  `json:"conversationId,omitempty"`
	AgentName      string  `json:"agentName,omitempty"`
	Code           string  `json:"code,omitempty"`
	ExpiresAt      *string `json:"expiresAt,omitempty"`
	EndReason      string  `json:"endReason,omitempty"`
}

func answerOf(s Session) SessionAnswer {
	a := SessionAnswer{ID: s.ID, Status: s.Status, Origin: s.Origin, Brand: s.Brand, Language: s.Language, ConversationID: s.ConversationID,
		AgentName: s.AgentName, EndReason: s.EndReason}
	if s.Status == StatusWaiting || s.Status == StatusPending {
		exp := s.CodeExpiresAt
		if s.Status == StatusPending {
			exp = s.CreatedAt + CodeTTL.Milliseconds()
		}
		t := time.UnixMilli(exp).UTC().Format(time.RFC3339)
		a.ExpiresAt = &t
	}
	return a
}

// Handler serves the visitor's co-browse calls and socket on brand hosts.
type Handler struct {
	Service *Service
	Hub     *Hub
}

// Start is POST /api/v1/cobrowse/sessions: the visitor accepted the
// footer link's consent dialog.
func (h *Handler) Start(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	var in struct{}
	if err := api.Decode(w, r, &in); err != nil {
		return err
	}
	site := api.SiteOf(r)
	res, err := h.Service.StartCode(r.Context(), site.Brand, site.Language, api.ClientIP(r))
	if err != nil {
		return err
	}
	setCookie(w, r, res.Secret)
	a := answerOf(res.Session)
	a.Code = res.Code
	api.JSON(w, http.StatusCreated, a)
	return nil
}

// Consent is POST /api/v1/cobrowse/sessions/{id}/consent {accept}, proven
// by the chat cookie, on the host of the session's brand (else 403
// COBROWSE_WRONG_BRAND).
func (h *Handler) Consent(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	id, err := api.PathID(r, "id")
	if err != nil {
		return err
	}
	var in struct {
		Accept *bool `json:"accept"`
	}
	if err := api.Decode(w, r, &in); err != nil {
		return err
	}
	if in.Accept == nil {
		e := api.NewError(http.StatusBadRequest, "INVALID_FIELD", "cobrowse.error.invalidField")
		e.Field = "accept"
		return e
	}
	secret := chatapi.VisitorCookie.Value(r)
	if secret == "" {
		return chatapi.ErrNoCookie
	}
	sess, vs, err := h.Service.Consent(r.Context(), id, api.SiteOf(r).Brand.ID, secret, *in.Accept, api.ClientIP(r))
	if err != nil {
		return err
	}
	if vs != "" {
		setCookie(w, r, vs)
	}
	api.JSON(w, http.StatusOK, answerOf(sess))
	return nil
}

func (h *Handler) visitorSession(r *http.Request) (Session, error) {
	secret := sessionCookie.Value(r)
	if secret == "" {
		return Session{}, ErrNoSession
	}
	s, err := h.Service.ByVisitor(r.Context(), secret)
	if err != nil {
		return s, err
	}
	if s.Brand != api.SiteOf(r).Brand.ID {
		return s, ErrNoSession
	}
	return s, nil
}

// Current is GET /api/v1/cobrowse/session.
func (h *Handler) Current(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	s, err := h.visitorSession(r)
	return api.Reply(w, http.StatusOK, answerOf(s), err)
}

// End is POST /api/v1/cobrowse/session/end.
func (h *Handler) End(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	s, err := h.visitorSession(r)
	if err != nil {
		return err
	}
	if s, err = h.Service.End(r.Context(), Actor{IP: api.ClientIP(r)}, s.ID, ReasonVisitor); err != nil {
		return err
	}
	api.JSON(w, http.StatusOK, answerOf(s))
	return nil
}

// Socket is GET /api/v1/cobrowse/socket: the visitor's WebSocket (same
// origin, the co-browse cookie; no live session: 4404 after the upgrade).
func (h *Handler) Socket(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	if !chatapi.SameOrigin(r) {
		return chatapi.ErrCrossOrigin
	}
	if sessionCookie.Value(r) == "" {
		return ErrNoCookie
	}
	s, serr := h.visitorSession(r)
	if serr != nil && !errors.Is(serr, ErrNoSession) {
		return serr
	}
	conn, err := sockets.Accept(w, r, MaxEventBytes+1024)
	if err != nil {
		return nil
	}
	if serr != nil || !s.Live() || s.Status == StatusPending {
		_ = conn.Close(CloseUnknown, "no live session")
		return nil
	}
	go h.Hub.serveVisitor(conn, s, sockets.LogContext(r))
	return nil
}

// ConsoleHandler serves the agents' co-browse calls and viewer socket on
// the console host (route kind ConsoleChat); every action is audited.
type ConsoleHandler struct {
	Service *Service
	Hub     *Hub
	// Session, when set, gives a viewer socket the check of the staff
	// session it opened with; each of the viewer's pings re-runs it, so a
	// staff member signed out, expired or disabled stops watching (4401)
	// and one whose brands changed too (4403).
	Session func(r *http.Request) func(context.Context) (staff.Principal, error)
}

func principal(r *http.Request) (Actor, error) {
	p, ok := staff.PrincipalFrom(r.Context())
	if !ok || p.ID == "" {
		return Actor{}, staff.ErrSignInRequired
	}
	return Actor{Staff: p, IP: api.ClientIP(r)}, nil
}

// Request is POST /api/console/v1/chat/conversations/{id}/cobrowse.
func (h *ConsoleHandler) Request(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	who, err := principal(r)
	if err != nil {
		return err
	}
	id, err := api.PathID(r, "id")
	if err != nil {
		return err
	}
	s, err := h.Service.RequestFromChat(r.Context(), who, id)
	return api.Reply(w, http.StatusCreated, answerOf(s), err)
}

// Join is POST /api/console/v1/cobrowse/join {code}.
func (h *ConsoleHandler) Join(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	who, err := principal(r)
	if err != nil {
		return err
	}
	var in struct {
		Code string `json:"code"`
	}
	if err := api.Decode(w, r, &in); err != nil {
		return err
	}
	s, err := h.Service.Join(r.Context(), who, in.Code)
	return api.Reply(w, http.StatusOK, answerOf(s), err)
}

// held is the session of {id} when the staff member is its agent: a brand
// not served is 403 (audited), another agent's 409 NOT_HOLDER.
func (h *ConsoleHandler) held(r *http.Request, who Actor) (Session, error) {
	id, err := api.PathID(r, "id")
	if err != nil {
		return Session{}, err
	}
	s, err := h.Service.Get(r.Context(), id)
	if err != nil {
		return s, err
	}
	if !who.Staff.Serves(s.Brand) {
		_ = h.Service.audit(context.WithoutCancel(r.Context()), h.Service.DB, who, s, audit.ConsoleForbidden, "forbidden_brand")
		return s, ErrForbiddenBrand
	}
	if s.AgentID != who.Staff.ID {
		return s, ErrNotHolder
	}
	return s, nil
}

// End is POST /api/console/v1/cobrowse/sessions/{id}/end.
func (h *ConsoleHandler) End(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	who, err := principal(r)
	if err != nil {
		return err
	}
	s, err := h.held(r, who)
	if err != nil {
		return err
	}
	if s, err = h.Service.End(r.Context(), who, s.ID, ReasonAgent); err != nil {
		return err
	}
	api.JSON(w, http.StatusOK, answerOf(s))
	return nil
}

// The viewer socket's refusals, after the upgrade (a status before it
// shows as 1006 in a browser, which would reconnect for ever): the
// console does not reconnect after any of them.
const (
	// CloseSignedOut: no valid staff session (signed out, expired).
	CloseSignedOut websocket.StatusCode = 4401
	// CloseForbidden: a brand the staff member does not serve (audited
	// console.forbidden, once per attempt).
	CloseForbidden websocket.StatusCode = 4403
	// CloseNotHolder: another agent's session.
	CloseNotHolder websocket.StatusCode = 4409
)

var refusalReason = map[websocket.StatusCode]string{CloseSignedOut: "signed out", CloseForbidden: "forbidden brand",
	CloseNotHolder: "not holder", CloseUnknown: "no session"}

// viewerRefusal is the close code of a refusal of the viewer socket (0:
// none of the known ones; the error answers before the upgrade).
func viewerRefusal(err error) websocket.StatusCode {
	switch {
	case errors.Is(err, staff.ErrSignInRequired):
		return CloseSignedOut
	case errors.Is(err, ErrForbiddenBrand):
		return CloseForbidden
	case errors.Is(err, ErrNotHolder):
		return CloseNotHolder
	case errors.Is(err, ErrNotFound), errors.Is(err, api.ErrNotFound):
		return CloseUnknown
	}
	var e *api.Error
	if errors.As(err, &e) && e.Status == http.StatusBadRequest {
		return CloseUnknown // not an id: no such session
	}
	return 0
}

// Socket is GET /api/console/v1/cobrowse/sessions/{id}/socket?after=N: the
// agent's viewer (route kind ConsoleSocket). Refusals come after the
// upgrade as close codes: 4401 not signed in, 4403 a brand not served,
// 4409 another agent's, 4404 unknown or not active. Each connection is
// audited and asks the visitor for a full snapshot.
func (h *ConsoleHandler) Socket(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	if !chatapi.SameOrigin(r) {
		return chatapi.ErrCrossOrigin
	}
	who, err := principal(r)
	var s Session
	if err == nil {
		s, err = h.held(r, who)
	}
	code := viewerRefusal(err)
	if err != nil && code == 0 {
		return err
	}
	after, err := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	if err != nil || after < 0 {
		after = 0
	}
	conn, aerr := sockets.Accept(w, r, MaxPointer+1024)
	if aerr != nil {
		return nil
	}
	if code != 0 {
		_ = conn.Close(code, refusalReason[code])
		return nil
	}
	if s.Status != StatusActive {
		_ = conn.Close(CloseUnknown, "session not active")
		return nil
	}
	_ = audit.Record(context.WithoutCancel(r.Context()), h.Service.DB, audit.Event{At: h.Service.now(), Brand: staff.AuditBrand,
		AccountID: who.Staff.ID, IP: who.IP, Event: audit.CobrowseJoin, Outcome: "viewer", Detail: detail(s, ""), Actor: who.Staff.Actor()})
	if err := h.Service.RequestSnapshot(r.Context(), s.ID); err != nil {
		_ = conn.Close(websocket.StatusInternalError, "")
		return nil
	}
	var check func(context.Context) (staff.Principal, error)
	if h.Session != nil {
		check = h.Session(r)
	}
	go h.Hub.serveViewer(conn, s, who, after, check, sockets.LogContext(r))
	return nil
}
