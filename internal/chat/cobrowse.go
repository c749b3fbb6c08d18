package chat

import (
	"context"
	"time"

	"guichet/internal/store"
)

// System message keys co-browse (internal/cobrowse) posts in a chat: the
// agent's request (its name is the co-browse session's id, which the
// visitor's consent answer names), the visitor's answer and the end.
const (
	SystemCobrowseRequest  = "cobrowseRequest"
	SystemCobrowseAccepted = "cobrowseAccepted"
	SystemCobrowseDeclined = "cobrowseDeclined"
	SystemCobrowseEnded    = "cobrowseEnded"
)

// PostSystem appends a system message to a live conversation in tx, which
// it locks first; check (may be nil) sees the locked conversation and may
// refuse. The caller announces it with Announce once tx commits.
func PostSystem(ctx context.Context, tx *store.Tx, convID, key, name string, now time.Time, check func(Conversation) error) (Conversation, error) {
	c, err := lockLive(ctx, tx, convID, store.Millis(now))
	if err != nil {
		return c, err
	}
	if check != nil {
		if err := check(c); err != nil {
			return c, err
		}
	}
	_, _, err = appendMessage(ctx, tx, systemMessage(convID, key, name, store.Millis(now)))
	return c, err
}

// Announce wakes a conversation's sockets after a commit of PostSystem.
func (s *Service) Announce(ctx context.Context, convID string) { s.notify(ctx, convID, false) }
