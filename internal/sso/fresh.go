package sso

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"guichet/internal/api"
	"guichet/internal/store"
)

// FreshFor is how long a proof of who the customer is lets them make
// security changes on My account without another (issue 31): a sign-in,
// a password, a passkey or a code emailed to them.
const FreshFor = 10 * time.Minute

// ErrReauthRequired: the session's last proof is older than FreshFor; the
// customer proves again (internal/reauth) and the change goes on.
var ErrReauthRequired = errors.New("sso: re-authentication required")

// RequireFresh is nil when s proved who its customer is less than
// FreshFor ago, ErrReauthRequired otherwise.
func (svc *Service) RequireFresh(s Session) error {
	if s.ReauthAt.IsZero() || !svc.Now().Before(s.ReauthAt.Add(FreshFor)) {
		return ErrReauthRequired
	}
	return nil
}

// FreshUntil is when s's last proof stops counting (the zero time when it
// never proved anything).
func FreshUntil(s Session) time.Time {
	if s.ReauthAt.IsZero() {
		return time.Time{}
	}
	return s.ReauthAt.Add(FreshFor)
}

// MarkFresh records in tx that the customer of the session with that id
// proved who they are now. ErrNoSession when it has ended meanwhile.
func (svc *Service) MarkFresh(ctx context.Context, tx *store.Tx, sessionID string) error {
	if sessionID == "" {
		return ErrNoSession
	}
	res, err := tx.Exec(ctx, "UPDATE sessions SET reauth_at = ? WHERE id = ?", svc.Now().UnixMilli(), sessionID)
	if err != nil {
		return fmt.Errorf("mark session fresh: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("mark session fresh: %w", err)
	}
	if n == 0 {
		return ErrNoSession
	}
	return nil
}

// ErrReauthAnswer is ErrReauthRequired as the API answers it: 403
// REAUTH_REQUIRED; the SPA asks for a proof inline and sends again.
var ErrReauthAnswer = api.NewError(http.StatusForbidden, "REAUTH_REQUIRED", "security.reauth.required")

// Fresh is the session of a request that makes a security change: 401
// UNAUTHENTICATED without one, ErrReauthAnswer when its last proof is
// older than FreshFor.
func (h *Handler) Fresh(r *http.Request) (Session, error) {
	s, err := h.SignedIn(r)
	if err != nil {
		return Session{}, err
	}
	if err := h.Service.RequireFresh(s); err != nil {
		return Session{}, ErrReauthAnswer
	}
	return s, nil
}
