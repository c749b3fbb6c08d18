// Package cobrowse is co-browse (issue 18, docs/cobrowse.md): an agent
// watches the visitor's portal page live (rrweb events the visitor's
// browser records after consent), with the agent's pointer shown to the
// visitor as a highlight; no remote control.
//
// Rows first, as internal/chat: every frame is a cobrowse_events row that
// takes seq = last_seq + 1 in the transaction storing it, then the
// session's topic is announced through chat's Notifier; a woken socket
// reads the rows after the last seq it delivered, and a 2 s poll finds
// what a lost notification left behind, so any instance serves any side.
package cobrowse

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"guichet/internal/audit"
	"guichet/internal/brand"
	"guichet/internal/chat"
	"guichet/internal/codes"
	"guichet/internal/staff"
	"guichet/internal/store"
	"guichet/internal/throttle"
)

// Session origins, statuses and end reasons.
const (
	OriginCode = "code"
	OriginChat = "chat"

	StatusPending  = "pending"
	StatusWaiting  = "waiting"
	StatusActive   = "active"
	StatusDeclined = "declined"
	StatusEnded    = "ended"

	ReasonVisitor     = "visitor"
	ReasonAgent       = "agent"
	ReasonCap         = "cap"
	ReasonVisitorGone = "visitor_gone"
	ReasonExpired     = "expired"
	ReasonDeclined    = "declined"

	SenderVisitor = "visitor"
	SenderAgent   = "agent"
)

// Limits and times (docs/cobrowse.md).
const (
	CodeTTL        = 10 * time.Minute
	MaxCodeGuesses = 5
	GuessWindow    = 10 * time.Minute
	MaxDuration    = 60 * time.Minute
	GoneAfter      = 30 * time.Second
	SilentAfter    = 90 * time.Second
	MaxEventBytes  = 1 << 20
	MaxPointer     = 1 << 10
	EventRate      = 40 // events per second, burst twice as many
	PointerRate    = 20
)

// StartLimit is the visitor's code sessions per IP.
var StartLimit = throttle.Rule{Scope: "cobrowse.start", Limit: 10, Window: time.Hour}

// Errors of co-browse; the handlers map each to the API's status and
// error code (errors.go: apiError).
var (
	ErrUnavailable = errors.New("cobrowse: unavailable")
	ErrNoSession   = errors.New("cobrowse: no session")
	ErrNotFound    = errors.New("cobrowse: not found")
	ErrInvalidCode = errors.New("cobrowse: invalid code")
	ErrRateLimited = errors.New("cobrowse: rate limited")
	ErrPending     = errors.New("cobrowse: pending")
	ErrState       = errors.New("cobrowse: wrong state")
	ErrNotActive   = errors.New("cobrowse: not active")
	ErrTooLarge    = errors.New("cobrowse: frame too large")
	ErrBadFrame    = errors.New("cobrowse: invalid frame")
	// ErrWrongBrand: a consent sent from another brand's host than the session's.
	ErrWrongBrand = errors.New("cobrowse: wrong brand")
	// A conversation's brand not served, another agent's conversation:
	// the chat's errors (chat's API answers them).
	ErrForbiddenBrand = chat.ErrForbiddenBrand
	ErrNotHolder      = chat.ErrNotHolder
)

// GuessLimitedError is ErrRateLimited for an agent's wrong join codes,
// with the wait until the oldest that counts leaves GuessWindow.
type GuessLimitedError struct{ Wait time.Duration }

func (e *GuessLimitedError) Error() string { return ErrRateLimited.Error() }

// Is makes errors.Is(err, ErrRateLimited) true.
func (e *GuessLimitedError) Is(target error) bool { return target == ErrRateLimited }

// Audit outcomes of a refused join (the API's error codes of the refusal).
const (
	outcomeInvalidCode = "INVALID_CODE"
	outcomeRateLimited = "RATE_LIMITED"
)

