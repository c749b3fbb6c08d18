// Package notify delivers email and SMS through a transactional outbox.
//
// A flow queues a message with Enqueue in the same transaction as the change
// that causes it (a code created, a password changed), so there is no
// message without its change and no change without its message. A Worker
// claims due rows with a lease, renders them at send time from embedded
// templates (per brand and language), hands them to an EmailSender or an
// SMSSender, and records the outcome: sent, retried later with backoff and
// jitter, failed for good, or abandoned once its content has expired. The
// row id is the email's Message-ID, so a retry is recognisable.
//
// Codes, links and passwords never reach a log line: Message, Email and SMS
// log themselves without their data or bodies, and the worker logs ids,
// templates and outcomes only.
//
// Size: about 2,400 lines, one pipeline: the outbox (notify.go), its worker
// and lease (worker.go), the two senders (smtp.go, sms.go), the templates
// (templates.go), the operators' commands (admin.go) and the dev mailbox
// (mailbox.go), which reads the same rows. A message's life is read in one
// place; each file is one stage of it.
package notify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"guichet/internal/store"
)

// Channel is how a message travels.
type Channel string

// Channels.
const (
	ChannelEmail Channel = "email"
	ChannelSMS   Channel = "sms"
	// ChannelLogout is an OpenID back-channel logout (issue 30): a signed
	// logout token posted to a client's back-channel logout URI (the
	// recipient), by the LogoutSender; nothing is rendered.
	ChannelLogout Channel = "logout"
)

// Templates. Each one exists for every brand and language, as email (subject,
// HTML and plain text) and, for the code templates, as SMS.
const (
	// TemplateRegistrationCode is the registration verification code (email
	// and SMS). Data: code; optional minutes, firstName.
	TemplateRegistrationCode = "registration-code"
	// TemplateResetCode is the password-reset code (email and SMS).
	// Data: code; optional minutes, firstName.
	TemplateResetCode = "reset-code"
	// TemplateResetLink is the RESET_PSW notification: a link to choose a new
	// password. Data: link; optional minutes, firstName.
	TemplateResetLink = "reset-link"
	// TemplateLockedAccount is the LOCKED_ACCOUNT notice. Optional data:
	// link (to reset the password), firstName.
	TemplateLockedAccount = "locked-account"
	// TemplateAccountCreated confirms a new online account. Optional data:
	// link (to sign in), firstName.
	TemplateAccountCreated = "account-created"
	// TemplatePasswordChanged tells the password was changed. Optional data:
	// firstName.
	TemplatePasswordChanged = "password-changed"
	// TemplateRegistrationNotice tells an account's owner that someone
	// passed registration's identification for the person who holds it (a
	// security notice). Optional data: firstName.
	TemplateRegistrationNotice = "registration-notice"
	// TemplateRegistrationInvite is legacy registration's link to confirm an
	// email address (brand emailProof: link): opening it continues the
	// registration. Data: link; optional minutes, firstName.
	TemplateRegistrationInvite = "registration-invite"
	// TemplateInvitationEdoc, TemplateInvitationBA and TemplateInvitationMrkt
	// are the emailed magic-link invitations of internal/emailtoken, one per
	// source (e-documents, broker or agent, marketing). Data: link, expires;
	// optional firstName.
	TemplateInvitationEdoc = "invitation_edoc"
	TemplateInvitationBA   = "invitation_BA"
	TemplateInvitationMrkt = "invitation_mrkt"
	// TemplateTemporaryPassword carries a temporary password staff issued
	// from the console (issue 16). Data: code (the password), expires.
	TemplateTemporaryPassword = "temporary-password"
	// TemplateChatTranscript is a live chat's transcript, sent to the
	// visitor who asked for it (issue 17). Data: transcript; optional
	// firstName.
	TemplateChatTranscript = "chat-transcript"
	// TemplateChatOfflineReply is an agent's answer to a message left with
	// the chat's message form (issue 17). Data: question, answer; optional
	// firstName.
	TemplateChatOfflineReply = "chat-offline-reply"
	// TemplateNewDevice tells the customer their account was signed in to
	// from a browser it had not seen in 90 days (issue 31). Data: when (RFC
	// 3339), link (to /forgot); optional browser, system, firstName,
	// province (its time zone).
	TemplateNewDevice = "new-device"
	// TemplateExportReady tells the customer the export of their data they
	// asked for is ready on My account (issue 31). Data: link (to My
	// account), expires (the last day, YYYY-MM-DD); optional firstName,
	// province.
	TemplateExportReady = "data-export-ready"
	// TemplateAccountDeletion confirms a deletion asked for on My account
	// (issue 31): the day it happens and a link that cancels it (its
	// token is single-use). Data: link, expires (the deletion's day,
	// YYYY-MM-DD); optional firstName, province.
	TemplateAccountDeletion = "account-deletion"
	// TemplateConfirmCode is a code that confirms a change on My account
	// (issue 31): a re-authentication by email, a new email address or a
	// new cell phone (email and SMS). Data: code; optional minutes.
	TemplateConfirmCode = "confirm-code"
	// TemplateEmailChanged tells the account's former address that it was
	// replaced (issue 31), with a link that undoes it. Data: address (the
	// new one), when (RFC 3339: the link's end), link.
	TemplateEmailChanged = "email-changed"
	// TemplatePhoneChanged tells the account's address that its cell phone
	// was changed (issue 31). Data: link (to /forgot); optional province.
	TemplatePhoneChanged = "phone-changed"
	// TemplateBackchannelLogout is a back-channel logout (ChannelLogout).
	// Data: issuer, client, subject.
	TemplateBackchannelLogout = "backchannel-logout"
)

