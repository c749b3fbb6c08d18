package chat

import (
	"context"
	"fmt"
	"time"

	"guichet/internal/store"
)

// What chat keeps on a customer, for their data export and their account's
// erasure (issue 31, internal/privacy): the conversations they had while
// signed in, with their transcripts.

type heldConversation struct {
	Kind      string        `json:"kind"`
	Topic     string        `json:"topic,omitempty"`
	Name      string        `json:"name"`
	Email     string        `json:"email,omitempty"`
	Question  string        `json:"question,omitempty"`
	AgentName string        `json:"agentName,omitempty"`
	StartedAt time.Time     `json:"startedAt"`
	EndedAt   time.Time     `json:"endedAt,omitzero"`
	Messages  []heldMessage `json:"messages"`
}

type heldMessage struct {
	At     time.Time `json:"at"`
	Sender string    `json:"sender"`
	Name   string    `json:"name,omitempty"`
	Text   string    `json:"text"`
}

// heldMessages bounds one transcript in an export.
const heldMessages = 10000

// HeldData is the account's conversations with their transcripts, for its
// data export.
func (s *Service) HeldData(ctx context.Context, brand, accountID string) (map[string]any, error) {
	convs, err := s.listConversations(ctx, s.DB, "brand = ? AND account_id = ? ORDER BY created_at, id", brand, accountID)
	if err != nil {
		return nil, err
	}
	out := make([]heldConversation, 0, len(convs))
	for _, c := range convs {
		h := heldConversation{Kind: c.Kind, Topic: c.Topic, Name: c.Name, Email: c.Email, Question: c.Question, AgentName: c.AgentName,
			StartedAt: store.FromMillis(c.CreatedAt), EndedAt: store.FromMillis(c.EndedAt), Messages: []heldMessage{}}
		msgs, err := messages(ctx, s.DB, c.ID, 0, heldMessages)
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			text := m.Body
			if text == "" && m.SystemKey != "" {
				text = m.SystemKey
			}
			h.Messages = append(h.Messages, heldMessage{At: store.FromMillis(m.At), Sender: m.Sender, Name: m.AgentName, Text: text})
		}
		out = append(out, h)
	}
	return map[string]any{"chats": out}, nil
}

// EraseHeld deletes the account's conversations and their messages, in the
// erasure's transaction.
func (s *Service) EraseHeld(ctx context.Context, tx *store.Tx, brand, accountID string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM chat_messages WHERE conversation_id IN
		(SELECT id FROM chat_conversations WHERE brand = ? AND account_id = ?)`, brand, accountID); err != nil {
		return fmt.Errorf("erase chat messages: %w", err)
	}
	if _, err := tx.Exec(ctx, "DELETE FROM chat_conversations WHERE brand = ? AND account_id = ?", brand, accountID); err != nil {
		return fmt.Errorf("erase chats: %w", err)
	}
	return nil
}
