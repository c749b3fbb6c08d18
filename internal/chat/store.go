package chat

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"guichet/internal/chat/bot"
	"guichet/internal/codes"
	"guichet/internal/store"
)

// Conversation is one row of chat_conversations; times are unix ms.
type Conversation struct {
	ID, Brand, Province, Language, Kind, Status string
	VisitorHash                                 string
	Name, Topic, Page, Roadblock                string
	Email, Question                             string
	AccountID, AccountEmail                     string
	AgentID, AgentName                          string
	CreatedAt, WaitingSince, AcceptedAt         int64
	EndedAt, UpdatedAt                          int64
	LastSeq, Version                            int64
	VisitorReadSeq, AgentReadSeq                int64
	VisitorTyping, AgentTyping                  bool
	Rating                                      int
	TranscriptSent                              bool
	// VisitorSeenAt is the visitor's last heartbeat (unix ms).
	VisitorSeenAt int64
}

// Live tells whether the conversation is a live one not ended.
func (c Conversation) Live() bool { return c.Kind == KindLive && c.Status != StatusEnded }

// Message is one row of chat_messages.
type Message struct {
	ConversationID string
	Seq            int64
	ClientID       string
	Sender         string
	AgentID        string
	AgentName      string
	Body           string
	SystemKey      string
	SystemName     string
	Reply          *bot.Reply
	At             int64
}

const conversationColumns = `id, brand, province, language, kind, status, visitor_hash, name, topic, page, roadblock,
	email, question, account_id, account_email, agent_id, agent_name, created_at, waiting_since, accepted_at,
	ended_at, updated_at, last_seq, version, visitor_read_seq, agent_read_seq, visitor_typing, agent_typing,
	rating, transcript_sent, visitor_seen_at`

type scanner interface{ Scan(dest ...any) error }

func scanConversation(sc scanner) (Conversation, error) {
	var c Conversation
	var vt, at, ts int
	err := sc.Scan(&c.ID, &c.Brand, &c.Province, &c.Language, &c.Kind, &c.Status, &c.VisitorHash, &c.Name, &c.Topic,
		&c.Page, &c.Roadblock, &c.Email, &c.Question, &c.AccountID, &c.AccountEmail, &c.AgentID, &c.AgentName,
		&c.CreatedAt, &c.WaitingSince, &c.AcceptedAt, &c.EndedAt, &c.UpdatedAt, &c.LastSeq, &c.Version,
		&c.VisitorReadSeq, &c.AgentReadSeq, &vt, &at, &c.Rating, &ts, &c.VisitorSeenAt)
	c.VisitorTyping, c.AgentTyping, c.TranscriptSent = vt != 0, at != 0, ts != 0
	return c, err
}

// querier is a *store.DB or a *store.Tx.
type querier interface {
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
	Query(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// Get reads a conversation; ErrNotFound when there is none.
func (s *Service) Get(ctx context.Context, id string) (Conversation, error) {
	return getConversation(ctx, s.DB, id)
}

func getConversation(ctx context.Context, q querier, id string) (Conversation, error) {
	c, err := scanConversation(q.QueryRow(ctx, "SELECT "+conversationColumns+" FROM chat_conversations WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNotFound
	}
	if err != nil {
		return c, fmt.Errorf("chat conversation: %w", err)
	}
	return c, nil
}

// joinedColumns is conversationColumns read from the conversation c.
var joinedColumns = func() string {
	cols := strings.Split(conversationColumns, ",")
	for i, c := range cols {
		cols[i] = "c." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}()

// GetWithMessages reads a conversation and its first limit messages after
// seq after in one query (a socket's delivery); ErrNotFound when there is
// none.
func (s *Service) GetWithMessages(ctx context.Context, id string, after int64, limit int) (Conversation, []Message, error) {
	return getWithMessages(ctx, s.DB, id, after, limit)
}

// getWithMessages reads a conversation and its first limit messages after
// seq after in one query (one round trip where Get then Messages took
// two: every delivery to a socket starts with it); ErrNotFound when there
// is none.
func getWithMessages(ctx context.Context, q querier, id string, after int64, limit int) (Conversation, []Message, error) {
	rows, err := q.Query(ctx, "SELECT "+joinedColumns+`, m.seq, m.client_id, m.sender, m.agent_id, m.agent_name,
		m.body, m.system_key, m.system_name, m.reply, m.at
		FROM chat_conversations c LEFT JOIN chat_messages m ON m.conversation_id = c.id AND m.seq > ?
		WHERE c.id = ? ORDER BY m.seq LIMIT ?`, after, id, limit)
	if err != nil {
		return Conversation{}, nil, fmt.Errorf("chat conversation: %w", err)
	}
	defer rows.Close()
	var c Conversation
	var out []Message
	found := false
	for rows.Next() {
		var seq, at sql.NullInt64
		var clientID, sender, agentID, agentName, body, key, name, reply sql.NullString
		row := rowWith{rows, []any{&seq, &clientID, &sender, &agentID, &agentName, &body, &key, &name, &reply, &at}}
		if c, err = scanConversation(row); err != nil {
			return Conversation{}, nil, fmt.Errorf("chat conversation: %w", err)
		}
		found = true
		if !seq.Valid {
			continue
		}
		m := Message{ConversationID: id, Seq: seq.Int64, ClientID: clientID.String, Sender: sender.String,
			AgentID: agentID.String, AgentName: agentName.String, Body: body.String, SystemKey: key.String,
			SystemName: name.String, At: at.Int64}
		if reply.String != "" {
			m.Reply = new(bot.Reply)
			if err := json.Unmarshal([]byte(reply.String), m.Reply); err != nil {
				return Conversation{}, nil, fmt.Errorf("chat message reply: %w", err)
			}
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return Conversation{}, nil, fmt.Errorf("chat conversation: %w", err)
	}
	if !found {
		return Conversation{}, nil, ErrNotFound
	}
	return c, out, nil
}

// rowWith scans a row's leading columns with scanConversation and the rest
// into more.
type rowWith struct {
	rows *sql.Rows
	more []any
}

func (r rowWith) Scan(dest ...any) error { return r.rows.Scan(append(dest, r.more...)...) }

// ByVisitor is the visitor cookie's conversation, the latest one; ErrNoConversation without.
func (s *Service) ByVisitor(ctx context.Context, secret string) (Conversation, error) {
	if secret == "" || len(secret) > 64 {
		return Conversation{}, ErrNoConversation
	}
	return byVisitor(ctx, s.DB, codes.TokenHash(secret))
}

func byVisitor(ctx context.Context, q querier, hash string) (Conversation, error) {
	c, err := scanConversation(q.QueryRow(ctx, "SELECT "+conversationColumns+
		" FROM chat_conversations WHERE visitor_hash = ? ORDER BY created_at DESC LIMIT 1", hash))
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNoConversation
	}
	if err != nil {
		return c, fmt.Errorf("chat visitor: %w", err)
	}
	return c, nil
}

func (s *Service) listConversations(ctx context.Context, q querier, where string, args ...any) ([]Conversation, error) {
	rows, err := q.Query(ctx, "SELECT "+conversationColumns+" FROM chat_conversations WHERE "+where, args...)
	if err != nil {
		return nil, fmt.Errorf("chat conversations: %w", err)
	}
	return store.Collect(rows, func(rows *sql.Rows) (Conversation, error) { return scanConversation(rows) })
}

// Messages are a conversation's messages with seq > after, in seq order
// (at most limit; 0 for all).
func (s *Service) Messages(ctx context.Context, convID string, after int64, limit int) ([]Message, error) {
	return messages(ctx, s.DB, convID, after, limit)
}

func messages(ctx context.Context, q querier, convID string, after int64, limit int) ([]Message, error) {
	if limit <= 0 {
		limit = 1 << 30
	}
	rows, err := q.Query(ctx, `SELECT seq, client_id, sender, agent_id, agent_name, body, system_key, system_name, reply, at
		FROM chat_messages WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?`, convID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("chat messages: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		m := Message{ConversationID: convID}
		var clientID sql.NullString
		var reply string
		if err := rows.Scan(&m.Seq, &clientID, &m.Sender, &m.AgentID, &m.AgentName, &m.Body, &m.SystemKey, &m.SystemName, &reply, &m.At); err != nil {
			return nil, err
		}
		m.ClientID = clientID.String
		if reply != "" {
			m.Reply = new(bot.Reply)
			if err := json.Unmarshal([]byte(reply), m.Reply); err != nil {
				return nil, fmt.Errorf("chat message reply: %w", err)
			}
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// lockConversation takes the conversation's row lock for the rest of the
// transaction (PostgreSQL; SQLite transactions are IMMEDIATE already) and
// returns it as it is now.
func lockConversation(ctx context.Context, tx *store.Tx, id string, now int64) (Conversation, error) {
	res, err := tx.Exec(ctx, "UPDATE chat_conversations SET updated_at = ? WHERE id = ?", now, id)
	if err != nil {
		return Conversation{}, fmt.Errorf("chat lock: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Conversation{}, ErrNotFound
	}
	return getConversation(ctx, tx, id)
}

// lockLive is lockConversation refusing an ended conversation.
func lockLive(ctx context.Context, tx *store.Tx, id string, now int64) (Conversation, error) {
	c, err := lockConversation(ctx, tx, id, now)
	if err == nil && c.Status == StatusEnded {
		err = ErrEnded
	}
	return c, err
}

// appendMessage stores m as the conversation's next message (seq =
// last_seq + 1) in tx, which must hold the conversation's lock; a message
// with a client id already stored is returned as it was, nothing added.
func appendMessage(ctx context.Context, tx *store.Tx, m Message) (Message, bool, error) {
	if m.ClientID != "" {
		old, err := messageByClientID(ctx, tx, m.ConversationID, m.Sender, m.ClientID)
		if err == nil {
			return old, false, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return m, false, err
		}
	}
	err := tx.QueryRow(ctx, `UPDATE chat_conversations SET last_seq = last_seq + 1, updated_at = ?
		WHERE id = ? RETURNING last_seq`, m.At, m.ConversationID).Scan(&m.Seq)
	if err != nil {
		return m, false, fmt.Errorf("chat seq: %w", err)
	}
	if _, err := insertMessage(ctx, tx, m); err != nil {
		return m, false, err
	}
	return m, true, nil
}

// insertMessage writes m, whose seq the caller took in tx; false (nothing
// written) when the sender's client id is stored already.
func insertMessage(ctx context.Context, tx *store.Tx, m Message) (bool, error) {
	var reply string
	if m.Reply != nil {
		b, err := json.Marshal(m.Reply)
		if err != nil {
			return false, err
		}
		reply = string(b)
	}
	var clientID any
	if m.ClientID != "" {
		clientID = m.ClientID
	}
	res, err := tx.Exec(ctx, `INSERT INTO chat_messages (conversation_id, seq, client_id, sender, agent_id, agent_name,
		body, system_key, system_name, reply, at, search) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (conversation_id, sender, client_id) DO NOTHING`,
		m.ConversationID, m.Seq, clientID, m.Sender, m.AgentID, m.AgentName, m.Body, m.SystemKey, m.SystemName, reply, m.At, fold(m.Body))
	if err != nil {
		return false, fmt.Errorf("chat message: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("chat message: %w", err)
	}
	return n == 1, nil
}

func messageByClientID(ctx context.Context, q querier, convID, sender, clientID string) (Message, error) {
	m := Message{ConversationID: convID, ClientID: clientID}
	var reply string
	err := q.QueryRow(ctx, `SELECT seq, sender, agent_id, agent_name, body, system_key, system_name, reply, at
		FROM chat_messages WHERE conversation_id = ? AND sender = ? AND client_id = ?`, convID, sender, clientID).
		Scan(&m.Seq, &m.Sender, &m.AgentID, &m.AgentName, &m.Body, &m.SystemKey, &m.SystemName, &reply, &m.At)
	return m, err
}

// systemMessage is a system note (i18n key and a name) at now.
func systemMessage(convID, key, name string, now int64) Message {
	return Message{ConversationID: convID, Sender: SenderSystem, SystemKey: key, SystemName: name, At: now}
}

// setStatus moves a conversation from one of from to status in tx (a
// conditional update: false when it was not in one of them any more).
func setStatus(ctx context.Context, tx *store.Tx, id, status string, extra string, args []any, from ...string) (bool, error) {
	q := "UPDATE chat_conversations SET status = ?, version = version + 1" + extra + " WHERE id = ? AND status IN (" +
		strings.TrimSuffix(strings.Repeat("?, ", len(from)), ", ") + ")"
	all := append([]any{status}, args...)
	all = append(all, id)
	for _, f := range from {
		all = append(all, f)
	}
	res, err := tx.Exec(ctx, q, all...)
	if err != nil {
		return false, fmt.Errorf("chat status: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// PollRow is what the hub's poll reads of a conversation: what its
// sockets and the agents' queues may be behind on.
type PollRow struct {
	ID, Status, AgentID            string
	LastSeq, Version, AgentReadSeq int64
}

// ChangedSince are the poll rows of the conversations changed at or after
// since.
func (s *Service) ChangedSince(ctx context.Context, since time.Time) ([]PollRow, error) {
	return s.pollRows(ctx, "updated_at >= ?", store.Millis(since))
}

// PollRows are the poll rows of the conversations ids (unknown ones left
// out).
func (s *Service) PollRows(ctx context.Context, ids []string) ([]PollRow, error) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return s.pollRows(ctx, "id IN ("+store.Placeholders(len(ids))+")", args...)
}

func (s *Service) pollRows(ctx context.Context, where string, args ...any) ([]PollRow, error) {
	rows, err := s.DB.Query(ctx, "SELECT id, status, agent_id, last_seq, version, agent_read_seq FROM chat_conversations WHERE "+where, args...)
	if err != nil {
		return nil, err
	}
	return store.Collect(rows, func(rows *sql.Rows) (PollRow, error) {
		var r PollRow
		err := rows.Scan(&r.ID, &r.Status, &r.AgentID, &r.LastSeq, &r.Version, &r.AgentReadSeq)
		return r, err
	})
}
