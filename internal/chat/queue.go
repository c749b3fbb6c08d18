package chat

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"guichet/internal/notify"
	"guichet/internal/staff"
	"guichet/internal/store"
)

// Item is a conversation as the console lists it.
type Item struct {
	ID           string       `json:"id"`
	Brand        string       `json:"brand"`
	Province     string       `json:"province"`
	Language     string       `json:"language"`
	Kind         string       `json:"kind"`
	Name         string       `json:"name"`
	Topic        string       `json:"topic"`
	Page         string       `json:"page"`
	Roadblock    string       `json:"roadblock"`
	Account      *ItemAccount `json:"account"`
	Status       string       `json:"status"`
	CreatedAt    string       `json:"createdAt"`
	WaitingSince string       `json:"waitingSince"`
	AgentID      string       `json:"agentId"`
	AgentName    string       `json:"agentName"`
	LastSeq      int64        `json:"lastSeq"`
	Unread       int64        `json:"unread"`
	Email        string       `json:"email,omitempty"`
	Question     string       `json:"question,omitempty"`
	Rating       int          `json:"rating,omitempty"`
	Snippet      string       `json:"snippet,omitempty"`
}

// ItemAccount is the signed-in customer a conversation came from.
type ItemAccount struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// ItemOf a conversation.
func ItemOf(c Conversation) Item {
	it := Item{ID: c.ID, Brand: c.Brand, Province: c.Province, Language: c.Language, Kind: c.Kind, Name: c.Name,
		Topic: c.Topic, Page: c.Page, Roadblock: c.Roadblock, Status: c.Status, CreatedAt: RFC3339(c.CreatedAt),
		WaitingSince: RFC3339(c.WaitingSince), AgentID: c.AgentID, AgentName: c.AgentName, LastSeq: c.LastSeq,
		Unread: max(c.LastSeq-c.AgentReadSeq, 0), Email: c.Email, Question: c.Question, Rating: c.Rating}
	if c.AccountID != "" {
		it.Account = &ItemAccount{ID: c.AccountID, Email: c.AccountEmail}
	}
	return it
}

// Queue is an agent's view: the live conversations waiting, theirs, and
// the offline messages, of their brands and languages. Waiting and
// Offline hold the QueueLimit longest waiting; the totals count them all.
type Queue struct {
	Waiting      []Item `json:"waiting"`
	Mine         []Item `json:"mine"`
	Offline      []Item `json:"offline"`
	WaitingTotal int    `json:"waitingTotal"`
	OfflineTotal int    `json:"offlineTotal"`
}

// Queue snapshot caps: items per list, and the characters of an offline
// question's preview (the whole question is the conversation's first
// message: GET conversations/{id}).
const (
	QueueLimit      = 100
	QuestionPreview = 200
)

// agentLanguages are the languages an agent took (both when never set).
func (s *Service) agentLanguages(ctx context.Context, p staff.Principal) ([]string, error) {
	a, err := s.agent(ctx, s.DB, p.ID)
	if err != nil && err != ErrNotFound {
		return nil, err
	}
	if len(a.Languages) == 0 {
		return []string{"en", "fr"}, nil
	}
	return a.Languages, nil
}

// queueItem is a conversation as the queue lists it: the question cut
// to its preview.
func queueItem(c Conversation) Item {
	it := ItemOf(c)
	if r := []rune(it.Question); len(r) > QuestionPreview {
		it.Question = string(r[:QuestionPreview-1]) + "…"
	}
	return it
}

