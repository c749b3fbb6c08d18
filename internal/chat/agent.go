package chat

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"guichet/internal/brand"
	"guichet/internal/staff"
	"guichet/internal/store"
)

// Agent availability statuses.
const (
	AgentAvailable = "available"
	AgentAway      = "away"
)

// Agent is a staff member's chat presence joined with their account.
type Agent struct {
	ID, Name       string
	Role           staff.Role
	Brands         []string // empty: every brand
	Status         string
	Languages      []string
	HeartbeatAt    int64
	LastAssignedAt int64
}

// Present tells whether the agent is available with a fresh heartbeat.
func (a Agent) Present(now time.Time) bool {
	return a.Status == AgentAvailable && now.UnixMilli()-a.HeartbeatAt <= PresenceWindow.Milliseconds()
}

// Serves tells whether the agent takes conversations of brand in language.
func (a Agent) Serves(brandID, language string) bool {
	return (len(a.Brands) == 0 || slices.Contains(a.Brands, brandID)) && slices.Contains(a.Languages, language)
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// agentSelect reads the enabled staff members (staff.MembersSQL) with
// their chat presence: one query, on the path of every visitor's chat
// configuration.
var agentSelect = `SELECT s.id, s.name, s.role, s.brands, COALESCE(a.status, 'away'), COALESCE(a.languages, ''),
	COALESCE(a.heartbeat_at, 0), COALESCE(a.last_assigned_at, 0)
	FROM ` + staff.MembersSQL() + ` s LEFT JOIN chat_agents a ON a.staff_id = s.id`

func scanAgents(rows *sql.Rows) ([]Agent, error) {
	defer rows.Close()
	var out []Agent
	for rows.Next() {
		var a Agent
		var role, brands, langs string
		if err := rows.Scan(&a.ID, &a.Name, &role, &brands, &a.Status, &langs, &a.HeartbeatAt, &a.LastAssignedAt); err != nil {
			return nil, err
		}
		a.Role, a.Brands, a.Languages = staff.Role(role), staff.ParseBrands(brands), splitList(langs)
		out = append(out, a)
	}
	return out, rows.Err()
}

// presentAgents are the agents available now with a fresh heartbeat.
func (s *Service) presentAgents(ctx context.Context, q querier) ([]Agent, error) {
	now := s.now()
	rows, err := q.Query(ctx, agentSelect+" WHERE a.status = 'available' AND a.heartbeat_at >= ?", store.Millis(now.Add(-PresenceWindow)))
	if err != nil {
		return nil, fmt.Errorf("chat agents: %w", err)
	}
	return scanAgents(rows)
}

// Agent reads one staff member's chat presence; ErrNotFound when the
// account is unknown or disabled.
func (s *Service) Agent(ctx context.Context, id string) (Agent, error) { return s.agent(ctx, s.DB, id) }

// agent reads one staff member's chat presence.
func (s *Service) agent(ctx context.Context, q querier, id string) (Agent, error) {
	rows, err := q.Query(ctx, agentSelect+" WHERE s.id = ?", id)
	if err != nil {
		return Agent{}, err
	}
	list, err := scanAgents(rows)
	if err != nil {
		return Agent{}, err
	}
	if len(list) == 0 {
		return Agent{}, ErrNotFound
	}
	return list[0], nil
}

// Availability is whether a visitor of a brand, province and language can
// chat now, and when chat next opens.
type Availability struct {
	Open bool
	// Reason: open, closed (outside hours), no-agent (in hours, nobody
	// available for that brand and language), no-hours (never opens).
	Reason   string
	NextOpen time.Time // zero when open now or never opens
}

// refusal is why a chat cannot start now: ErrNoAgent in opening hours,
// ErrClosed otherwise.
func (a Availability) refusal() error {
	if a.Reason == "no-agent" {
		return ErrNoAgent
	}
	return ErrClosed
}

// Availability reads the hours (brand.Open, in the province's zone) and
// the agents present for the brand and language.
func (s *Service) Availability(ctx context.Context, b *brand.Brand, province, language string) (Availability, error) {
	now := s.now()
	next, ever := b.NextOpen(province, now)
	if !ever {
		return Availability{Reason: "no-hours"}, nil
	}
	if !b.Open(province, now) {
		return Availability{Reason: "closed", NextOpen: next}, nil
	}
	agents, err := s.presentAgents(ctx, s.DB)
	if err != nil {
		return Availability{}, err
	}
	for _, a := range agents {
		if a.Serves(b.ID, language) {
			return Availability{Open: true, Reason: "open"}, nil
		}
	}
	return Availability{Reason: "no-agent"}, nil
}

// SetAvailability records an agent going available (with the languages
// they take) or away, and counts as a heartbeat.
func (s *Service) SetAvailability(ctx context.Context, staffID, status string, languages []string) error {
	if status != AgentAvailable && status != AgentAway {
		return InvalidField("status")
	}
	var langs []string
	for _, l := range languages {
		if l != "en" && l != "fr" {
			return InvalidField("languages")
		}
		if !slices.Contains(langs, l) {
			langs = append(langs, l)
		}
	}
	if status == AgentAvailable && len(langs) == 0 {
		return InvalidField("languages")
	}
	slices.Sort(langs)
	now := store.Millis(s.now())
	_, err := s.DB.Exec(ctx, `INSERT INTO chat_agents (staff_id, status, languages, heartbeat_at, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (staff_id) DO UPDATE SET status = excluded.status, languages = excluded.languages,
		heartbeat_at = excluded.heartbeat_at, updated_at = excluded.updated_at`, staffID, status, strings.Join(langs, ","), now, now)
	if err != nil {
		return fmt.Errorf("chat availability: %w", err)
	}
	if status == AgentAvailable {
		if err := s.AssignWaiting(ctx); err != nil {
			return err
		}
	}
	s.notify(ctx, "", true)
	return nil
}

// AssignWaiting gives the conversations waiting on brands with
// chat.autoAssign, oldest first, to agents with room: a conversation queued
// while every agent was busy or away goes out when one becomes available
// or ends a conversation, not only when the next visitor arrives.
func (s *Service) AssignWaiting(ctx context.Context) error {
	// Only brands with autoAssign that have someone waiting take the
	// write transaction.
	rows, err := s.DB.Query(ctx, "SELECT DISTINCT brand FROM chat_conversations WHERE status = 'waiting' AND kind = 'live'")
	if err != nil {
		return fmt.Errorf("chat auto-assign: %w", err)
	}
	var auto []any
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		if b, ok := s.Brands(id); ok && b.Chat.AutoAssign {
			auto = append(auto, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(auto) == 0 {
		return nil
	}
	var assigned []string
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		assigned = assigned[:0]
		// Oldest wait first, as the queue shows it (waiting_since: a bot
		// conversation handed over late waits behind those queued before).
		rows, err := tx.Query(ctx, "SELECT id, brand FROM chat_conversations WHERE status = 'waiting' AND kind = 'live' AND brand IN ("+
			store.Placeholders(len(auto))+") ORDER BY waiting_since, id", auto...)
		if err != nil {
			return err
		}
		type waiting struct{ id, brand string }
		list, err := store.Collect(rows, func(r *sql.Rows) (waiting, error) {
			var w waiting
			err := r.Scan(&w.id, &w.brand)
			return w, err
		})
		if err != nil {
			return err
		}
		for _, w := range list {
			b, ok := s.Brands(w.brand)
			if !ok || !b.Chat.AutoAssign {
				continue
			}
			before, err := getConversation(ctx, tx, w.id)
			if err != nil {
				return err
			}
			if err := s.autoAssign(ctx, tx, b, w.id); err != nil && !errors.Is(err, ErrAlreadyTaken) && !errors.Is(err, ErrEnded) {
				return err
			}
			after, err := getConversation(ctx, tx, w.id)
			if err != nil {
				return err
			}
			if after.Status != before.Status {
				assigned = append(assigned, w.id)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("chat auto-assign: %w", err)
	}
	for _, id := range assigned {
		s.notify(ctx, id, true)
	}
	return nil
}

// StaffActive: the staff account exists and is not disabled
// (ErrSignedOut otherwise).
func (s *Service) StaffActive(ctx context.Context, staffID string) error {
	ok, err := staff.Enabled(ctx, s.DB, staffID)
	if err != nil {
		return fmt.Errorf("chat staff: %w", err)
	}
	if !ok {
		return ErrSignedOut
	}
	return nil
}

// Heartbeat keeps an agent present (their socket's ping).
func (s *Service) Heartbeat(ctx context.Context, staffID string) error {
	_, err := s.DB.Exec(ctx, "UPDATE chat_agents SET heartbeat_at = ? WHERE staff_id = ?", store.Millis(s.now()), staffID)
	return err
}

// activeCount is how many active conversations an agent holds.
func activeCount(ctx context.Context, q querier, staffID string) (int, error) {
	var n int
	err := q.QueryRow(ctx, "SELECT COUNT(*) FROM chat_conversations WHERE agent_id = ? AND status = 'active'", staffID).Scan(&n)
	return n, err
}

// ensureAgentRow makes the agent's chat_agents row exist and takes its lock
// for the transaction, so an agent's accepts run one after the other (the
// limit holds under concurrency).
func ensureAgentRow(ctx context.Context, tx *store.Tx, staffID string, now int64) error {
	if _, err := tx.Exec(ctx, `INSERT INTO chat_agents (staff_id, status, languages, updated_at) VALUES (?, 'away', '', ?)
		ON CONFLICT (staff_id) DO NOTHING`, staffID, now); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE chat_agents SET updated_at = ? WHERE staff_id = ?", now, staffID)
	return err
}

// Accept gives a waiting conversation to the agent: a conditional update,
// so of two agents accepting at once exactly one wins (the other gets
// ALREADY_TAKEN); AGENT_LIMIT past the brand's maxPerAgent.
func (s *Service) Accept(ctx context.Context, p staff.Principal, id string) (Conversation, error) {
	c, err := s.Get(ctx, id)
	if err != nil {
		return c, err
	}
	if !p.Serves(c.Brand) {
		return c, ErrForbiddenBrand
	}
	b, ok := s.Brands(c.Brand)
	if !ok {
		return c, ErrNotFound
	}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		return s.assignTx(ctx, tx, b, id, p.ID, p.Name, store.Millis(s.now()), StatusWaiting, "")
	})
	if err != nil {
		return c, err
	}
	s.notify(ctx, id, true)
	return s.Get(ctx, id)
}

// assignTx gives conversation id (in status from) to an agent in tx; a
// transfer (from active) moves it only from holder.
func (s *Service) assignTx(ctx context.Context, tx *store.Tx, b *brand.Brand, id, staffID, name string, now int64, from, holder string) error {
	if err := ensureAgentRow(ctx, tx, staffID, now); err != nil {
		return err
	}
	n, err := activeCount(ctx, tx, staffID)
	if err != nil {
		return err
	}
	if n >= b.ChatMaxPerAgent() {
		return ErrAgentLimit
	}
	var res sql.Result
	if from == StatusWaiting {
		res, err = tx.Exec(ctx, `UPDATE chat_conversations SET status = 'active', agent_id = ?, agent_name = ?, accepted_at = ?,
			version = version + 1, updated_at = ? WHERE id = ? AND status = 'waiting' AND kind = 'live'`, staffID, name, now, now, id)
	} else {
		res, err = tx.Exec(ctx, `UPDATE chat_conversations SET agent_id = ?, agent_name = ?, agent_typing = 0,
			version = version + 1, updated_at = ? WHERE id = ? AND status = 'active' AND agent_id = ?`, staffID, name, now, id, holder)
	}
	if err != nil {
		return err
	}
	if k, _ := res.RowsAffected(); k == 0 {
		c, err := getConversation(ctx, tx, id)
		if err != nil {
			return err
		}
		if c.Status == StatusEnded {
			return ErrEnded
		}
		if from == StatusWaiting && c.Kind == KindOffline {
			return ErrWrongStatus
		}
		if from == StatusActive && c.Status == StatusActive {
			return ErrNotHolder
		}
		return ErrAlreadyTaken
	}
	if _, err := tx.Exec(ctx, "UPDATE chat_agents SET last_assigned_at = ? WHERE staff_id = ?", now, staffID); err != nil {
		return err
	}
	key := SystemAgentJoined
	if from != StatusWaiting {
		key = SystemTransferred
	} else if err := s.Metrics.took(ctx, tx, id, now); err != nil {
		return err
	}
	_, _, err = appendMessage(ctx, tx, systemMessage(id, key, name, now))
	return err
}

// autoAssign gives a conversation just queued to the available agent
// serving its brand and language with the fewest active conversations
// (ties: the one given a conversation longest ago); it stays in the queue
// when every such agent is at the limit.
func (s *Service) autoAssign(ctx context.Context, tx *store.Tx, b *brand.Brand, id string) error {
	c, err := getConversation(ctx, tx, id)
	if err != nil {
		return err
	}
	agents, err := s.presentAgents(ctx, tx)
	if err != nil {
		return err
	}
	type candidate struct {
		a      Agent
		active int
	}
	var best *candidate
	for _, a := range agents {
		if !a.Serves(c.Brand, c.Language) {
			continue
		}
		n, err := activeCount(ctx, tx, a.ID)
		if err != nil {
			return err
		}
		if n >= b.ChatMaxPerAgent() {
			continue
		}
		if best == nil || n < best.active || n == best.active && (a.LastAssignedAt < best.a.LastAssignedAt ||
			a.LastAssignedAt == best.a.LastAssignedAt && a.ID < best.a.ID) {
			best = &candidate{a, n}
		}
	}
	if best == nil {
		return nil
	}
	return s.assignTx(ctx, tx, b, id, best.a.ID, best.a.Name, store.Millis(s.now()), StatusWaiting, "")
}

// Transfer hands an active conversation from its agent (or a supervisor)
// to another agent who is present, serves the brand and language and is
// under the limit.
func (s *Service) Transfer(ctx context.Context, p staff.Principal, id, target string) (Conversation, error) {
	c, err := s.Get(ctx, id)
	if err != nil {
		return c, err
	}
	if !p.Serves(c.Brand) {
		return c, ErrForbiddenBrand
	}
	if c.Status != StatusActive {
		return c, ErrWrongStatus
	}
	if c.AgentID != p.ID && !p.Role.AtLeast(staff.RoleSupervisor) {
		return c, ErrNotHolder
	}
	b, ok := s.Brands(c.Brand)
	if !ok {
		return c, ErrNotFound
	}
	to, err := s.agent(ctx, s.DB, target)
	if errors.Is(err, ErrNotFound) || err == nil && (target == c.AgentID || !to.Present(s.now()) || !to.Serves(c.Brand, c.Language)) {
		return c, ErrTargetUnavailable
	}
	if err != nil {
		return c, err
	}
	if s.BeforeTx != nil {
		s.BeforeTx()
	}
	var after func(context.Context)
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		after = nil
		// The holder checked again under the conversation's lock: a
		// supervisor's transfer meanwhile wins.
		now := store.Millis(s.now())
		cur, err := lockConversation(ctx, tx, id, now)
		if err != nil {
			return err
		}
		if cur.Status != StatusActive {
			return ErrWrongStatus
		}
		if cur.AgentID != p.ID && !p.Role.AtLeast(staff.RoleSupervisor) {
			return ErrNotHolder
		}
		if cur.AgentID == to.ID {
			return ErrTargetUnavailable
		}
		if err := s.assignTx(ctx, tx, b, id, to.ID, to.Name, now, StatusActive, cur.AgentID); err != nil {
			return err
		}
		if s.OnTransfer != nil {
			after, err = s.OnTransfer(ctx, tx, id, p, time.UnixMilli(now))
		}
		return err
	})
	if err != nil {
		return c, err
	}
	s.notify(ctx, id, true)
	if after != nil {
		after(ctx)
	}
	return s.Get(ctx, id)
}

