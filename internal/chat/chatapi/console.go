package chatapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"guichet/internal/api"
	"guichet/internal/audit"
	"guichet/internal/brand"
	"guichet/internal/chat"
	"guichet/internal/chat/hub"
	"guichet/internal/sockets"
	"guichet/internal/staff"
)

// ConsoleHandler serves the agents' chat API and socket on the console
// host (routes of kind ConsoleChat: a staff session, no fresh second
// factor: chatting is routine). Every action is audited with the staff id.
type ConsoleHandler struct {
	Service *chat.Service
	Hub     *hub.Hub
	// AllBrands lists the brands (canned replies, limits).
	AllBrands func() []*brand.Brand
	// Session gives the check of a request's staff session that its socket
	// re-runs on each ping and at least every minute (nil: the socket
	// re-checks the account only).
	Session func(r *http.Request) func(ctx context.Context, active bool) (staff.Principal, error)
}

func (h *ConsoleHandler) principal(r *http.Request, min staff.Role) (staff.Principal, error) {
	p, ok := staff.PrincipalFrom(r.Context())
	if !ok || p.ID == "" {
		return p, staff.ErrSignInRequired
	}
	if !p.Role.AtLeast(min) {
		h.audit(r, p, audit.ConsoleForbidden, "forbidden_role", "")
		return p, ErrForbiddenRole
	}
	return p, nil
}

// as serves a request of a staff member of at least role min as serve
// says, the errors of both mapped as the API answers them.
func (h *ConsoleHandler) as(r *http.Request, min staff.Role, serve func(p staff.Principal) error) (err error) {
	defer mapped(&err)
	p, err := h.principal(r, min)
	if err != nil {
		return err
	}
	return serve(p)
}

func (h *ConsoleHandler) audit(r *http.Request, p staff.Principal, event audit.Name, outcome, detail string) {
	h.Service.AuditStaff(context.WithoutCancel(r.Context()), api.ClientIP(r), p, event, outcome, detail)
}

// done audits an action's outcome: ok, or the error code.
func (h *ConsoleHandler) done(r *http.Request, p staff.Principal, event audit.Name, detail string, err error) error {
	outcome := "ok"
	if err != nil {
		outcome = "error"
		if code, ok := errorCode(err); ok {
			outcome = code
		}
		if errors.Is(err, chat.ErrForbiddenBrand) {
			h.audit(r, p, audit.ConsoleForbidden, "forbidden_brand", detail)
		}
	}
	h.audit(r, p, event, outcome, detail)
	return err
}

type availability struct {
	Status    string   `json:"status"`
	Languages []string `json:"languages"`
}

// GetAvailability is GET /api/console/v1/chat/availability.
func (h *ConsoleHandler) GetAvailability(w http.ResponseWriter, r *http.Request) error {
	return h.as(r, staff.RoleAgent, func(p staff.Principal) error {
		a, err := h.Service.Agent(r.Context(), p.ID)
		if err != nil {
			return err
		}
		status := chat.AgentAway
		if a.Present(h.Service.Clock()) {
			status = chat.AgentAvailable
		}
		api.JSON(w, http.StatusOK, availability{Status: status, Languages: append([]string{}, a.Languages...)})
		return nil
	})
}

// PutAvailability is PUT /api/console/v1/chat/availability.
func (h *ConsoleHandler) PutAvailability(w http.ResponseWriter, r *http.Request) error {
	return h.as(r, staff.RoleAgent, func(p staff.Principal) error {
		var in availability
		if err := api.Decode(w, r, &in); err != nil {
			return err
		}
		err := h.Service.SetAvailability(r.Context(), p.ID, in.Status, in.Languages)
		if err := h.done(r, p, audit.ChatAvailability, in.Status, err); err != nil {
			return err
		}
		return h.GetAvailability(w, r)
	})
}

// Queue is GET /api/console/v1/chat/queue.
func (h *ConsoleHandler) Queue(w http.ResponseWriter, r *http.Request) error {
	return h.as(r, staff.RoleAgent, func(p staff.Principal) error {
		q, err := h.Service.Queue(r.Context(), p)
		return api.Reply(w, http.StatusOK, q, err)
	})
}

func (h *ConsoleHandler) conversationAction(w http.ResponseWriter, r *http.Request, event audit.Name,
	act func(p staff.Principal, id string) (chat.Conversation, error)) error {
	return h.as(r, staff.RoleAgent, func(p staff.Principal) error {
		id, err := api.PathID(r, "id")
		if err != nil {
			return err
		}
		c, err := act(p, id)
		if err := h.done(r, p, event, id, err); err != nil {
			return err
		}
		api.JSON(w, http.StatusOK, chat.ItemOf(c))
		return nil
	})
}