// Queue reads an agent's queue: the brands and languages filtered in SQL,
// each list capped.
func (s *Service) Queue(ctx context.Context, p staff.Principal) (Queue, error) {
	langs, err := s.agentLanguages(ctx, p)
	if err != nil {
		return Queue{}, err
	}
	scope := " AND language IN (" + store.Placeholders(len(langs)) + ")"
	var scopeArgs []any
	for _, l := range langs {
		scopeArgs = append(scopeArgs, l)
	}
	if len(p.Brands) > 0 {
		scope += " AND brand IN (" + store.Placeholders(len(p.Brands)) + ")"
		for _, b := range p.Brands {
			scopeArgs = append(scopeArgs, b)
		}
	}
	q := Queue{Waiting: []Item{}, Mine: []Item{}, Offline: []Item{}}
	mine, err := s.listConversations(ctx, s.DB, "status = 'active' AND agent_id = ? ORDER BY waiting_since, id", p.ID)
	if err != nil {
		return Queue{}, err
	}
	for _, c := range mine {
		q.Mine = append(q.Mine, queueItem(c))
	}
	for _, l := range []struct {
		kind  string
		items *[]Item
		total *int
	}{{KindLive, &q.Waiting, &q.WaitingTotal}, {KindOffline, &q.Offline, &q.OfflineTotal}} {
		where := "status = 'waiting' AND kind = ?" + scope
		args := append([]any{l.kind}, scopeArgs...)
		list, err := s.listConversations(ctx, s.DB, where+" ORDER BY waiting_since, id LIMIT "+itoa(QueueLimit), args...)
		if err != nil {
			return Queue{}, err
		}
		for _, c := range list {
			*l.items = append(*l.items, queueItem(c))
		}
		if len(list) < QueueLimit {
			*l.total = len(list)
		} else if err := s.DB.QueryRow(ctx, "SELECT COUNT(*) FROM chat_conversations WHERE "+where, args...).Scan(l.total); err != nil {
			return Queue{}, err
		}
	}
	return q, nil
}

// Figures are the supervisors' live figures.
type Figures struct {
	Waiting            int           `json:"waiting"`
	Active             int           `json:"active"`
	AverageWaitSeconds int64         `json:"averageWaitSeconds"`
	Agents             []AgentFigure `json:"agents"`
}

// AgentFigure is one agent's line of the figures.
type AgentFigure struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	Active  int    `json:"active"`
	Handled int    `json:"handled"`
}

// Figures reads the figures of the supervisor's brands: waiting and
// active conversations, the average wait of those accepted in the last 24
// hours, and per agent their status, active and handled (last 24 hours).
func (s *Service) Figures(ctx context.Context, p staff.Principal) (Figures, error) {
	now := s.now()
	since := store.Millis(now.Add(-24 * time.Hour))
	list, err := s.listConversations(ctx, s.DB, "kind = 'live' AND (status IN ('waiting', 'active') OR accepted_at >= ?)", since)
	if err != nil {
		return Figures{}, err
	}
	f := Figures{Agents: []AgentFigure{}}
	var waits, waited int64
	active, handled := map[string]int{}, map[string]int{}
	for _, c := range list {
		if !p.Serves(c.Brand) {
			continue
		}
		switch c.Status {
		case StatusWaiting:
			f.Waiting++
		case StatusActive:
			f.Active++
			active[c.AgentID]++
		}
		if c.AcceptedAt >= since && c.WaitingSince > 0 {
			waits += c.AcceptedAt - c.WaitingSince
			waited++
			handled[c.AgentID]++
		}
	}
	if waited > 0 {
		f.AverageWaitSeconds = waits / waited / 1000
	}
	rows, err := s.DB.Query(ctx, agentSelect+" ORDER BY s.name, s.id")
	if err != nil {
		return f, err
	}
	agents, err := scanAgents(rows)
	if err != nil {
		return f, err
	}
	for _, a := range agents {
		if !servesAny(p, a.Brands) {
			continue
		}
		status := AgentAway
		if a.Present(now) {
			status = AgentAvailable
		}
		if status == AgentAway && active[a.ID] == 0 && handled[a.ID] == 0 {
			continue
		}
		f.Agents = append(f.Agents, AgentFigure{ID: a.ID, Name: a.Name, Status: status, Active: active[a.ID], Handled: handled[a.ID]})
	}
	return f, nil
}

// CanRead is the one rule for reading a conversation, for GET
// conversations/{id} and the socket's subscribe alike: a staff member of
// its brand (ErrForbiddenBrand otherwise) who holds it, or is a supervisor
// or above, or any agent of the brand while it waits for one (a live
// conversation in the queue) or is an offline message; ErrNotHolder
// otherwise (another agent's, the bot's, or one ended by someone else).
func CanRead(p staff.Principal, c Conversation) error {
	if !p.Serves(c.Brand) {
		return ErrForbiddenBrand
	}
	if c.AgentID == p.ID || p.Role.AtLeast(staff.RoleSupervisor) || c.Kind == KindOffline || c.Status == StatusWaiting {
		return nil
	}
	return ErrNotHolder
}