// Session is one row of cobrowse_sessions; times are unix ms.
type Session struct {
	ID, Brand, Language, Origin, ConversationID string
	VisitorHash, Status, CodeHMAC               string
	CodeExpiresAt                               int64
	AgentID, AgentName                          string
	CreatedAt, ConsentAt, StartedAt, EndedAt    int64
	EndReason                                   string
	UpdatedAt, LastSeq, Version, SnapshotReq    int64
	VisitorSeenAt, VisitorLeftAt                int64
}

// Live tells whether the session may still stream or start streaming.
func (s Session) Live() bool {
	return s.Status == StatusPending || s.Status == StatusWaiting || s.Status == StatusActive
}

const columns = `id, brand, language, origin, conversation_id, visitor_hash, status, code_hmac, code_expires_at,
	agent_id, agent_name, created_at, consent_at, started_at, ended_at, end_reason, updated_at, last_seq, version,
	snapshot_req, visitor_seen_at, visitor_left_at`

type scanner interface{ Scan(dest ...any) error }

func scan(sc scanner) (Session, error) {
	var s Session
	err := sc.Scan(&s.ID, &s.Brand, &s.Language, &s.Origin, &s.ConversationID, &s.VisitorHash, &s.Status, &s.CodeHMAC,
		&s.CodeExpiresAt, &s.AgentID, &s.AgentName, &s.CreatedAt, &s.ConsentAt, &s.StartedAt, &s.EndedAt, &s.EndReason,
		&s.UpdatedAt, &s.LastSeq, &s.Version, &s.SnapshotReq, &s.VisitorSeenAt, &s.VisitorLeftAt)
	return s, err
}

