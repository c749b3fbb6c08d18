package notify

import (
	"context"
	_ "embed"
	"fmt"
	htmltemplate "html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/store"
)

// Dev mailbox routes; Handler serves them at these full paths (mount it at
// /_dev/ without stripping the prefix).
const (
	mailboxPath        = "/_dev/mail"
	mailboxJSONPath    = "/_dev/mail.json"
	mailboxCSSPath     = "/_dev/mail.css"
	mailboxPreviewPath = "/_dev/mail/preview"

	mailboxPageLimit    = 50
	mailboxJSONLimit    = 100
	mailboxJSONMaxLimit = 1000
)

var (
	//go:embed mailbox/page.html
	mailboxPageHTML string
	//go:embed mailbox/mail.css
	mailboxCSS []byte

	mailboxPage = htmltemplate.Must(htmltemplate.New("page").Parse(mailboxPageHTML))
)

// Mailbox is the dev mailbox: an EmailSender and an SMSSender that store
// what they are given in the database instead of delivering it, listed at
// /_dev/mail and /_dev/mail.json. For --dev only: it shows codes and links.
type Mailbox struct {
	db     *store.DB
	brands *brand.Registry
	now    func() time.Time
}

var (
	_ EmailSender = (*Mailbox)(nil)
	_ SMSSender   = (*Mailbox)(nil)
)

// NewMailbox returns the dev mailbox; brands feed the template previews.
func NewMailbox(db *store.DB, brands *brand.Registry) *Mailbox {
	return &Mailbox{db: db, brands: brands, now: time.Now}
}

// Send stores an email.
func (m *Mailbox) Send(ctx context.Context, e Email) error {
	if err := checkEmailAddress(e.To); err != nil {
		return Permanent(err)
	}
	return m.store(ctx, MailboxMessage{ID: e.ID, To: e.To, From: e.FromName, Subject: e.Subject, Text: e.Text,
		HTML: e.HTML, Channel: ChannelEmail, Brand: e.Brand, Language: e.Language, Template: e.Template})
}

// SendSMS stores a text message.
func (m *Mailbox) SendSMS(ctx context.Context, s SMS) error {
	return m.store(ctx, MailboxMessage{ID: s.ID, To: s.To, From: s.From, Text: s.Body, Channel: ChannelSMS,
		Brand: s.Brand, Language: s.Language, Template: s.Template})
}