// QueuePosition is 1 + the live conversations of the same brand and
// language waiting longer.
func (s *Service) QueuePosition(ctx context.Context, c Conversation) (int, error) {
	var n int
	err := s.DB.QueryRow(ctx, `SELECT COUNT(*) FROM chat_conversations WHERE status = 'waiting' AND kind = 'live'
		AND brand = ? AND language = ? AND (waiting_since < ? OR waiting_since = ? AND id < ?)`,
		c.Brand, c.Language, c.WaitingSince, c.WaitingSince, c.ID).Scan(&n)
	return n + 1, err
}

// servesAny: the supervisor serves one of the agent's brands (an agent of
// every brand is everyone's).
func servesAny(p staff.Principal, brands []string) bool {
	if len(brands) == 0 || len(p.Brands) == 0 {
		return true
	}
	for _, b := range brands {
		if p.Serves(b) {
			return true
		}
	}
	return false
}

// AgentLine is an available agent, for a transfer.
type AgentLine struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Languages []string `json:"languages"`
	Active    int      `json:"active"`
	Max       int      `json:"max"`
}

// AvailableAgents are the agents present who serve one of p's brands.
func (s *Service) AvailableAgents(ctx context.Context, p staff.Principal, maxOf func(brand string) int) ([]AgentLine, error) {
	agents, err := s.presentAgents(ctx, s.DB)
	if err != nil {
		return nil, err
	}
	out := []AgentLine{}
	for _, a := range agents {
		if !servesAny(p, a.Brands) {
			continue
		}
		n, err := activeCount(ctx, s.DB, a.ID)
		if err != nil {
			return nil, err
		}
		limit := 0
		for _, b := range a.Brands {
			limit = max(limit, maxOf(b))
		}
		if len(a.Brands) == 0 {
			limit = maxOf("")
		}
		out = append(out, AgentLine{ID: a.ID, Name: a.Name, Languages: a.Languages, Active: n, Max: limit})
	}
	return out, nil
}

// SearchLimit is how many conversations a search answers at most (the
// latest).
const SearchLimit = 200

// Search finds conversations of p's brands (or one of them) whose
// messages, name or email hold q (folded: case and accents ignored, the
// same on SQLite and PostgreSQL), created in [from, to), latest first.
func (s *Service) Search(ctx context.Context, p staff.Principal, q, brandID string, from, to time.Time) ([]Item, error) {
	where := "created_at >= ? AND created_at < ?"
	args := []any{store.Millis(from), store.Millis(to)}
	brands := p.Brands
	if brandID != "" {
		brands = []string{brandID}
	}
	if len(brands) > 0 {
		where += " AND brand IN (" + store.Placeholders(len(brands)) + ")"
		for _, b := range brands {
			args = append(args, b)
		}
	}
	like := ""
	fq := fold(q)
	if q != "" {
		like = "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(fq) + "%"
		where += ` AND (search LIKE ? ESCAPE '\' OR id IN (SELECT conversation_id FROM chat_messages WHERE search LIKE ? ESCAPE '\'))`
		args = append(args, like, like)
	}
	list, err := s.listConversations(ctx, s.DB, where+" ORDER BY created_at DESC, id LIMIT "+itoa(SearchLimit), args...)
	if err != nil {
		return nil, err
	}
	out := []Item{}
	for _, c := range list {
		if !p.Serves(c.Brand) {
			continue
		}
		it := ItemOf(c)
		if q != "" {
			it.Snippet = s.snippet(ctx, c, fq, like)
		}
		out = append(out, it)
	}
	return out, nil
}

// snippet is the first message holding the words searched, shortened.
func (s *Service) snippet(ctx context.Context, c Conversation, folded, like string) string {
	var body string
	err := s.DB.QueryRow(ctx, `SELECT body FROM chat_messages WHERE conversation_id = ? AND search LIKE ? ESCAPE '\'
		ORDER BY seq LIMIT 1`, c.ID, like).Scan(&body)
	if err != nil {
		return ""
	}
	return snippetOf(body, folded)
}

// snippetOf is up to 160 characters of body from 40 before the first
// place it holds folded (the search, folded). Runes throughout: a folded
// rune stands where its original does, whatever their UTF-8 lengths.
func snippetOf(body, folded string) string {
	r := []rune(body)
	f := make([]rune, len(r))
	for i, x := range r {
		f[i] = foldRune(x)
	}
	start := 0
	if i := runeIndex(f, []rune(folded)); i > 0 {
		start = max(i-40, 0)
	}
	return string(r[start:min(start+160, len(r))])
}

