// Package chat is Guichet's live chat domain (issue 17): visitors'
// conversations with agents (and the chatbot first when the brand has it),
// their messages, the agents' queue, availability and presence, and the
// offline message form: the service and its persistence, owner of the
// tables chat_agents, chat_conversations and chat_messages. It knows
// nothing of HTTP: it returns the domain errors below, which the API maps.
//
// Size: larger than the others (about 2,400 lines) for a reason: every
// change of a conversation, whoever makes it (visitor, agent, queue,
// co-browse, the sweep), takes the conversation's row lock and appends
// its message in one transaction (lockLive, appendMessage, assignTx), and
// the agents' presence is read in those same transactions; a package per
// part would have to export that transaction discipline to the others.
// Its files split it by part: store.go (rows), visitor.go, agent.go,
// queue.go (the agents' views and search), purge.go, cobrowse.go.
//
// The rest of the chat is in packages of its own: chatapi (the visitor's
// and the agents' HTTP APIs and WebSockets), hub (this instance's sockets
// and subscriptions, woken by the Notifier and a poll) and bot (the FAQ
// chatbot).
//
// Rows first: every change is stored in one transaction (a message takes
// seq = last_seq + 1 in the transaction that stores it) and only then
// announced through a Notifier, which merely wakes the sockets; a woken
// socket reads the rows after the last seq it delivered. A slow poll wakes
// whatever a lost notification left behind, so a socket on another
// instance sees the same conversation, and a reconnect with the last seq
// it has gets exactly the rest.
package chat

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"guichet/internal/brand"
	"guichet/internal/chat/bot"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Conversation kinds and statuses.
const (
	KindLive    = "live"
	KindOffline = "offline"

	StatusBot     = "bot"
	StatusWaiting = "waiting"
	StatusActive  = "active"
	StatusEnded   = "ended"
)

// Message senders.
const (
	SenderVisitor = "visitor"
	SenderAgent   = "agent"
	SenderBot     = "bot"
	SenderSystem  = "system"
)

// System message keys (the clients' i18n keys chat.system.<key>).
const (
	SystemAgentJoined = "agentJoined"
	SystemAgentLeft   = "agentLeft"
	SystemTransferred = "transferred"
	SystemEnded       = "ended"
	SystemHandover    = "handover"
)

// Limits (chat.md "Limits").
const (
	MaxBody        = 2000 // characters of a message, after trimming
	MaxFrameBytes  = 16 << 10
	PresenceWindow = 60 * time.Second
	maxName        = 100
	maxTopic       = 100
	maxPage        = 300
	maxQuestion    = 2000
)

// Rate limits: per IP, new conversations and offline messages; per
// conversation, the visitor's messages.
var (
	ConversationLimit   = throttle.Rule{Scope: "chat.conversation", Limit: 10, Window: time.Hour}
	OfflineLimit        = throttle.Rule{Scope: "chat.offline", Limit: 10, Window: time.Hour}
	VisitorMessageLimit = throttle.Rule{Scope: "chat.message", Limit: 20, Window: time.Minute}
	// TranscriptLimit: transcript emails per client address.
	TranscriptLimit = throttle.Rule{Scope: "chat.transcript", Limit: 5, Window: time.Hour}
)

// Bot is the chatbot the service asks (internal/chat/bot's *Bot).
type Bot interface {
	Welcome(brandID, lang string) bot.Reply
	Answer(brandID, lang, question string) bot.Reply
}

// Service is the chat's domain: every state change in one transaction,
// announced through the Notifier after it commits.
type Service struct {
	DB      *store.DB
	Brands  func(id string) (*brand.Brand, bool)
	Now     func() time.Time // the app's one clock (nil: time.Now, in tests only)
	Bot     Bot              // nil: no bot answers (chatbot brands start waiting)
	Limiter *throttle.Limiter
	// Notifier wakes the sockets (of every instance) after a commit.
	Notifier Notifier
	// Poke asks the outbox worker to deliver at once (may be nil).
	Poke func()
	// Metrics, when set, times the waits for an agent (metrics.go).
	Metrics *Metrics
	// OnEnd (may be nil) runs in the transaction that ends a live
	// conversation, after its status moved: co-browse (set by internal/app,
	// which imports both) ends the conversation's live session there.
	// by is the staff member who ended it (zero: the visitor or the
	// sweep); ip is the visitor's address when they ended it ("" when
	// unknown). after, if not nil, runs once the transaction commits.
	OnEnd func(ctx context.Context, tx *store.Tx, convID string, by staff.Principal, ip string, now time.Time) (after func(context.Context), err error)
	// OnTransfer (may be nil) runs in the transaction that hands an
	// active conversation to another agent, after the new holder is
	// recorded: co-browse ends the conversation's live session there (the
	// former holder must not keep watching; the new one may ask again).
	// by is the staff member who transferred it; after as OnEnd's.
	OnTransfer func(ctx context.Context, tx *store.Tx, convID string, by staff.Principal, now time.Time) (after func(context.Context), err error)
	// BeforeTx (tests only; nil in production) runs between a staff
	// action's first read and its transaction: a concurrent change lands
	// there.
	BeforeTx func()
}

// Errors of the chat; chatapi maps each to the API's status and error
// code (chatapi.Error).
var (
	ErrClosed = errors.New("chat: closed")
	// ErrNoAgent: in opening hours, but nobody is available for the
	// brand and language (issue 32: not "closed").
	ErrNoAgent           = errors.New("chat: no agent available")
	ErrNoConversation    = errors.New("chat: no conversation")
	ErrAlreadyTaken      = errors.New("chat: already taken")
	ErrAgentLimit        = errors.New("chat: agent at the limit")
	ErrForbiddenBrand    = errors.New("chat: brand not served")
	ErrNotFound          = errors.New("chat: not found")
	ErrEnded             = errors.New("chat: conversation ended")
	ErrNotEnded          = errors.New("chat: conversation not ended")
	ErrAlreadyDone       = errors.New("chat: already done")
	ErrNotHolder         = errors.New("chat: not the holder")
	ErrTargetUnavailable = errors.New("chat: transfer target unavailable")
	ErrNotOffline        = errors.New("chat: not an offline message")
	ErrWrongStatus       = errors.New("chat: wrong status")
	ErrTooLong           = errors.New("chat: message too long")
	// ErrRateLimited: a rule's limit reached (RateLimitedError says how
	// long to wait) or a socket cap.
	ErrRateLimited = errors.New("chat: rate limited")
	// ErrSignedOut: the staff member's session or account is gone (the
	// agent socket closes with 4401).
	ErrSignedOut = errors.New("chat: staff signed out")
)

// FieldError is a field a client sent that the chat refuses.
type FieldError struct{ Field string }

func (e *FieldError) Error() string { return "chat: invalid " + e.Field }

// InvalidField is the FieldError of field.
func InvalidField(field string) error { return &FieldError{Field: field} }

// RateLimitedError is ErrRateLimited with the wait until the next try.
type RateLimitedError struct{ Wait time.Duration }

func (e *RateLimitedError) Error() string { return ErrRateLimited.Error() }

// Is makes errors.Is(err, ErrRateLimited) true.
func (e *RateLimitedError) Is(target error) bool { return target == ErrRateLimited }

// newID is a conversation id: 16 random bytes, base64url (api.IsID's shape).
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// newSecret is a visitor cookie's 128-bit secret.
func newSecret() string { return newID() }

// RFC3339 is a time in unix ms as the API writes it ("" for zero).
func RFC3339(msec int64) string {
	if msec == 0 {
		return ""
	}
	return time.UnixMilli(msec).UTC().Format(time.RFC3339Nano)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Clock is the service's time now (its Now; time.Now when nil, in tests).
func (s *Service) Clock() time.Time { return s.now() }

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// notify wakes the sockets of a conversation (and the agents' queues when
// queue is set) after a commit.
func (s *Service) notify(ctx context.Context, convID string, queue bool) {
	if s.Notifier == nil {
		return
	}
	if convID != "" {
		s.Notifier.Notify(ctx, convID)
	}
	if queue {
		s.Notifier.Notify(ctx, TopicQueue)
	}
}

// CheckID checks an id or short key a client sends (conversationId,
// clientId, staffId, brand): at most maxID bytes of valid UTF-8 without
// control characters (a NUL would be a 500 on PostgreSQL); a FieldError
// naming field otherwise. "" passes (callers decide whether the field is
// required).
func CheckID(field, s string) error {
	if len(s) > maxID || !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		return InvalidField(field)
	}
	return nil
}

// maxID is the longest id or client key accepted.
const maxID = 64

// foldRune is one rune as the search compares it: lower case, French and
// other Latin accents dropped (É, é, è → e). One rune in, one rune out, so
// an index into the folded runes is one into the original's.
func foldRune(r rune) rune {
	r = unicode.ToLower(r)
	if r < 0xC0 {
		return r
	}
	if f, ok := accentFold[r]; ok {
		return f
	}
	return r
}

var accentFold = func() map[rune]rune {
	m := map[rune]rune{}
	for base, list := range map[rune]string{'a': "àáâãäåāăą", 'c': "çćĉċč", 'e': "èéêëēĕėęě", 'i': "ìíîïĩīĭįı",
		'n': "ñńņňŉ", 'o': "òóôõöøōŏő", 'u': "ùúûüũūŭůűų", 'y': "ýÿŷ", 'g': "ĝğġģ", 's': "śŝşš", 'z': "źżž",
		'd': "ď", 'l': "ĺļľŀł", 'r': "ŕŗř", 't': "ţťŧ", 'h': "ĥħ", 'j': "ĵ", 'k': "ķ", 'w': "ŵ"} {
		for _, r := range list {
			m[r] = base
		}
	}
	return m
}()

// fold is s as the search stores and compares it (foldRune on each rune).
func fold(s string) string {
	return strings.Map(foldRune, s)
}
