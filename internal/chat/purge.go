package chat

import (
	"context"
	"fmt"

	"guichet/internal/brand"
	"guichet/internal/store"
)

// Purge deletes the conversations (and their messages) of each brand
// created more than its chat.retentionMonths ago; the janitor runs it.
func Purge(ctx context.Context, s *Service, brands []*brand.Brand) (int64, error) {
	now := s.now()
	var n int64
	for _, b := range brands {
		cutoff := now.AddDate(0, -b.ChatRetentionMonths(), 0)
		// Messages first: SQLite enforces the foreign key, PostgreSQL
		// cascades; both end the same.
		if _, err := s.DB.Exec(ctx, `DELETE FROM chat_messages WHERE conversation_id IN
			(SELECT id FROM chat_conversations WHERE brand = ? AND created_at < ?)`, b.ID, store.Millis(cutoff)); err != nil {
			return n, fmt.Errorf("chat purge %s: %w", b.ID, err)
		}
		res, err := s.DB.Exec(ctx, "DELETE FROM chat_conversations WHERE brand = ? AND created_at < ?", b.ID, store.Millis(cutoff))
		if err != nil {
			return n, fmt.Errorf("chat purge %s: %w", b.ID, err)
		}
		k, _ := res.RowsAffected()
		n += k
	}
	return n, nil
}