// Accept is POST /api/console/v1/chat/conversations/{id}/accept.
func (h *ConsoleHandler) Accept(w http.ResponseWriter, r *http.Request) error {
	return h.conversationAction(w, r, audit.ChatAccept, func(p staff.Principal, id string) (chat.Conversation, error) {
		return h.Service.Accept(r.Context(), p, id)
	})
}

// Transfer is POST /api/console/v1/chat/conversations/{id}/transfer.
func (h *ConsoleHandler) Transfer(w http.ResponseWriter, r *http.Request) (err error) {
	defer mapped(&err)
	var in struct {
		StaffID string `json:"staffId"`
	}
	if err := api.Decode(w, r, &in); err != nil {
		return err
	}
	if err := chat.CheckID("staffId", in.StaffID); err != nil {
		return err
	}
	return h.conversationAction(w, r, audit.ChatTransfer, func(p staff.Principal, id string) (chat.Conversation, error) {
		return h.Service.Transfer(r.Context(), p, id, in.StaffID)
	})
}

// End is POST /api/console/v1/chat/conversations/{id}/end.
func (h *ConsoleHandler) End(w http.ResponseWriter, r *http.Request) error {
	return h.conversationAction(w, r, audit.ChatEnd, func(p staff.Principal, id string) (chat.Conversation, error) {
		return h.Service.EndBy(r.Context(), p, id)
	})
}

// Reply is POST /api/console/v1/chat/conversations/{id}/reply: the answer
// to an offline message, by email.
func (h *ConsoleHandler) Reply(w http.ResponseWriter, r *http.Request) error {
	return h.as(r, staff.RoleAgent, func(p staff.Principal) error {
		var in struct {
			Body string `json:"body"`
		}
		id, err := api.PathAndBody(w, r, "id", &in)
		if err != nil {
			return err
		}
		err = h.Service.ReplyOffline(r.Context(), p, id, in.Body)
		if err := h.done(r, p, audit.ChatOfflineReply, id, err); err != nil {
			return err
		}
		api.JSON(w, http.StatusAccepted, map[string]string{"status": "queued"})
		return nil
	})
}

// chat.Conversation is GET /api/console/v1/chat/conversations/{id}: the item
// and its transcript, for the agent holding it, any agent of its brand
// while it waits or is offline, supervisors of its brand always.
func (h *ConsoleHandler) Conversation(w http.ResponseWriter, r *http.Request) error {
	return h.as(r, staff.RoleAgent, func(p staff.Principal) error {
		id, err := api.PathID(r, "id")
		if err != nil {
			return err
		}
		c, err := h.Service.Get(r.Context(), id)
		if err == nil {
			err = chat.CanRead(p, c)
		}
		if err := h.done(r, p, audit.ChatTranscriptView, id, err); err != nil {
			return err
		}
		msgs, err := h.Service.Messages(r.Context(), id, 0, 0)
		if err != nil {
			return err
		}
		frames := make([]MessageFrame, 0, len(msgs))
		for _, m := range msgs {
			frames = append(frames, Frame(m, id))
		}
		api.JSON(w, http.StatusOK, map[string]any{"item": chat.ItemOf(c), "messages": frames})
		return nil
	})
}

// Agents is GET /api/console/v1/chat/agents (for a transfer).
func (h *ConsoleHandler) Agents(w http.ResponseWriter, r *http.Request) error {
	return h.as(r, staff.RoleAgent, func(p staff.Principal) error {
		list, err := h.Service.AvailableAgents(r.Context(), p, func(id string) int {
			if b, ok := h.Service.Brands(id); ok {
				return b.ChatMaxPerAgent()
			}
			return brand.DefaultMaxPerAgent
		})
		return api.Reply(w, http.StatusOK, list, err)
	})
}

// Canned is GET /api/console/v1/chat/canned: per brand served, per language.
func (h *ConsoleHandler) Canned(w http.ResponseWriter, r *http.Request) error {
	return h.as(r, staff.RoleAgent, func(p staff.Principal) error {
		out := map[string]brand.CannedReplies{}
		for _, b := range h.AllBrands() {
			if p.Serves(b.ID) {
				c := b.Chat.Canned
				if c.EN == nil {
					c.EN = []string{}
				}
				if c.FR == nil {
					c.FR = []string{}
				}
				out[b.ID] = c
			}
		}
		api.JSON(w, http.StatusOK, out)
		return nil
	})
}