type querier interface {
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
	Query(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func getSession(ctx context.Context, q querier, where string, args ...any) (Session, error) {
	s, err := scan(q.QueryRow(ctx, "SELECT "+columns+" FROM cobrowse_sessions WHERE "+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return s, ErrNotFound
	}
	if err != nil {
		return s, fmt.Errorf("cobrowse session: %w", err)
	}
	return s, nil
}

// Service is co-browse's domain: every change in one transaction with its
// audit row, announced through the Notifier after it commits.
type Service struct {
	DB       *store.DB
	Brands   func(id string) (*brand.Brand, bool)
	Chat     *chat.Service
	Now      func() time.Time
	Limiter  *throttle.Limiter
	Notifier chat.Notifier
	// Metrics counts the visitor frames refused for privacy (privacy.go).
	Metrics *Metrics
	codeKey []byte
}

// New builds the service: the code key derives from the `cobrowse` secret
// of recovery_secrets (shared by every instance).
func New(ctx context.Context, db *store.DB, chats *chat.Service, brands func(string) (*brand.Brand, bool), now func() time.Time) (*Service, error) {
	if now == nil {
		now = time.Now
	}
	secret, err := codes.LoadSecret(ctx, db, "cobrowse", now(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &Service{DB: db, Brands: brands, Chat: chats, Now: now, Limiter: throttle.New(db, now),
		Notifier: chats.Notifier, codeKey: codes.Derive(secret, "cobrowse-code")}, nil
}

func (s *Service) now() time.Time { return s.Now() }

// Topic is a session's Notifier topic.
func Topic(id string) string { return "cobrowse:" + id }

func (s *Service) notify(ctx context.Context, id string) {
	if s.Notifier != nil {
		s.Notifier.Notify(ctx, Topic(id))
	}
}

func detail(sess Session, staffID string) string {
	d := "session=" + sess.ID
	if sess.ConversationID != "" {
		d += " conversation=" + sess.ConversationID
	}
	if staffID != "" {
		d += " staff=" + staffID
	}
	return d
}

// Actor is who did something: a staff member, or the visitor (p zero).
type Actor struct {
	Staff staff.Principal
	IP    string
}

func (s *Service) audit(ctx context.Context, ex audit.Execer, who Actor, sess Session, event audit.Name, outcome string) error {
	e := audit.Event{At: s.now(), IP: who.IP, Event: event, Outcome: outcome}
	if who.Staff.ID != "" {
		e.Brand, e.AccountID, e.Actor, e.Detail = staff.AuditBrand, who.Staff.ID, who.Staff.Actor(), detail(sess, "")
	} else {
		e.Brand, e.Detail = sess.Brand, detail(sess, sess.AgentID)
	}
	return audit.Record(ctx, ex, e)
}

// Get reads a session.
func (s *Service) Get(ctx context.Context, id string) (Session, error) {
	return getSession(ctx, s.DB, "id = ?", id)
}

// ByVisitor is the cookie secret's latest session.
func (s *Service) ByVisitor(ctx context.Context, secret string) (Session, error) {
	if secret == "" || len(secret) > 64 {
		return Session{}, ErrNoSession
	}
	sess, err := getSession(ctx, s.DB, "visitor_hash = ? ORDER BY created_at DESC LIMIT 1", codes.TokenHash(secret))
	if errors.Is(err, ErrNotFound) {
		return sess, ErrNoSession
	}
	return sess, err
}

func newSecret() string {
	id, err := codes.RandomID(rand.Reader)
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return id
}

// Started is StartCode's answer: the session, the visitor's cookie secret
// and the code (shown once, stored as its HMAC).
type Started struct {
	Session Session
	Secret  string
	Code    string
}

// StartCode opens a session from the footer link after the visitor's
// consent: status waiting, a 6-digit code for the agent.
func (s *Service) StartCode(ctx context.Context, b *brand.Brand, language, ip string) (Started, error) {
	if !b.ScreenShare {
		return Started{}, ErrUnavailable
	}
	if wait, err := s.Limiter.Check(ctx, StartLimit, throttle.ClientKey(ip)); err != nil {
		return Started{}, err
	} else if wait > 0 {
		return Started{}, &throttle.Limited{Err: ErrRateLimited, RetryAfter: wait}
	}
	now := s.now()
	out := Started{Secret: newSecret()}
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		// Expired codes free their value for new ones.
		if _, err := tx.Exec(ctx, "UPDATE cobrowse_sessions SET code_hmac = '' WHERE code_hmac <> '' AND code_expires_at <= ?",
			now.UnixMilli()); err != nil {
			return err
		}
		for range 8 {
			code, err := codes.New(rand.Reader)
			if err != nil {
				return err
			}
			sess := Session{ID: newSecret(), Brand: b.ID, Language: language, Origin: OriginCode,
				VisitorHash: codes.TokenHash(out.Secret), Status: StatusWaiting, CodeHMAC: codes.HMAC(s.codeKey, code),
				CodeExpiresAt: now.Add(CodeTTL).UnixMilli(), CreatedAt: now.UnixMilli(), ConsentAt: now.UnixMilli(),
				UpdatedAt: now.UnixMilli(), VisitorLeftAt: now.UnixMilli()}
			ok, err := insert(ctx, tx, sess)
			if err != nil {
				return err
			}
			if ok {
				out.Session, out.Code = sess, code
				return s.audit(ctx, tx, Actor{IP: ip}, sess, audit.CobrowseStart, "ok")
			}
		}
		return errors.New("cobrowse: no free code")
	})
	return out, err
}

// insert stores a new session; false when its code is taken by a live one.
func insert(ctx context.Context, tx *store.Tx, x Session) (bool, error) {
	res, err := tx.Exec(ctx, `INSERT INTO cobrowse_sessions (id, brand, language, origin, conversation_id, visitor_hash,
		status, code_hmac, code_expires_at, agent_id, agent_name, created_at, consent_at, started_at, updated_at,
		visitor_left_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		x.ID, x.Brand, x.Language, x.Origin, x.ConversationID, x.VisitorHash, x.Status, x.CodeHMAC, x.CodeExpiresAt,
		x.AgentID, x.AgentName, x.CreatedAt, x.ConsentAt, x.StartedAt, x.UpdatedAt, x.VisitorLeftAt)
	if err != nil {
		return false, fmt.Errorf("cobrowse insert: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// RequestFromChat is the holder agent's request from a chat conversation:
// a pending session and the cobrowseRequest system message, together.
func (s *Service) RequestFromChat(ctx context.Context, who Actor, convID string) (Session, error) {
	p := who.Staff
	now := s.now()
	sess := Session{ID: newSecret(), Origin: OriginChat, ConversationID: convID, Status: StatusPending,
		AgentID: p.ID, AgentName: p.Name, CreatedAt: now.UnixMilli(), UpdatedAt: now.UnixMilli()}
	var forbidden bool
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		_, err := chat.PostSystem(ctx, tx, convID, chat.SystemCobrowseRequest, sess.ID, now, func(c chat.Conversation) error {
			if !p.Serves(c.Brand) {
				forbidden = true
				return ErrForbiddenBrand
			}
			if c.Status != chat.StatusActive || c.AgentID != p.ID {
				return ErrNotHolder
			}
			sess.Brand, sess.Language = c.Brand, c.Language
			var n int
			if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM cobrowse_sessions WHERE conversation_id = ?
				AND status IN ('pending', 'waiting', 'active')`, convID).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return ErrPending
			}
			return nil
		})
		if err != nil {
			return err
		}
		if _, err := insert(ctx, tx, sess); err != nil {
			return err
		}
		return s.audit(ctx, tx, who, sess, audit.CobrowseStart, "ok")
	})
	if forbidden {
		_ = s.audit(context.WithoutCancel(ctx), s.DB, who, Session{ID: "-", ConversationID: convID}, audit.ConsoleForbidden, "forbidden_brand")
	}
	if err != nil {
		return Session{}, err
	}
	s.Chat.Announce(ctx, convID)
	return sess, nil
}

