package oidc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"guichet/internal/audit"
	"guichet/internal/store"
)

// Consent to third-party clients (issue 30): a client marked third-party
// gets a code only once the customer has said what it may have, on the
// portal's consent page; the answer is kept per account and client, with
// the scopes it covers, until the customer takes it back on /my-account.

// Consent is what a customer allowed a third-party client.
type Consent struct {
	ClientID   string
	ClientName string
	Brand      string
	Scopes     []string
	GrantedAt  time.Time
}

// NeedsConsent reports whether a completed request must wait for the
// customer's yes before its callback gives a code: its client is
// third-party, it was not consented to, and either it asked again
// (prompt=consent) or no kept consent covers its scopes.
func (s *Service) NeedsConsent(ctx context.Context, a AuthRequest, c Client) (bool, error) {
	if !c.ThirdParty || !a.ConsentedAt.IsZero() {
		return false, nil
	}
	if slices.Contains(a.Prompt, "consent") {
		return true, nil
	}
	var scopes string
	err := s.DB.QueryRow(ctx, "SELECT scopes FROM oidc_consents WHERE account_id = ? AND client_id = ?", a.AccountID, a.ClientID).Scan(&scopes)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return true, nil
	case err != nil:
		return false, err
	}
	kept := words(scopes)
	for _, sc := range a.Scopes {
		if !slices.Contains(kept, sc) {
			return true, nil
		}
	}
	return false, nil
}

// GiveConsent records the customer's yes to a completed, unanswered request
// of theirs: the request may give its code, and the kept consent covers its
// scopes from now on.
func (s *Service) GiveConsent(ctx context.Context, id, accountID string) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		a, err := s.consentable(ctx, tx, id, accountID, now)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE oidc_auth_requests SET consented_at = ? WHERE id = ?", now.UnixMilli(), a.ID); err != nil {
			return fmt.Errorf("consent: %w", err)
		}
		var kept string
		err = tx.QueryRow(ctx, "SELECT scopes FROM oidc_consents WHERE account_id = ? AND client_id = ?", accountID, a.ClientID).Scan(&kept)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		scopes := words(kept)
		for _, sc := range a.Scopes {
			if !slices.Contains(scopes, sc) {
				scopes = append(scopes, sc)
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO oidc_consents (account_id, client_id, brand, scopes, granted_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (account_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at`,
			accountID, a.ClientID, a.Brand, strings.Join(scopes, " "), now.UnixMilli()); err != nil {
			return fmt.Errorf("consent: %w", err)
		}
		return audit.Record(ctx, tx, audit.Event{At: now, Brand: a.Brand, AccountID: accountID, Event: audit.OIDCConsent, Outcome: "ok",
			Detail: "client:" + a.ClientID})
	})
}

// RefuseConsent records the customer's no: the request ends (its client
// hears access_denied) and gives nothing, and a consent kept from before is
// taken back (WithdrawConsent's effects).
func (s *Service) RefuseConsent(ctx context.Context, id, accountID string) (AuthRequest, error) {
	var a AuthRequest
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		now := s.Now()
		var err error
		if a, err = s.consentable(ctx, tx, id, accountID, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE oidc_auth_requests SET expires_at = ? WHERE id = ?", now.UnixMilli(), a.ID); err != nil {
			return fmt.Errorf("refuse consent: %w", err)
		}
		// A no to a client asking again (prompt=consent) takes back what was
		// allowed before: the customer said no, so nothing of it stays.
		if _, err := s.forget(ctx, tx, a.Brand, accountID, a.ClientID); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{At: now, Brand: a.Brand, AccountID: accountID, Event: audit.OIDCConsent, Outcome: "denied",
			Detail: "client:" + a.ClientID})
	})
	return a, err
}

// consentable reads a live request completed by accountID whose code was
// not issued: ErrRequestNotFound otherwise.
func (s *Service) consentable(ctx context.Context, tx *store.Tx, id, accountID string, now time.Time) (AuthRequest, error) {
	a, err := scanRequest(tx.QueryRow(ctx, "SELECT "+requestColumns+" FROM oidc_auth_requests WHERE id = ? AND expires_at > ?", id, now.UnixMilli()))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return AuthRequest{}, ErrRequestNotFound
	case err != nil:
		return AuthRequest{}, err
	case !a.Done() || a.AccountID != accountID || a.Answered():
		return AuthRequest{}, ErrRequestNotFound
	}
	return a, nil
}

// Consents lists what an account allowed third-party clients, newest
// first, with each client's name.
func (s *Service) Consents(ctx context.Context, brand, accountID string) ([]Consent, error) {
	rows, err := s.DB.Query(ctx, `SELECT k.client_id, c.name, k.brand, k.scopes, k.granted_at FROM oidc_consents k JOIN oidc_clients c ON c.id = k.client_id
		WHERE k.account_id = ? AND k.brand = ? ORDER BY k.granted_at DESC, k.client_id`, accountID, brand)
	if err != nil {
		return nil, fmt.Errorf("consents: %w", err)
	}
	return store.Collect(rows, func(r *sql.Rows) (Consent, error) {
		var c Consent
		var scopes string
		var granted int64
		err := r.Scan(&c.ClientID, &c.ClientName, &c.Brand, &scopes, &granted)
		c.Scopes, c.GrantedAt = words(scopes), store.FromMillis(granted)
		return c, err
	})
}

// WithdrawConsent takes a consent back: it is forgotten, the client's
// grants of the account end (the client is told by back-channel logout),
// so do its requests in flight (a code issued, a yes not yet turned into
// one), and its next sign-in asks again. ErrUnknownClient when there was
// none.
func (s *Service) WithdrawConsent(ctx context.Context, brand, accountID, clientID string) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		withdrawn, err := s.forget(ctx, tx, brand, accountID, clientID)
		if err != nil {
			return err
		}
		if !withdrawn {
			return ErrUnknownClient
		}
		return audit.Record(ctx, tx, audit.Event{At: s.Now(), Brand: brand, AccountID: accountID, Event: audit.OIDCConsentWithdraw, Outcome: "ok",
			Detail: "client:" + clientID})
	})
}

// forget deletes the account's kept consent to a client and ends what it
// gave: the client's live grants (told by back-channel logout) and its
// requests in flight. It reports whether a consent was kept.
func (s *Service) forget(ctx context.Context, tx *store.Tx, brand, accountID, clientID string) (bool, error) {
	res, err := tx.Exec(ctx, "DELETE FROM oidc_consents WHERE account_id = ? AND client_id = ? AND brand = ?", accountID, clientID, brand)
	if err != nil {
		return false, fmt.Errorf("withdraw consent: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return false, nil
	}
	if err := s.endRequests(ctx, tx, accountID, clientID); err != nil {
		return false, err
	}
	live, err := s.revokeLive(ctx, tx, accountID, clientID)
	if err != nil {
		return false, err
	}
	return true, s.tellClients(ctx, tx, live)
}