// Data keys the templates read. "province" picks the phone number shown
// (the brand's default province when absent).
const (
	DataCode      = "code"
	DataLink      = "link"
	DataFirstName = "firstName"
	DataMinutes   = "minutes"
	DataProvince  = "province"
	// DataExpires is a date (YYYY-MM-DD), shown in the message's language.
	DataExpires = "expires"
	// DataTranscript, DataQuestion and DataAnswer are chat texts: several
	// lines, longer than other data (maxTextValue).
	DataTranscript = "transcript"
	DataQuestion   = "question"
	DataAnswer     = "answer"
	// DataIssuer, DataClient and DataSubject name a back-channel logout's
	// issuer, client id and subject.
	DataIssuer  = "issuer"
	DataClient  = "client"
	DataSubject = "subject"
	// DataWhen is an instant (RFC 3339), shown in the message's language
	// and the province's time zone; DataBrowser and DataSystem name a
	// browser and its system ("" when unknown).
	DataWhen    = "when"
	DataBrowser = "browser"
	DataSystem  = "system"
	// DataAddress is a new email address or phone number.
	DataAddress = "address"
)

// templateSpec says what a template needs.
type templateSpec struct {
	channels  []Channel
	required  []string
	sensitive bool // holds a code or a link: purged after delivery whatever the caller says
}

var catalogue = map[string]templateSpec{
	TemplateRegistrationCode:   {channels: []Channel{ChannelEmail, ChannelSMS}, required: []string{DataCode}, sensitive: true},
	TemplateResetCode:          {channels: []Channel{ChannelEmail, ChannelSMS}, required: []string{DataCode}, sensitive: true},
	TemplateResetLink:          {channels: []Channel{ChannelEmail}, required: []string{DataLink}, sensitive: true},
	TemplateLockedAccount:      {channels: []Channel{ChannelEmail}},
	TemplateAccountCreated:     {channels: []Channel{ChannelEmail}},
	TemplatePasswordChanged:    {channels: []Channel{ChannelEmail}},
	TemplateRegistrationInvite: {channels: []Channel{ChannelEmail}, required: []string{DataLink}, sensitive: true},
	TemplateRegistrationNotice: {channels: []Channel{ChannelEmail}},
	TemplateInvitationEdoc:     {channels: []Channel{ChannelEmail}, required: []string{DataLink, DataExpires}, sensitive: true},
	TemplateInvitationBA:       {channels: []Channel{ChannelEmail}, required: []string{DataLink, DataExpires}, sensitive: true},
	TemplateInvitationMrkt:     {channels: []Channel{ChannelEmail}, required: []string{DataLink, DataExpires}, sensitive: true},
	TemplateTemporaryPassword:  {channels: []Channel{ChannelEmail}, required: []string{DataCode, DataExpires}, sensitive: true},
	TemplateChatTranscript:     {channels: []Channel{ChannelEmail}, required: []string{DataTranscript}},
	TemplateChatOfflineReply:   {channels: []Channel{ChannelEmail}, required: []string{DataQuestion, DataAnswer}},
	TemplateNewDevice:          {channels: []Channel{ChannelEmail}, required: []string{DataWhen, DataLink}},
	TemplateExportReady:        {channels: []Channel{ChannelEmail}, required: []string{DataLink, DataExpires}},
	TemplateAccountDeletion:    {channels: []Channel{ChannelEmail}, required: []string{DataLink, DataExpires}, sensitive: true},
	TemplateConfirmCode:        {channels: []Channel{ChannelEmail, ChannelSMS}, required: []string{DataCode}, sensitive: true},
	TemplateEmailChanged:       {channels: []Channel{ChannelEmail}, required: []string{DataAddress, DataWhen, DataLink}, sensitive: true},
	TemplatePhoneChanged:       {channels: []Channel{ChannelEmail}, required: []string{DataLink}},
	TemplateBackchannelLogout:  {channels: []Channel{ChannelLogout}, required: []string{DataIssuer, DataClient, DataSubject}},
}