// lock takes a session's row lock for the rest of tx and reads it.
func lock(ctx context.Context, tx *store.Tx, id string, now int64) (Session, error) {
	res, err := tx.Exec(ctx, "UPDATE cobrowse_sessions SET updated_at = ? WHERE id = ?", now, id)
	if err != nil {
		return Session{}, fmt.Errorf("cobrowse lock: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Session{}, ErrNotFound
	}
	return getSession(ctx, tx, "id = ?", id)
}

// Consent is the visitor's answer to a chat request, proven by the chat
// cookie (its conversation must be the session's). Accepting makes the
// session active and gives the visitor a co-browse cookie secret.
func (s *Service) Consent(ctx context.Context, id, brandID, chatSecret string, accept bool, ip string) (Session, string, error) {
	conv, err := s.Chat.ByVisitor(ctx, chatSecret)
	if err != nil {
		return Session{}, "", ErrNotFound
	}
	now := s.now()
	secret := ""
	var sess Session
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if sess, err = lock(ctx, tx, id, now.UnixMilli()); err != nil {
			return err
		}
		if sess.ConversationID == "" || sess.ConversationID != conv.ID {
			return ErrNotFound
		}
		// The answer comes from the session's brand's pages, nowhere else.
		if sess.Brand != brandID {
			return ErrWrongBrand
		}
		if sess.Status != StatusPending || sess.CreatedAt <= now.Add(-CodeTTL).UnixMilli() {
			return ErrState
		}
		key, event := chat.SystemCobrowseDeclined, audit.CobrowseDecline
		if accept {
			secret = newSecret()
			key, event = chat.SystemCobrowseAccepted, audit.CobrowseConsent
			_, err = tx.Exec(ctx, `UPDATE cobrowse_sessions SET status = 'active', visitor_hash = ?, consent_at = ?,
				started_at = ?, visitor_left_at = ?, version = version + 1 WHERE id = ?`, codes.TokenHash(secret), now.UnixMilli(),
				now.UnixMilli(), now.UnixMilli(), id)
		} else {
			_, err = tx.Exec(ctx, `UPDATE cobrowse_sessions SET status = 'declined', ended_at = ?, end_reason = 'declined',
				version = version + 1 WHERE id = ?`, now.UnixMilli(), id)
		}
		if err != nil {
			return fmt.Errorf("cobrowse consent: %w", err)
		}
		if _, err := chat.PostSystem(ctx, tx, conv.ID, key, sess.AgentName, now, nil); err != nil {
			return err
		}
		if err := s.audit(ctx, tx, Actor{IP: ip}, sess, event, "ok"); err != nil {
			return err
		}
		sess, err = getSession(ctx, tx, "id = ?", id)
		return err
	})
	if err != nil {
		return Session{}, "", err
	}
	s.notify(ctx, id)
	s.Chat.Announce(ctx, conv.ID)
	return sess, secret, nil
}