func runeIndex(s, sub []rune) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if slices.Equal(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// ReplyOffline emails an agent's answer to an offline message (outbox, in
// its language) and closes it.
func (s *Service) ReplyOffline(ctx context.Context, p staff.Principal, id, answer string) error {
	answer, err := cleanBody(answer)
	if err != nil {
		return err
	}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := store.Millis(s.now())
		c, err := lockConversation(ctx, tx, id, now)
		if err != nil {
			return err
		}
		if !p.Serves(c.Brand) {
			return ErrForbiddenBrand
		}
		if c.Kind != KindOffline {
			return ErrNotOffline
		}
		if c.Status == StatusEnded {
			return ErrAlreadyDone
		}
		if _, _, err := appendMessage(ctx, tx, Message{ConversationID: id, Sender: SenderAgent, AgentID: p.ID,
			AgentName: p.Name, Body: answer, At: now}); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE chat_conversations SET status = 'ended', agent_id = ?, agent_name = ?, accepted_at = ?,
			ended_at = ?, version = version + 1 WHERE id = ?`, p.ID, p.Name, now, now, id); err != nil {
			return err
		}
		return notify.Queue(ctx, tx, notify.Message{Brand: c.Brand, Language: c.Language, Channel: notify.ChannelEmail,
			To: c.Email, Template: notify.TemplateChatOfflineReply,
			Data: map[string]string{notify.DataFirstName: c.Name, notify.DataProvince: c.Province,
				notify.DataQuestion: c.Question, notify.DataAnswer: answer}}, s.Poke)
	})
	if err != nil {
		return err
	}
	s.notify(ctx, id, true)
	return nil
}

// Transcript writes a conversation's messages as plain text lines, in the
// language's typography: the time in the conversation's province (loc; nil
// is UTC) with its zone's abbreviation, who, and what was said.
func Transcript(msgs []Message, language, visitorName string, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	var b strings.Builder
	for _, m := range msgs {
		at := time.UnixMilli(m.At).In(loc)
		zone, _ := at.Zone()
		who := visitorName
		switch m.Sender {
		case SenderAgent:
			who = m.AgentName
		case SenderBot:
			who = map[string]string{"en": "Assistant", "fr": "Assistant virtuel"}[language]
		case SenderSystem:
			who = ""
		}
		body := m.Body
		if m.Sender == SenderSystem {
			body = systemText(m.SystemKey, m.SystemName, language)
		}
		sep := ": "
		if language == "fr" {
			fmt.Fprintf(&b, "%d h %02d %s", at.Hour(), at.Minute(), zone)
			sep = "\u00a0: "
		} else {
			fmt.Fprintf(&b, "%s %s", at.Format("15:04"), zone)
		}
		if who != "" {
			fmt.Fprintf(&b, " — %s%s%s\n", who, sep, body)
		} else {
			fmt.Fprintf(&b, " — %s\n", body)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func systemText(key, name, language string) string {
	en := map[string]string{SystemAgentJoined: name + " joined the chat", SystemAgentLeft: name + " left the chat",
		SystemTransferred: "Transferred to " + name, SystemEnded: "The chat ended", SystemHandover: "Passed to an agent",
		SystemCobrowseRequest: "The agent asked to see your screen", SystemCobrowseAccepted: "Screen sharing accepted",
		SystemCobrowseDeclined: "Screen sharing declined", SystemCobrowseEnded: "Screen sharing ended"}
	fr := map[string]string{SystemAgentJoined: name + " a rejoint la conversation", SystemAgentLeft: name + " a quitté la conversation",
		SystemTransferred: "Conversation transférée à " + name, SystemEnded: "La conversation est terminée", SystemHandover: "Conversation transmise à un conseiller ou une conseillère",
		SystemCobrowseRequest: "Votre conseiller ou conseillère a demandé à voir votre écran", SystemCobrowseAccepted: "Partage d’écran accepté",
		SystemCobrowseDeclined: "Partage d’écran refusé", SystemCobrowseEnded: "Partage d’écran terminé"}
	if language == "fr" {
		return fr[key]
	}
	return en[key]
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
