// Package chat is Guichet's live chat (issue 17): visitors' conversations
// with agents (and the chatbot first when the brand has it), the agents'
// queue, availability and the offline message form.
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
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"guichet/internal/api"
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
	MaxBody             = 2000 // characters of a message, after trimming
	MaxFrameBytes       = 16 << 10
	PresenceWindow      = 60 * time.Second
	DefaultPollInterval = 2 * time.Second
	maxName             = 100
	maxTopic            = 100
	maxPage             = 300
	maxQuestion         = 2000
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
	Now     func() time.Time
	Bot     Bot // nil: no bot answers (chatbot brands start waiting)
	Limiter *throttle.Limiter
	// Notifier wakes the sockets (of every instance) after a commit.
	Notifier Notifier
	// Poke asks the outbox worker to deliver at once (may be nil).
	Poke func()
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
	// beforeTx runs between a staff action's first read and its
	// transaction (tests: a concurrent change lands there).
	beforeTx func()
}

// Errors of the chat, mapped once here to the API's shape.
var (
	ErrClosed            = api.NewError(http.StatusConflict, "CHAT_CLOSED", "chat.error.closed")
	ErrNoConversation    = api.NewError(http.StatusNotFound, "NO_CONVERSATION", "chat.error.noConversation")
	ErrNoCookie          = api.NewError(http.StatusUnauthorized, "NO_CONVERSATION", "chat.error.noConversation")
	ErrAlreadyTaken      = api.NewError(http.StatusConflict, "ALREADY_TAKEN", "chat.error.alreadyTaken")
	ErrAgentLimit        = api.NewError(http.StatusConflict, "AGENT_LIMIT", "chat.error.agentLimit")
	ErrForbiddenBrand    = api.NewError(http.StatusForbidden, "FORBIDDEN_BRAND", "console.error.forbiddenBrand")
	ErrForbiddenRole     = api.NewError(http.StatusForbidden, "FORBIDDEN_ROLE", "console.error.forbiddenRole")
	ErrNotFound          = api.NewError(http.StatusNotFound, "NOT_FOUND", "chat.error.notFound")
	ErrEnded             = api.NewError(http.StatusConflict, "CONVERSATION_ENDED", "chat.error.ended")
	ErrNotEnded          = api.NewError(http.StatusConflict, "NOT_ENDED", "chat.error.notEnded")
	ErrAlreadyDone       = api.NewError(http.StatusConflict, "ALREADY_DONE", "chat.error.alreadyDone")
	ErrNotHolder         = api.NewError(http.StatusConflict, "NOT_HOLDER", "chat.error.notHolder")
	ErrTargetUnavailable = api.NewError(http.StatusConflict, "TARGET_UNAVAILABLE", "chat.error.targetUnavailable")
	ErrNotOffline        = api.NewError(http.StatusConflict, "NOT_OFFLINE", "chat.error.notOffline")
	ErrWrongStatus       = api.NewError(http.StatusConflict, "WRONG_STATUS", "chat.error.wrongStatus")
	ErrTooLong           = api.NewError(http.StatusBadRequest, "MESSAGE_TOO_LONG", "chat.error.tooLong")
	ErrRateLimited       = api.NewError(http.StatusTooManyRequests, "RATE_LIMITED", "error.rateLimited")
	ErrCrossOrigin       = api.NewError(http.StatusForbidden, "CROSS_ORIGIN", "error.technical")
	// ErrSignedOut: the staff member's session or account is gone (the
	// agent socket closes with 4401).
	ErrSignedOut = api.NewError(http.StatusUnauthorized, "SIGN_IN_REQUIRED", "console.error.signInRequired")
)

// invalidField is 400 INVALID_FIELD naming the field.
func invalidField(field string) *api.Error {
	e := api.NewError(http.StatusBadRequest, "INVALID_FIELD", "chat.error.invalidField")
	e.Field = field
	return e
}

// newID is a conversation id: 16 random bytes, base64url (api.IsID's shape).
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// newSecret is a visitor cookie's 128-bit secret.
func newSecret() string { return newID() }

// secretHash is what the database keeps of a visitor secret.
func secretHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func rfc3339(msec int64) string {
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

// cleanID checks an id or short key a client sends (conversationId,
// clientId, staffId, brand): at most max bytes of valid UTF-8 without
// control characters (a NUL would be a 500 on PostgreSQL); 400
// INVALID_FIELD naming field otherwise. "" passes (callers decide whether
// the field is required).
func cleanID(field, s string, max int) error {
	if len(s) > max || !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		return invalidField(field)
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