// ValidCode tells whether s is six digits.
func ValidCode(c string) bool {
	return len(c) == codes.Length && strings.Trim(c, "0123456789") == ""
}

// Join is the agent typing the visitor's code: the waiting session of that
// code becomes active with them as its agent. A wrong, expired or spent
// code counts against the agent (MaxCodeGuesses per GuessWindow, counted
// from the audit rows); a code of a brand they do not serve is refused
// and not spent; of concurrent joins with one code, one wins.
func (s *Service) Join(ctx context.Context, who Actor, code string) (Session, error) {
	p := who.Staff
	now := s.now()
	var sess Session
	var refusal error
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		refusal = nil
		if err := tx.Lock(ctx, "cobrowse.join:"+p.ID); err != nil {
			return err
		}
		fails, nthAt, err := audit.Outcomes(ctx, tx, staff.AuditBrand, p.ID, audit.CobrowseJoin, outcomeInvalidCode,
			now.Add(-GuessWindow), MaxCodeGuesses)
		if err != nil {
			return err
		}
		if fails >= MaxCodeGuesses {
			// The wait: until the MaxCodeGuesses-th latest wrong guess leaves the window.
			refusal = &GuessLimitedError{Wait: nthAt.Add(GuessWindow).Sub(now)}
			return s.audit(ctx, tx, who, Session{ID: "-"}, audit.CobrowseJoin, outcomeRateLimited)
		}
		if ValidCode(code) {
			sess, err = getSession(ctx, tx, "code_hmac = ? AND status = 'waiting' AND code_expires_at > ?",
				codes.HMAC(s.codeKey, code), now.UnixMilli())
		} else {
			err = ErrNotFound
		}
		if errors.Is(err, ErrNotFound) {
			refusal = ErrInvalidCode
			return s.audit(ctx, tx, who, Session{ID: "-"}, audit.CobrowseJoin, outcomeInvalidCode)
		}
		if err != nil {
			return err
		}
		if !p.Serves(sess.Brand) {
			refusal = ErrForbiddenBrand
			return s.audit(ctx, tx, who, sess, audit.ConsoleForbidden, "forbidden_brand")
		}
		res, err := tx.Exec(ctx, `UPDATE cobrowse_sessions SET status = 'active', code_hmac = '', agent_id = ?, agent_name = ?,
			started_at = ?, updated_at = ?, version = version + 1 WHERE id = ? AND status = 'waiting' AND code_hmac = ?`,
			p.ID, p.Name, now.UnixMilli(), now.UnixMilli(), sess.ID, sess.CodeHMAC)
		if err != nil {
			return fmt.Errorf("cobrowse join: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			refusal = ErrInvalidCode
			return s.audit(ctx, tx, who, Session{ID: "-"}, audit.CobrowseJoin, outcomeInvalidCode)
		}
		if err := s.audit(ctx, tx, who, sess, audit.CobrowseJoin, "ok"); err != nil {
			return err
		}
		sess, err = getSession(ctx, tx, "id = ?", sess.ID)
		return err
	})
	if err != nil {
		return Session{}, err
	}
	if refusal != nil {
		return Session{}, refusal
	}
	s.notify(ctx, sess.ID)
	return sess, nil
}