// Templates lists the names of the rendered templates (email and SMS; a
// back-channel logout renders nothing), sorted.
func Templates() []string {
	names := make([]string, 0, len(catalogue))
	for n, spec := range catalogue {
		if !slices.Contains(spec.channels, ChannelLogout) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// languages the templates are written in.
var languages = []string{"en", "fr"}

// Message is one notification to queue.
type Message struct {
	Brand    string  // brand id, e.g. "belair"
	Language string  // "en" or "fr"
	Channel  Channel // ChannelEmail or ChannelSMS
	// To is an email address (ChannelEmail) or a phone number (ChannelSMS): E.164
	// ("+15145550123") or 10 digits ("5145550123", read as +1).
	To       string
	Template string            // one of the Template constants
	Data     map[string]string // template data (Data* keys)
	// Sensitive marks data holding a code, a link or a password: it is purged
	// after delivery. Templates that need a code or a link are always
	// sensitive.
	Sensitive bool
	// ExpiresAt abandons the message if it is not delivered by then (a
	// 10-minute code); zero means never.
	ExpiresAt time.Time
}

// LogValue keeps the data out of logs.
func (m Message) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("brand", m.Brand), slog.String("language", m.Language),
		slog.String("channel", string(m.Channel)), slog.String("template", m.Template))
}

// Errors of Enqueue; they wrap a description of what is wrong.
var (
	ErrInvalidAddress = errors.New("notify: invalid recipient")
	ErrInvalidMessage = errors.New("notify: invalid message")
)

// Limits of the data a message may carry.
const (
	maxDataKeys  = 8
	maxDataValue = 2048
	// maxTextValue bounds a chat text (textKeys): a transcript of a long
	// conversation.
	maxTextValue = 256 << 10
)

var (
	brandIDPattern = regexp.MustCompile(`^[a-z][a-z0-9]{1,19}$`)
	digitsPattern  = regexp.MustCompile(`^[0-9]{1,4}$`)
	knownDataKeys  = []string{DataCode, DataLink, DataFirstName, DataMinutes, DataProvince, DataExpires,
		DataTranscript, DataQuestion, DataAnswer, DataIssuer, DataClient, DataSubject, DataWhen, DataBrowser, DataSystem, DataAddress}
	// textKeys are the data keys holding several lines of text.
	textKeys = []string{DataTranscript, DataQuestion, DataAnswer}
)

// Queue is Enqueue, then wake (the worker's Poke; nil for none) once tx
// commits, so that the message leaves at once rather than at the worker's
// next poll.
func Queue(ctx context.Context, tx *store.Tx, m Message, wake func()) error {
	if _, err := Enqueue(ctx, tx, m); err != nil {
		return err
	}
	if wake != nil {
		tx.AfterCommit(wake)
	}
	return nil
}