// Transcripts is GET /api/console/v1/chat/transcripts?q=&from=&to=&brand=&tz=
// (supervisors): dates YYYY-MM-DD, [from, to] as whole days in the zone tz
// (IANA), else the brand's default province's, else that of the first
// brand the supervisor serves; default the last 30 days. Audited with the
// brand and q.
func (h *ConsoleHandler) Transcripts(w http.ResponseWriter, r *http.Request) error {
	return h.as(r, staff.RoleSupervisor, func(p staff.Principal) error {
		qs := r.URL.Query()
		q := qs.Get("q")
		if _, ok := chat.CleanText(q, 100, false); !ok {
			return chat.InvalidField("q")
		}
		b := qs.Get("brand")
		if err := chat.CheckID("brand", b); err != nil {
			return err
		}
		loc, err := h.searchZone(p, b, qs.Get("tz"))
		if err != nil {
			return err
		}
		now := h.Service.Clock()
		from, to := now.AddDate(0, 0, -30), now.Add(time.Minute)
		if v := qs.Get("from"); v != "" {
			if from, err = time.ParseInLocation(time.DateOnly, v, loc); err != nil {
				return chat.InvalidField("from")
			}
		}
		if v := qs.Get("to"); v != "" {
			d, err := time.ParseInLocation(time.DateOnly, v, loc)
			if err != nil {
				return chat.InvalidField("to")
			}
			to = d.AddDate(0, 0, 1)
		}
		detail := "brand=" + b + " q=" + q
		if b != "" && !p.Serves(b) {
			return h.done(r, p, audit.ChatTranscriptSearch, detail, chat.ErrForbiddenBrand)
		}
		items, err := h.Service.Search(r.Context(), p, q, b, from, to)
		if err := h.done(r, p, audit.ChatTranscriptSearch, detail, err); err != nil {
			return err
		}
		api.JSON(w, http.StatusOK, map[string]any{"items": items})
		return nil
	})
}

// searchZone is the zone of a search's dates: tz, else the brand's
// default province's, else the first served brand's, else UTC.
// maxTZ is the longest zone name accepted.
const maxTZ = 64

func (h *ConsoleHandler) searchZone(p staff.Principal, brandID, tz string) (*time.Location, error) {
	if tz != "" {
		if len(tz) > maxTZ || strings.ContainsFunc(tz, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/_-+", r))
		}) || strings.Contains(tz, "..") {
			return nil, chat.InvalidField("tz")
		}
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return nil, chat.InvalidField("tz")
		}
		return loc, nil
	}
	for _, b := range h.AllBrands() {
		if brandID != "" && b.ID != brandID || brandID == "" && !p.Serves(b.ID) {
			continue
		}
		if prov, ok := b.Province(b.DefaultProvince); ok {
			return prov.Location(), nil
		}
	}
	return time.UTC, nil
}

// Figures is GET /api/console/v1/chat/figures (supervisors).
func (h *ConsoleHandler) Figures(w http.ResponseWriter, r *http.Request) error {
	return h.as(r, staff.RoleSupervisor, func(p staff.Principal) error {
		f, err := h.Service.Figures(r.Context(), p)
		return api.Reply(w, http.StatusOK, f, err)
	})
}

// Socket is GET /api/console/v1/chat/socket: the agent's WebSocket (same
// origin only).
func (h *ConsoleHandler) Socket(w http.ResponseWriter, r *http.Request) error {
	return h.as(r, staff.RoleAgent, func(p staff.Principal) error {
		if !SameOrigin(r) {
			return ErrCrossOrigin
		}
		release, ok := h.Hub.Reserve(map[string]int{"staff:" + p.ID: hub.MaxSocketsPerStaff})
		if !ok {
			return chat.ErrRateLimited
		}
		ip := api.ClientIP(r)
		opts := AgentSocketOptions{Audit: func(p staff.Principal, event audit.Name, outcome, detail string) {
			h.Service.AuditStaff(context.Background(), ip, p, event, outcome, detail)
		}}
		if h.Session != nil {
			opts.Check = h.Session(r)
		}
		conn, err := sockets.Accept(w, r, chat.MaxFrameBytes)
		if err != nil {
			release()
			return nil
		}
		log := sockets.LogContext(r)
		go func() {
			defer release()
			serveAgent(h.Hub, h.Service, conn, p, opts, log)
		}()
		return nil
	})
}