func (m *Mailbox) store(ctx context.Context, msg MailboxMessage) error {
	_, err := m.db.Exec(ctx, `INSERT INTO dev_mailbox (outbox_id, created_at, channel, brand, language, template,
		recipient, sender, subject, text_body, html_body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		msg.ID, m.now().UnixMilli(), string(msg.Channel), msg.Brand, msg.Language, msg.Template,
		msg.To, msg.From, msg.Subject, msg.Text, msg.HTML)
	if err != nil {
		return fmt.Errorf("dev mailbox: %w", err)
	}
	return nil
}

// MailboxMessage is one stored message, as /_dev/mail.json lists it. Text
// is the plain-text part of an email or the body of an SMS.
type MailboxMessage struct {
	ID        string    `json:"id"`
	To        string    `json:"to"`
	From      string    `json:"from"`
	Subject   string    `json:"subject"`
	Text      string    `json:"text"`
	HTML      string    `json:"html"`
	Channel   Channel   `json:"channel"`
	Brand     string    `json:"brand"`
	Language  string    `json:"language"`
	Template  string    `json:"template"`
	CreatedAt time.Time `json:"createdAt"`
}

// Messages returns stored messages, newest first, to one recipient when to
// is not empty.
func (m *Mailbox) Messages(ctx context.Context, to string, limit int) ([]MailboxMessage, error) {
	q := `SELECT outbox_id, recipient, sender, subject, text_body, html_body, channel, brand, language, template,
		created_at FROM dev_mailbox`
	args := []any{}
	if to != "" {
		q += ` WHERE recipient = ?`
		args = append(args, to)
	}
	q += ` ORDER BY seq DESC LIMIT ?`
	args = append(args, limit)
	rows, err := m.db.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("dev mailbox: %w", err)
	}
	defer rows.Close()
	out := []MailboxMessage{}
	for rows.Next() {
		var msg MailboxMessage
		var ch string
		var created int64
		if err := rows.Scan(&msg.ID, &msg.To, &msg.From, &msg.Subject, &msg.Text, &msg.HTML, &ch,
			&msg.Brand, &msg.Language, &msg.Template, &created); err != nil {
			return nil, fmt.Errorf("dev mailbox: %w", err)
		}
		msg.Channel = Channel(ch)
		msg.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, msg)
	}
	return out, rows.Err()
}

// Handler serves GET /_dev/mail (HTML: every message with its HTML part in
// a sandboxed iframe, its plain-text part, SMS text, and links to template
// previews for every brand and language), GET /_dev/mail.json (newest
// first; ?to= filters by recipient, ?limit= up to 1000, default 100),
// GET /_dev/mail/preview?brand=&language=&template=&channel= and the page's
// stylesheet. The page needs no script; the emails' inline style
// attributes need style-src 'unsafe-inline' for /_dev/.
func (m *Mailbox) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+mailboxPath, m.page)
	mux.HandleFunc("GET "+mailboxJSONPath, m.json)
	mux.HandleFunc("GET "+mailboxCSSPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(mailboxCSS)
	})
	mux.HandleFunc("GET "+mailboxPreviewPath, m.preview)
	return mux
}

func (m *Mailbox) json(w http.ResponseWriter, r *http.Request) {
	limit := mailboxJSONLimit
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > mailboxJSONMaxLimit {
			api.WriteError(w, r, api.NewError(http.StatusBadRequest, "BAD_LIMIT", "error.badRequest"))
			return
		}
		limit = n
	}
	msgs, err := m.Messages(r.Context(), r.URL.Query().Get("to"), limit)
	if err != nil {
		api.WriteError(w, r, err)
		return
	}
	api.JSON(w, http.StatusOK, msgs)
}

// pageData feeds mailbox/page.html.
type pageData struct {
	Title     string
	Preview   bool
	Messages  []MailboxMessage
	Templates []string
	Previews  []previewRow
}

type previewRow struct {
	Brand, Language string
	Links           [][]previewLink // one cell per template, one link per channel
}

type previewLink struct {
	URL   string
	Label string
}

func (m *Mailbox) page(w http.ResponseWriter, r *http.Request) {
	msgs, err := m.Messages(r.Context(), "", mailboxPageLimit)
	if err != nil {
		api.WriteError(w, r, err)
		return
	}
	data := pageData{Title: "Dev mailbox", Messages: msgs, Templates: Templates()}
	if m.brands != nil {
		for _, b := range m.brands.All() {
			for _, lang := range languages {
				row := previewRow{Brand: b.ID, Language: lang}
				for _, t := range Templates() {
					var cell []previewLink
					for _, ch := range catalogue[t].channels {
						q := url.Values{"brand": {b.ID}, "language": {lang}, "template": {t}, "channel": {string(ch)}}
						cell = append(cell, previewLink{URL: mailboxPreviewPath + "?" + q.Encode(), Label: string(ch)})
					}
					row.Links = append(row.Links, cell)
				}
				data.Previews = append(data.Previews, row)
			}
		}
	}
	m.render(w, r, data)
}

func (m *Mailbox) preview(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	notFound := api.NewError(http.StatusNotFound, "NOT_FOUND", "error.notFound")
	if m.brands == nil {
		api.WriteError(w, r, notFound)
		return
	}
	b, ok := m.brands.ByID(q.Get("brand"))
	if !ok {
		api.WriteError(w, r, notFound)
		return
	}
	msg, err := previewMessage(b, q.Get("language"), q.Get("template"), Channel(q.Get("channel")))
	if err != nil {
		api.WriteError(w, r, notFound)
		return
	}
	m.render(w, r, pageData{Title: "Preview: " + msg.Template + " (" + msg.Brand + ", " + msg.Language + ", " +
		string(msg.Channel) + ")", Preview: true, Messages: []MailboxMessage{msg}})
}

// previewMessage renders a template with sample data (code 123456, a reset
// link, first name Alex) as the dev mailbox shows it.
func previewMessage(b *brand.Brand, language, template string, ch Channel) (MailboxMessage, error) {
	link := "https://" + b.ID + ".example/reset?token=preview"
	if len(b.Hosts) > 0 {
		link = "https://" + b.Hosts[0] + "/reset?token=preview"
	}
	data := map[string]string{DataFirstName: "Alex"}
	spec, ok := catalogue[template]
	if !ok {
		return MailboxMessage{}, fmt.Errorf("notify: unknown template %q", template)
	}
	for _, k := range spec.required {
		switch k {
		case DataCode:
			data[k] = "123456"
		case DataLink:
			data[k] = link
		case DataExpires:
			data[k] = "2026-12-01"
		}
	}
	if template == TemplateLockedAccount || template == TemplateAccountCreated {
		data[DataLink] = link
	}
	out, err := Render(b, language, template, ch, data)
	if err != nil {
		return MailboxMessage{}, err
	}
	msg := MailboxMessage{To: "alex@example.com", From: b.Name.For(language), Subject: out.Subject, Text: out.Text,
		HTML: out.HTML, Channel: ch, Brand: b.ID, Language: language, Template: template}
	if ch == ChannelSMS {
		msg.To, msg.Text = "+15145550123", out.SMS
	}
	return msg, nil
}

func (m *Mailbox) render(w http.ResponseWriter, r *http.Request, data pageData) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := mailboxPage.Execute(w, data); err != nil && r.Context().Err() == nil {
		slog.ErrorContext(r.Context(), "dev mailbox page", "err", err)
	}
}