// End ends a live session for reason (an ended one stays as it was):
// events deleted unless the brand records, a chat-linked one says so in
// the chat, audited with who.
func (s *Service) End(ctx context.Context, who Actor, id, reason string) (Session, error) {
	var moved bool
	var sess Session
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if sess, err = getSession(ctx, tx, "id = ?", id); err != nil {
			return err
		}
		moved, err = s.endInTx(ctx, tx, who, sess, reason, s.now())
		return err
	})
	if err != nil {
		return Session{}, err
	}
	if moved {
		s.notify(ctx, id)
		if sess.ConversationID != "" {
			s.Chat.Announce(ctx, sess.ConversationID)
		}
	}
	return s.Get(ctx, id)
}

// endInTx is End's change in tx; false when sess was no longer live.
func (s *Service) endInTx(ctx context.Context, tx *store.Tx, who Actor, sess Session, reason string, now time.Time) (bool, error) {
	res, err := tx.Exec(ctx, `UPDATE cobrowse_sessions SET status = 'ended', ended_at = ?, end_reason = ?, code_hmac = '',
		updated_at = ?, version = version + 1 WHERE id = ? AND status IN ('pending', 'waiting', 'active')`,
		now.UnixMilli(), reason, now.UnixMilli(), sess.ID)
	if err != nil {
		return false, fmt.Errorf("cobrowse end: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if !s.records(sess.Brand) {
		if _, err := tx.Exec(ctx, "DELETE FROM cobrowse_events WHERE session_id = ?", sess.ID); err != nil {
			return false, err
		}
	}
	if sess.ConversationID != "" {
		_, err := chat.PostSystem(ctx, tx, sess.ConversationID, chat.SystemCobrowseEnded, sess.AgentName, now, nil)
		if err != nil && !errors.Is(err, chat.ErrEnded) && !errors.Is(err, chat.ErrNotFound) {
			return false, err
		}
	}
	return true, s.audit(ctx, tx, who, sess, audit.CobrowseEnd, reason)
}

// EndWithConversation is chat's OnEnd hook (internal/app sets it): in the
// transaction ending conversation convID, its live session ends too, for
// reason agent when a staff member ended the chat, else visitor (the
// visitor, from ip when known, or the sweep of a silent visitor). The
// conversation's own "ended" message says it in the chat; after announces
// the sessions, so both sockets close (rows first).
func (s *Service) EndWithConversation(ctx context.Context, tx *store.Tx, convID string, by staff.Principal, ip string,
	now time.Time) (func(context.Context), error) {
	who, reason := Actor{Staff: by}, ReasonAgent
	if by.ID == "" {
		who, reason = Actor{IP: ip}, ReasonVisitor
	}
	return s.endOfConversation(ctx, tx, convID, who, reason, now)
}

// EndWithTransfer is chat's OnTransfer hook (internal/app sets it): in the
// transaction handing conversation convID to another agent, its live
// session (pending or active) ends for reason agent, audited with the
// staff member who transferred it, and says so in the chat
// (cobrowseEnded): the former holder stops watching, the new holder may
// ask again. after closes both sockets (rows first).
func (s *Service) EndWithTransfer(ctx context.Context, tx *store.Tx, convID string, by staff.Principal,
	now time.Time) (func(context.Context), error) {
	return s.endOfConversation(ctx, tx, convID, Actor{Staff: by}, ReasonAgent, now)
}

func (s *Service) endOfConversation(ctx context.Context, tx *store.Tx, convID string, who Actor, reason string,
	now time.Time) (func(context.Context), error) {
	rows, err := tx.Query(ctx, "SELECT "+columns+` FROM cobrowse_sessions WHERE conversation_id = ?
		AND status IN ('pending', 'waiting', 'active')`, convID)
	if err != nil {
		return nil, fmt.Errorf("cobrowse of a conversation: %w", err)
	}
	live, err := store.Collect(rows, func(r *sql.Rows) (Session, error) { return scan(r) })
	if err != nil {
		return nil, err
	}
	var ended []string
	for _, sess := range live {
		moved, err := s.endInTx(ctx, tx, who, sess, reason, now)
		if err != nil {
			return nil, err
		}
		if moved {
			ended = append(ended, sess.ID)
		}
	}
	if len(ended) == 0 {
		return nil, nil
	}
	return func(ctx context.Context) {
		for _, id := range ended {
			s.notify(ctx, id)
		}
	}, nil
}

func (s *Service) records(brandID string) bool {
	b, ok := s.Brands(brandID)
	return ok && b.Cobrowse.Record
}

// AppendEvent stores a frame of sender as the session's next event; only
// while the session is active (consent recorded before). A visitor's frame
// that carries a field value or a page address query is refused
// (ErrPrivateValue, counted) and stored nowhere (privacy.go).
func (s *Service) AppendEvent(ctx context.Context, id, sender string, data []byte) (int64, error) {
	return s.appendEvent(ctx, id, sender, data, nil)
}

// AppendPointer stores the agent's pointer frame, only while p's staff
// session is signed in and the account enabled, checked in the statement
// that stores it (staff.Principal.LiveSQL): after a sign-out or a disable,
// staff.ErrSignInRequired.
func (s *Service) AppendPointer(ctx context.Context, id string, p staff.Principal, data []byte) (int64, error) {
	return s.appendEvent(ctx, id, SenderAgent, data, &p)
}

func (s *Service) appendEvent(ctx context.Context, id, sender string, data []byte, p *staff.Principal) (int64, error) {
	if sender == SenderVisitor {
		reason, err := PrivacyViolation(data)
		if err != nil {
			return 0, err
		}
		if reason != "" {
			s.Metrics.refuse(reason)
			return 0, ErrPrivateValue
		}
	}
	now := s.now().UnixMilli()
	live, args := "1 = 1", []any(nil)
	if p != nil {
		live, args = p.LiveSQL(time.UnixMilli(now))
	}
	var seq int64
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE cobrowse_sessions SET last_seq = last_seq + 1, updated_at = ?
			WHERE id = ? AND status = 'active' AND consent_at > 0 AND `+live+` RETURNING last_seq`,
			append([]any{now, id}, args...)...).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) && p != nil {
			var ok int
			if err := tx.QueryRow(ctx, "SELECT CASE WHEN "+live+" THEN 1 ELSE 0 END", args...).Scan(&ok); err != nil {
				return err
			}
			if ok == 0 {
				return staff.ErrSignInRequired
			}
		}
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotActive
		}
		if err != nil {
			return fmt.Errorf("cobrowse seq: %w", err)
		}
		_, err = tx.Exec(ctx, "INSERT INTO cobrowse_events (session_id, seq, sender, data, at) VALUES (?, ?, ?, ?, ?)",
			id, seq, sender, string(data), now)
		return err
	})
	if err != nil {
		return 0, err
	}
	s.notify(ctx, id)
	return seq, nil
}

// Event is one stored frame.
type Event struct {
	Seq    int64
	Sender string
	Data   string
}

// Events are a session's events of sender with seq > after, in order.
func (s *Service) Events(ctx context.Context, id, sender string, after int64, limit int) ([]Event, error) {
	rows, err := s.DB.Query(ctx, `SELECT seq, sender, data FROM cobrowse_events WHERE session_id = ? AND sender = ?
		AND seq > ? ORDER BY seq LIMIT ?`, id, sender, after, limit)
	if err != nil {
		return nil, fmt.Errorf("cobrowse events: %w", err)
	}
	return store.Collect(rows, func(rows *sql.Rows) (Event, error) {
		var e Event
		err := rows.Scan(&e.Seq, &e.Sender, &e.Data)
		return e, err
	})
}

// RequestSnapshot asks the visitor's recorder for a full snapshot (a
// viewer joined): snapshot_req + 1, which the visitor's socket turns into
// a snapshot frame.
func (s *Service) RequestSnapshot(ctx context.Context, id string) error {
	now := s.now().UnixMilli()
	if _, err := s.DB.Exec(ctx, `UPDATE cobrowse_sessions SET snapshot_req = snapshot_req + 1, version = version + 1,
		updated_at = ? WHERE id = ? AND status = 'active'`, now, id); err != nil {
		return fmt.Errorf("cobrowse snapshot: %w", err)
	}
	s.notify(ctx, id)
	return nil
}

// VisitorHere records a visitor socket's connect or ping; VisitorLeft its
// close (the sweep ends the session when none is back within GoneAfter).
func (s *Service) VisitorHere(ctx context.Context, id string) error {
	_, err := s.DB.Exec(ctx, "UPDATE cobrowse_sessions SET visitor_left_at = 0, visitor_seen_at = ? WHERE id = ?", s.now().UnixMilli(), id)
	return err
}

// VisitorLeft: see VisitorHere.
func (s *Service) VisitorLeft(ctx context.Context, id string) error {
	_, err := s.DB.Exec(ctx, `UPDATE cobrowse_sessions SET visitor_left_at = ? WHERE id = ? AND status IN ('waiting', 'active')`,
		s.now().UnixMilli(), id)
	return err
}

// Sweep ends the sessions past their time: an unused code or unanswered
// request after CodeTTL, an active session MaxDuration after it started, a
// visitor gone (no socket for GoneAfter, or no ping for SilentAfter).
// Idempotent across instances (End is a conditional update).
func (s *Service) Sweep(ctx context.Context) (int64, error) {
	now := s.now()
	ms := func(d time.Duration) int64 { return now.Add(-d).UnixMilli() }
	rows, err := s.DB.Query(ctx, `SELECT id,
		CASE WHEN status IN ('pending', 'waiting') AND created_at <= ? THEN 'expired'
		     WHEN status = 'active' AND started_at <= ? THEN 'cap'
		     ELSE 'visitor_gone' END
		FROM cobrowse_sessions WHERE status IN ('pending', 'waiting', 'active') AND (
		     status IN ('pending', 'waiting') AND created_at <= ?
		  OR status = 'active' AND started_at <= ?
		  OR status <> 'pending' AND (visitor_left_at <> 0 AND visitor_left_at <= ? OR visitor_seen_at <> 0 AND visitor_seen_at <= ?))`,
		ms(CodeTTL), ms(MaxDuration), ms(CodeTTL), ms(MaxDuration), ms(GoneAfter), ms(SilentAfter))
	if err != nil {
		return 0, fmt.Errorf("cobrowse sweep: %w", err)
	}
	type due struct{ id, reason string }
	list, err := store.Collect(rows, func(r *sql.Rows) (due, error) {
		var d due
		err := r.Scan(&d.id, &d.reason)
		return d, err
	})
	if err != nil {
		return 0, err
	}
	for _, d := range list {
		if _, err := s.End(ctx, Actor{}, d.id, d.reason); err != nil {
			return 0, err
		}
	}
	return int64(len(list)), nil
}

// Purge is the janitor's: events left by ended sessions of brands that do
// not record (a crash between the end and the delete cannot happen, the
// delete is in the end's transaction, but a brand may turn recording
// off), and sessions ended more than the brand's chat retention ago.
func (s *Service) Purge(ctx context.Context, brands []*brand.Brand) (int64, error) {
	var total int64
	for _, b := range brands {
		if !b.Cobrowse.Record {
			res, err := s.DB.Exec(ctx, `DELETE FROM cobrowse_events WHERE session_id IN (SELECT id FROM cobrowse_sessions
				WHERE brand = ? AND status IN ('ended', 'declined'))`, b.ID)
			if err != nil {
				return total, fmt.Errorf("cobrowse purge: %w", err)
			}
			n, _ := res.RowsAffected()
			total += n
		}
		cutoff := s.now().AddDate(0, -b.ChatRetentionMonths(), 0).UnixMilli()
		res, err := s.DB.Exec(ctx, `DELETE FROM cobrowse_sessions WHERE brand = ? AND status IN ('ended', 'declined')
			AND ended_at < ?`, b.ID, cutoff)
		if err != nil {
			return total, fmt.Errorf("cobrowse purge: %w", err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	return total, nil
}