// Enqueue validates m and writes it to the outbox in tx, due at once. It
// returns the message id (the email's Message-ID is <outbox-ID@guichet>).
// Call the worker's Poke after the transaction commits to deliver at once
// (Queue does).
func Enqueue(ctx context.Context, tx *store.Tx, m Message) (string, error) {
	now := time.Now()
	to, err := m.validate(now)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(m.Data)
	if err != nil {
		return "", fmt.Errorf("%w: data: %v", ErrInvalidMessage, err)
	}
	if m.Data == nil {
		data = []byte("{}")
	}
	id, err := newID()
	if err != nil {
		return "", err
	}
	var expires int64
	if !m.ExpiresAt.IsZero() {
		expires = m.ExpiresAt.UnixMilli()
	}
	sensitive := m.Sensitive || catalogue[m.Template].sensitive
	_, err = tx.Exec(ctx, `INSERT INTO outbox (id, created_at, updated_at, brand, language, channel,
		recipient, template, data, sensitive, expires_at, state, next_attempt_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', 0)`,
		id, now.UnixMilli(), now.UnixMilli(), m.Brand, m.Language, string(m.Channel),
		to, m.Template, string(data), boolInt(sensitive), expires)
	if err != nil {
		return "", fmt.Errorf("notify: enqueue: %w", err)
	}
	return id, nil
}

// validate checks a message and returns its normalised recipient.
func (m Message) validate(now time.Time) (string, error) {
	if !brandIDPattern.MatchString(m.Brand) {
		return "", fmt.Errorf("%w: brand %q", ErrInvalidMessage, m.Brand)
	}
	if !slices.Contains(languages, m.Language) {
		return "", fmt.Errorf("%w: language %q", ErrInvalidMessage, m.Language)
	}
	spec, ok := catalogue[m.Template]
	if !ok {
		return "", fmt.Errorf("%w: unknown template %q", ErrInvalidMessage, m.Template)
	}
	if !sentBy(m.Template, m.Channel) {
		return "", fmt.Errorf("%w: template %s is not sent by %q", ErrInvalidMessage, m.Template, m.Channel)
	}
	if !m.ExpiresAt.IsZero() && !m.ExpiresAt.After(now) {
		return "", fmt.Errorf("%w: already expired", ErrInvalidMessage)
	}
	if err := validateData(m.Data, spec); err != nil {
		return "", err
	}
	return normaliseRecipient(m.Channel, m.To)
}

func validateData(data map[string]string, spec templateSpec) error {
	if len(data) > maxDataKeys {
		return fmt.Errorf("%w: %d data keys (at most %d)", ErrInvalidMessage, len(data), maxDataKeys)
	}
	for k, v := range data {
		if !slices.Contains(knownDataKeys, k) {
			return fmt.Errorf("%w: unknown data key %q", ErrInvalidMessage, k)
		}
		if slices.Contains(textKeys, k) {
			if len(v) > maxTextValue || !utf8.ValidString(v) || strings.ContainsFunc(v, isControlButLine) {
				return fmt.Errorf("%w: data %q is too long, not UTF-8 or holds control characters", ErrInvalidMessage, k)
			}
			continue
		}
		if len(v) > maxDataValue || !utf8.ValidString(v) || strings.ContainsFunc(v, isControl) {
			return fmt.Errorf("%w: data %q is too long, not UTF-8 or holds control characters", ErrInvalidMessage, k)
		}
	}
	for _, k := range spec.required {
		if strings.TrimSpace(data[k]) == "" {
			return fmt.Errorf("%w: data %q is required", ErrInvalidMessage, k)
		}
	}
	if link, ok := data[DataLink]; ok && link != "" {
		u, err := url.Parse(link)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
			return fmt.Errorf("%w: link must be an absolute http(s) URL", ErrInvalidMessage)
		}
	}
	if m, ok := data[DataMinutes]; ok && !digitsPattern.MatchString(m) {
		return fmt.Errorf("%w: minutes must be a number", ErrInvalidMessage)
	}
	if w, ok := data[DataWhen]; ok {
		if _, err := time.Parse(time.RFC3339, w); err != nil {
			return fmt.Errorf("%w: when must be an RFC 3339 instant", ErrInvalidMessage)
		}
	}
	if d, ok := data[DataExpires]; ok {
		if _, err := time.Parse(time.DateOnly, d); err != nil {
			return fmt.Errorf("%w: expires must be a date (YYYY-MM-DD)", ErrInvalidMessage)
		}
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// isControlButLine is isControl letting line breaks and tabs through.
func isControlButLine(r rune) bool { return r != '\n' && r != '\t' && isControl(r) }

// newID returns a random 128-bit id in hex.
func newID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("notify: id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Permanent marks a delivery error as permanent: the message is marked
// failed and not retried. Senders return other errors for temporary
// failures (retried with backoff).
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

// IsPermanent tells whether a delivery error is permanent.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

type permanentError struct{ err error }

func (e *permanentError) Error() string { return "permanent: " + e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }
