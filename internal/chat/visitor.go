package chat

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"guichet/internal/brand"
	"guichet/internal/chat/bot"
	"guichet/internal/codes"
	"guichet/internal/notify"
	"guichet/internal/rules"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// StartInput is a visitor's pre-chat form with what the server knows.
type StartInput struct {
	Brand     *brand.Brand
	Province  string
	Language  string
	Name      string
	Topic     string
	Page      string
	Roadblock string
	// AccountID and AccountEmail: the signed-in customer, if any.
	AccountID, AccountEmail string
	IP                      string
	// Secret is the visitor cookie's secret ("" when the visitor has none
	// yet: a new one is made and returned).
	Secret string
}

// Started is Start's answer.
type Started struct {
	Conversation Conversation
	Secret       string
	Created      bool
}

// cleanPlace cleans where a visitor asks for help from (optional both):
// the page, and the roadblock they reached.
func cleanPlace(page, roadblock string) (string, string, error) {
	page, ok := CleanText(page, maxPage, false)
	if !ok {
		return "", "", InvalidField("page")
	}
	roadblock, ok = CleanText(roadblock, maxTopic, false)
	if !ok {
		return "", "", InvalidField("roadblock")
	}
	return page, roadblock, nil
}

// CleanText trims a field and refuses control characters and overlong
// values (HTML is never rendered, so markup is only text).
func CleanText(s string, max int, required bool) (string, bool) {
	s = strings.TrimSpace(s)
	if required && s == "" || utf8.RuneCountInString(s) > max || !utf8.ValidString(s) {
		return s, false
	}
	if strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) }) {
		return s, false
	}
	return s, true
}

// cleanBody checks a message body: 1 to MaxBody characters after trimming;
// line breaks allowed, other control characters refused.
func cleanBody(s string) (string, error) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) || s == "" || strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) && r != '\n' && r != '\t'
	}) {
		return s, InvalidField("body")
	}
	if utf8.RuneCountInString(s) > MaxBody {
		return s, ErrTooLong
	}
	return s, nil
}

// Start opens a visitor's conversation: with the bot when the brand has it,
// else in the queue (which needs chat open). A visitor whose cookie holds a
// live conversation gets that one back.
func (s *Service) Start(ctx context.Context, in StartInput) (Started, error) {
	name, ok := CleanText(in.Name, maxName, true)
	if !ok {
		return Started{}, InvalidField("name")
	}
	topic, ok := CleanText(in.Topic, maxTopic, true)
	if !ok {
		return Started{}, InvalidField("topic")
	}
	page, roadblock, err := cleanPlace(in.Page, in.Roadblock)
	if err != nil {
		return Started{}, err
	}
	if in.Secret != "" {
		if c, err := s.ByVisitor(ctx, in.Secret); err == nil && c.Live() && c.Brand == in.Brand.ID {
			return Started{Conversation: c, Secret: in.Secret}, nil
		} else if err != nil && !errors.Is(err, ErrNoConversation) {
			return Started{}, err
		}
	}
	now := s.now()
	status := StatusWaiting
	withBot := in.Brand.Features.Chatbot && s.Bot != nil
	if withBot {
		status = StatusBot
	} else {
		av, err := s.Availability(ctx, in.Brand, in.Province, in.Language)
		if err != nil {
			return Started{}, err
		}
		if !av.Open {
			return Started{}, av.refusal()
		}
	}
	if err := s.limit(ctx, ConversationLimit, in.IP); err != nil {
		return Started{}, err
	}
	secret := newSecret()
	c := Conversation{
		ID: newID(), Brand: in.Brand.ID, Province: in.Province, Language: in.Language, Kind: KindLive, Status: status,
		VisitorHash: codes.TokenHash(secret), Name: name, Topic: topic, Page: page, Roadblock: roadblock,
		AccountID: in.AccountID, AccountEmail: in.AccountEmail, CreatedAt: store.Millis(now), UpdatedAt: store.Millis(now),
	}
	if status == StatusWaiting {
		c.WaitingSince = c.CreatedAt
	}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if err := insertConversation(ctx, tx, c); err != nil {
			return err
		}
		if withBot {
			r := s.Bot.Welcome(c.Brand, c.Language)
			_, _, err := appendMessage(ctx, tx, Message{ConversationID: c.ID, Sender: SenderBot, Body: r.Text, Reply: &r, At: c.CreatedAt})
			return err
		}
		if in.Brand.Chat.AutoAssign {
			return s.autoAssign(ctx, tx, in.Brand, c.ID)
		}
		return nil
	})
	if err != nil {
		return Started{}, err
	}
	s.notify(ctx, c.ID, status == StatusWaiting)
	c, err = s.Get(ctx, c.ID)
	return Started{Conversation: c, Secret: secret, Created: true}, err
}

