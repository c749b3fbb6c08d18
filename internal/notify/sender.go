package notify

import (
	"context"
	"log/slog"
	"time"
)

// Email is a rendered email handed to an EmailSender.
type Email struct {
	ID       string // outbox id; the Message-ID is <outbox-ID@guichet>
	To       string
	FromName string // display name of the sender: the brand's name
	Subject  string
	Text     string
	HTML     string
	Date     time.Time
	Brand    string
	Language string
	Template string
}

// MessageID is the email's Message-ID header value, angle brackets
// included.
func (e Email) MessageID() string { return "<" + messageIDValue(e.ID) + ">" }

func messageIDValue(id string) string { return "outbox-" + id + "@guichet" }

// LogValue keeps the bodies (codes, links) out of logs.
func (e Email) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", e.ID), slog.String("to", e.To),
		slog.String("brand", e.Brand), slog.String("template", e.Template))
}

// SMS is a rendered text message handed to an SMSSender.
type SMS struct {
	ID       string // outbox id
	To       string // E.164
	From     string // sender number or id; empty for the provider's default
	Body     string
	Brand    string
	Language string
	Template string
}

// LogValue keeps the body (a code) out of logs.
func (s SMS) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", s.ID), slog.String("to", s.To),
		slog.String("brand", s.Brand), slog.String("template", s.Template))
}

// EmailSender delivers one email. An error wrapped with Permanent is final
// (the message is marked failed); any other error is retried later.
type EmailSender interface {
	Send(ctx context.Context, e Email) error
}

// SMSSender delivers one text message; errors are classified as for
// EmailSender.
type SMSSender interface {
	SendSMS(ctx context.Context, s SMS) error
}

// LogSender logs who would have received what (id, recipient, brand,
// template), never the body: GUICHET_MAIL=log outside --dev.
type LogSender struct {
	Logger *slog.Logger // slog.Default() when nil
}

var (
	_ EmailSender = (*LogSender)(nil)
	_ SMSSender   = (*LogSender)(nil)
)

// Send logs the email without its body.
func (l *LogSender) Send(ctx context.Context, e Email) error {
	l.logger().InfoContext(ctx, "email not sent (GUICHET_MAIL=log)", "email", e)
	return nil
}

// SendSMS logs the text message without its body.
func (l *LogSender) SendSMS(ctx context.Context, s SMS) error {
	l.logger().InfoContext(ctx, "sms not sent (GUICHET_MAIL=log)", "sms", s)
	return nil
}

func (l *LogSender) logger() *slog.Logger {
	if l == nil || l.Logger == nil {
		return slog.Default()
	}
	return l.Logger
}