// AgentSend stores an agent's message in a conversation they hold.
// errResent rolls back a send whose client id is stored already.
var errResent = errors.New("chat: message stored already")

// agentSendRefused is why an agent's message was refused, read in its
// transaction with the conversation's lock: unknown or ended first, then
// not the holder, then a staff session ended (signed out, expired) or an
// account disabled since the socket opened.
func agentSendRefused(ctx context.Context, tx *store.Tx, p staff.Principal, id string, now int64) error {
	c, err := lockLive(ctx, tx, id, now)
	if err != nil {
		return err
	}
	if c.Status != StatusActive || c.AgentID != p.ID {
		return ErrNotHolder
	}
	live, args := p.LiveSQL(time.UnixMilli(now))
	var n int
	if err := tx.QueryRow(ctx, "SELECT CASE WHEN "+live+" THEN 1 ELSE 0 END", args...).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return ErrSignedOut
	}
	return fmt.Errorf("chat: send to %s refused for no known reason", id)
}

func (s *Service) AgentSend(ctx context.Context, p staff.Principal, id, clientID, body string) (Message, error) {
	body, err := cleanBody(body)
	if err != nil {
		return Message{}, err
	}
	if len(clientID) > 64 {
		return Message{}, InvalidField("clientId")
	}
	m := Message{ConversationID: id, ClientID: clientID, Sender: SenderAgent, AgentID: p.ID, AgentName: p.Name, Body: body}
	var stored Message
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		m.At = store.Millis(s.now())
		// One statement locks the row, checks the agent still holds the
		// conversation and that their session is signed in and their
		// account enabled (staff.Principal.LiveSQL: the first message after
		// a sign-out or a disable is refused, whatever the socket's last
		// check), takes the next seq and clears the typing flag, and the
		// insert skips a client id stored already: a message costs four
		// round trips to PostgreSQL (with BEGIN and COMMIT), not nine (the
		// latency bench of docs/benchmarks.md).
		live, args := p.LiveSQL(time.UnixMilli(m.At))
		err := tx.QueryRow(ctx, `UPDATE chat_conversations SET last_seq = last_seq + 1, updated_at = ?, agent_typing = 0
			WHERE id = ? AND status = ? AND agent_id = ? AND `+live+` RETURNING last_seq`,
			append([]any{m.At, id, StatusActive, p.ID}, args...)...).Scan(&m.Seq)
		if errors.Is(err, sql.ErrNoRows) {
			return agentSendRefused(ctx, tx, p, id, m.At)
		}
		if err != nil {
			return fmt.Errorf("chat seq: %w", err)
		}
		added, err := insertMessage(ctx, tx, m)
		if err != nil || added {
			stored = m
			return err
		}
		// A resend of a message stored already: its ack, and the seq
		// taken above is given back by the rollback.
		if stored, err = messageByClientID(ctx, tx, id, SenderAgent, clientID); err != nil {
			return err
		}
		return errResent
	})
	if errors.Is(err, errResent) {
		return stored, nil
	}
	if err != nil {
		return Message{}, err
	}
	s.notify(ctx, id, false)
	return stored, nil
}