func insertConversation(ctx context.Context, tx *store.Tx, c Conversation) error {
	_, err := tx.Exec(ctx, `INSERT INTO chat_conversations (id, brand, province, language, kind, status, visitor_hash,
		name, topic, page, roadblock, email, question, account_id, account_email, created_at, waiting_since, updated_at,
		visitor_seen_at, search)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.Brand, c.Province, c.Language, c.Kind, c.Status, c.VisitorHash, c.Name, c.Topic, c.Page, c.Roadblock,
		c.Email, c.Question, c.AccountID, c.AccountEmail, c.CreatedAt, c.WaitingSince, c.UpdatedAt,
		c.CreatedAt, fold(c.Name+" "+c.Email+" "+c.AccountEmail))
	return err
}

// limit counts one hit of rule for the client address; RATE_LIMITED past it.
func (s *Service) limit(ctx context.Context, rule throttle.Rule, subject string) error {
	if s.Limiter == nil {
		return nil
	}
	wait, err := s.Limiter.Check(ctx, rule, throttle.ClientKey(subject))
	if err != nil {
		return err
	}
	if wait > 0 {
		return &RateLimitedError{Wait: wait}
	}
	return nil
}

// Handover moves a bot conversation to the agents' queue, when chat is
// open (CHAT_CLOSED outside hours, CHAT_NO_AGENT when nobody is available:
// the widget offers the message form and the phone).
func (s *Service) Handover(ctx context.Context, id string) (Conversation, error) {
	c, err := s.Get(ctx, id)
	if err != nil {
		return c, err
	}
	switch c.Status {
	case StatusWaiting, StatusActive:
		return c, nil
	case StatusEnded:
		return c, ErrEnded
	}
	b, ok := s.Brands(c.Brand)
	if !ok {
		return c, ErrNotFound
	}
	av, err := s.Availability(ctx, b, c.Province, c.Language)
	if err != nil {
		return c, err
	}
	if !av.Open {
		return c, av.refusal()
	}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		return s.handoverTx(ctx, tx, b, c.ID, store.Millis(s.now()))
	})
	if err != nil {
		return c, err
	}
	s.notify(ctx, c.ID, true)
	return s.Get(ctx, id)
}

func (s *Service) handoverTx(ctx context.Context, tx *store.Tx, b *brand.Brand, id string, now int64) error {
	moved, err := setStatus(ctx, tx, id, StatusWaiting, ", waiting_since = ?", []any{now}, StatusBot)
	if err != nil || !moved {
		return err
	}
	if _, _, err := appendMessage(ctx, tx, systemMessage(id, SystemHandover, "", now)); err != nil {
		return err
	}
	if b.Chat.AutoAssign {
		return s.autoAssign(ctx, tx, b, id)
	}
	return nil
}

// VisitorSend stores a visitor's message (idempotent by clientID); in a
// bot conversation the bot's answer follows it in the same transaction,
// and a handover the bot asks for moves it to the queue when chat is open.
func (s *Service) VisitorSend(ctx context.Context, id, clientID, body string) (Message, error) {
	body, err := cleanBody(body)
	if err != nil {
		return Message{}, err
	}
	if err := CheckID("clientId", clientID); err != nil {
		return Message{}, err
	}
	c, err := s.Get(ctx, id)
	if err != nil {
		return Message{}, err
	}
	if clientID != "" {
		// A resend of a message stored already is its ack: no limit, no
		// write.
		if m, err := messageByClientID(ctx, s.DB, id, SenderVisitor, clientID); err == nil {
			return m, nil
		} else if !errors.Is(err, sql.ErrNoRows) {
			return Message{}, err
		}
	}
	if c.Status == StatusEnded {
		return Message{}, ErrEnded
	}
	if err := s.limit(ctx, VisitorMessageLimit, "conversation:"+id); err != nil {
		return Message{}, err
	}
	b, ok := s.Brands(c.Brand)
	if !ok {
		return Message{}, ErrNotFound
	}
	// Whether a handover could go to the queue is read before the
	// transaction (availability reads other tables).
	open := false
	var answer bot.Reply
	if c.Status == StatusBot && s.Bot != nil {
		av, err := s.Availability(ctx, b, c.Province, c.Language)
		if err != nil {
			return Message{}, err
		}
		open = av.Open
		// The bot answers before the transaction: its ranking does not
		// hold the write lock (SQLite's one writer).
		answer = s.Bot.Answer(c.Brand, c.Language, body)
	}
	asked := c.Status == StatusBot && s.Bot != nil
	var stored Message
	queue := false
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := store.Millis(s.now())
		c, err := lockLive(ctx, tx, id, now)
		if err != nil {
			return err
		}
		m, added, err := appendMessage(ctx, tx, Message{ConversationID: id, ClientID: clientID, Sender: SenderVisitor, Body: body, At: now})
		if err != nil {
			return err
		}
		stored = m
		if _, err := tx.Exec(ctx, "UPDATE chat_conversations SET visitor_typing = 0, visitor_seen_at = ? WHERE id = ?", now, id); err != nil {
			return err
		}
		if !added || c.Status != StatusBot || !asked {
			return nil
		}
		r := answer
		if _, _, err := appendMessage(ctx, tx, Message{ConversationID: id, Sender: SenderBot, Body: r.Text, Reply: &r, At: now}); err != nil {
			return err
		}
		if r.Handover && open {
			queue = true
			return s.handoverTx(ctx, tx, b, id, now)
		}
		return nil
	})
	if err != nil {
		return Message{}, err
	}
	s.notify(ctx, id, queue)
	return stored, nil
}

// Typing records whether the visitor (or the agent) is typing.
func (s *Service) Typing(ctx context.Context, id string, agent bool, on bool) error {
	col := "visitor_typing"
	if agent {
		col = "agent_typing"
	}
	res, err := s.DB.Exec(ctx, "UPDATE chat_conversations SET "+col+" = ?, version = version + 1, updated_at = ? WHERE id = ? AND "+
		col+" <> ? AND status <> 'ended'", boolInt(on), store.Millis(s.now()), id, boolInt(on))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		s.notify(ctx, id, false)
	}
	return nil
}

// visitorSeenEvery: the visitor's heartbeat is written at most once per
// this.
const visitorSeenEvery = 30 * time.Second

// VisitorSeen records the visitor's heartbeat (socket connect and ping), at
// most once per visitorSeenEvery: a conditional write that moves neither
// version nor updated_at, so it wakes nobody.
func (s *Service) VisitorSeen(ctx context.Context, id string) error {
	now := store.Millis(s.now())
	_, err := s.DB.Exec(ctx, "UPDATE chat_conversations SET visitor_seen_at = ? WHERE id = ? AND visitor_seen_at <= ? AND status <> 'ended'",
		now, id, now-visitorSeenEvery.Milliseconds())
	return err
}

// MarkRead records that the visitor (or the agent) read up to seq.
func (s *Service) MarkRead(ctx context.Context, id string, agent bool, seq int64) error {
	col := "visitor_read_seq"
	if agent {
		col = "agent_read_seq"
	}
	res, err := s.DB.Exec(ctx, "UPDATE chat_conversations SET "+col+" = ?, version = version + 1, updated_at = ? WHERE id = ? AND "+
		col+" < ? AND last_seq >= ?", seq, store.Millis(s.now()), id, seq, seq)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		// The conversation's sockets show the read receipt. No queue
		// wake-up: an agent's read changes only that agent's unread
		// counts, which their socket patches at once (chatapi's agent socket, Patch)
		// and the poll patches on their other sockets; a wake-up would
		// make every queue read the database at each read.
		s.notify(ctx, id, false)
	}
	return nil
}

// End ends a live conversation (the visitor's or the agent's doing); an
// ended one stays ended.
func (s *Service) End(ctx context.Context, id, byAgentName string) (Conversation, error) {
	return s.end(ctx, id, staff.Principal{Name: byAgentName}, "", nil)
}

// EndFromVisitor is the visitor's own end of their conversation, from ip
// (OnEnd gets it: co-browse's end is audited with it).
func (s *Service) EndFromVisitor(ctx context.Context, id, ip string) (Conversation, error) {
	return s.end(ctx, id, staff.Principal{}, ip, nil)
}

// EndBy is a staff member's end of a conversation: the brand and the
// holder (unless supervisor) are checked in the transaction, under the
// conversation's lock, so an agent whose conversation was just
// transferred away cannot end it.
func (s *Service) EndBy(ctx context.Context, p staff.Principal, id string) (Conversation, error) {
	if s.BeforeTx != nil {
		s.BeforeTx()
	}
	return s.end(ctx, id, p, "", func(c Conversation) error {
		if !p.Serves(c.Brand) {
			return ErrForbiddenBrand
		}
		if c.AgentID != p.ID && !p.Role.AtLeast(staff.RoleSupervisor) {
			return ErrNotHolder
		}
		return nil
	})
}

func (s *Service) end(ctx context.Context, id string, by staff.Principal, ip string, check func(Conversation) error) (Conversation, error) {
	var after func(context.Context)
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		after = nil
		at := s.now()
		now := store.Millis(at)
		if check != nil {
			c, err := lockConversation(ctx, tx, id, now)
			if err != nil {
				return err
			}
			if err := check(c); err != nil {
				return err
			}
		}
		moved, err := setStatus(ctx, tx, id, StatusEnded, ", ended_at = ?, visitor_typing = 0, agent_typing = 0", []any{now},
			StatusBot, StatusWaiting, StatusActive)
		if err != nil || !moved {
			return err
		}
		if _, _, err = appendMessage(ctx, tx, systemMessage(id, SystemEnded, by.Name, now)); err != nil {
			return err
		}
		if s.OnEnd != nil {
			after, err = s.OnEnd(ctx, tx, id, by, ip, at)
		}
		return err
	})
	if err != nil {
		return Conversation{}, err
	}
	s.notify(ctx, id, true)
	if after != nil {
		after(ctx)
	}
	// The agent who held it has room for one more. The end stands
	// whether this works or not; the next end or arrival tries again.
	if err := s.AssignWaiting(ctx); err != nil {
		slog.WarnContext(ctx, "chat auto-assign after an end", "err", err)
	}
	return s.Get(ctx, id)
}

// AbandonAfter: a live conversation (bot, waiting or active) whose
// visitor sent no heartbeat (socket connect, ping, message) for this long
// is ended by the hub's sweep, with the usual "ended" system message: it
// leaves the queue and the agent's limit.
const AbandonAfter = 10 * time.Minute

// EndAbandoned ends the live conversations whose visitor has been silent
// for AbandonAfter (at most 500 a run); how many it ended.
func (s *Service) EndAbandoned(ctx context.Context) (int, error) {
	rows, err := s.DB.Query(ctx, `SELECT id FROM chat_conversations WHERE status IN ('bot', 'waiting', 'active')
		AND kind = 'live' AND visitor_seen_at < ? ORDER BY visitor_seen_at LIMIT 500`, store.Millis(s.now().Add(-AbandonAfter)))
	if err != nil {
		return 0, fmt.Errorf("chat abandoned: %w", err)
	}
	ids, err := store.Strings(rows)
	if err != nil {
		return 0, err
	}
	cutoff := store.Millis(s.now().Add(-AbandonAfter))
	n := 0
	for _, id := range ids {
		// Re-checked under the lock: a heartbeat since the query keeps it.
		_, err := s.end(ctx, id, staff.Principal{}, "", func(c Conversation) error {
			if c.VisitorSeenAt >= cutoff {
				return errStillHere
			}
			return nil
		})
		if errors.Is(err, errStillHere) {
			continue
		}
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

var errStillHere = errors.New("visitor still here")

// Rate stores the visitor's one rating (1 to 5) of an ended conversation.
func (s *Service) Rate(ctx context.Context, id string, rating int) error {
	if rating < 1 || rating > 5 {
		return InvalidField("rating")
	}
	res, err := s.DB.Exec(ctx, "UPDATE chat_conversations SET rating = ?, version = version + 1, updated_at = ? WHERE id = ? AND rating = 0",
		rating, store.Millis(s.now()), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrAlreadyDone
	}
	return nil
}

// SendTranscript queues the transcript email of an ended conversation
// (once), in the conversation's language.
func (s *Service) SendTranscript(ctx context.Context, id, email, ip string) error {
	to, err := rules.Email(email)
	if err != nil {
		return InvalidField("email")
	}
	// The address is the visitor's to choose (and the text partly theirs):
	// a client address sends few of them from the insurer's domain.
	if err := s.limit(ctx, TranscriptLimit, ip); err != nil {
		return err
	}
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		c, err := lockConversation(ctx, tx, id, store.Millis(s.now()))
		if err != nil {
			return err
		}
		if c.Status != StatusEnded {
			return ErrNotEnded
		}
		if c.TranscriptSent {
			return ErrAlreadyDone
		}
		msgs, err := messages(ctx, tx, id, 0, 0)
		if err != nil {
			return err
		}
		var loc *time.Location
		if b, ok := s.Brands(c.Brand); ok {
			if p, ok := b.Province(c.Province); ok {
				loc = p.Location()
			}
		}
		if _, err := tx.Exec(ctx, "UPDATE chat_conversations SET transcript_sent = 1 WHERE id = ?", id); err != nil {
			return err
		}
		return notify.Queue(ctx, tx, notify.Message{
			Brand: c.Brand, Language: c.Language, Channel: notify.ChannelEmail, To: to, Template: notify.TemplateChatTranscript,
			Data: map[string]string{notify.DataFirstName: c.Name, notify.DataProvince: c.Province,
				notify.DataTranscript: Transcript(msgs, c.Language, c.Name, loc)},
		}, s.Poke)
	})
}

// OfflineInput is the message form (chat closed or no agent).
type OfflineInput struct {
	Brand                   *brand.Brand
	Province, Language      string
	Name, Email, Question   string
	Page, Roadblock         string
	AccountID, AccountEmail string
	IP                      string
}

// Offline stores a message-form question as an offline conversation in the
// agents' queue; an agent answers it by email (Reply).
func (s *Service) Offline(ctx context.Context, in OfflineInput) (Conversation, error) {
	name, ok := CleanText(in.Name, maxName, true)
	if !ok {
		return Conversation{}, InvalidField("name")
	}
	email, err := rules.Email(in.Email)
	if err != nil {
		return Conversation{}, InvalidField("email")
	}
	question, err := cleanBody(in.Question)
	if err != nil {
		return Conversation{}, InvalidField("question")
	}
	page, roadblock, err := cleanPlace(in.Page, in.Roadblock)
	if err != nil {
		return Conversation{}, err
	}
	if err := s.limit(ctx, OfflineLimit, in.IP); err != nil {
		return Conversation{}, err
	}
	now := store.Millis(s.now())
	c := Conversation{ID: newID(), Brand: in.Brand.ID, Province: in.Province, Language: in.Language, Kind: KindOffline,
		Status: StatusWaiting, Name: name, Email: email, Question: question, Page: page, Roadblock: roadblock,
		AccountID: in.AccountID, AccountEmail: in.AccountEmail, CreatedAt: now, WaitingSince: now, UpdatedAt: now}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if err := insertConversation(ctx, tx, c); err != nil {
			return err
		}
		_, _, err := appendMessage(ctx, tx, Message{ConversationID: c.ID, Sender: SenderVisitor, Body: question, At: now})
		return err
	})
	if err != nil {
		return c, err
	}
	s.notify(ctx, c.ID, true)
	return s.Get(ctx, c.ID)
}
