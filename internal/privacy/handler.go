package privacy

import (
	"errors"
	"net/http"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/sso"
)

// Handler serves the customer's data rights (routes in
// internal/httpapi/routes.go):
//
//	GET    /api/v1/me/privacy           Status
//	POST   /api/v1/me/export            RequestExport   (fresh proof)
//	GET    /api/v1/me/export.json       DownloadJSON    (fresh proof)
//	GET    /api/v1/me/export.html       DownloadHTML    (fresh proof)
//	POST   /api/v1/me/deletion          RequestDeletion (fresh proof)
//	DELETE /api/v1/me/deletion          CancelDeletion
//	POST   /api/v1/deletion/undo        UndoDeletion    (the emailed link's token)
type Handler struct {
	Service *Service
	// Sessions reads the request's session; the calls marked "fresh proof"
	// want its last proof of who the customer is no older than
	// sso.FreshFor (sso.Handler.Fresh: 403 REAUTH_REQUIRED).
	Sessions *sso.Handler
}

var (
	errNoExport    = api.NewError(http.StatusNotFound, "NO_EXPORT", "security.data.none")
	errNotPending  = api.NewError(http.StatusNotFound, "NO_DELETION", "security.deletion.none")
	errUndoInvalid = api.NewError(http.StatusNotFound, "UNDO_LINK_INVALID", "security.keep.invalid")
	errUndoTooLate = api.NewError(http.StatusGone, "UNDO_TOO_LATE", "security.keep.tooLate")
)

// answers are the package's domain errors as the API answers them.
var answers = []api.Answer{
	{Err: ErrNoExport, Answer: errNoExport}, {Err: ErrNotPending, Answer: errNotPending},
	{Err: ErrUndoInvalid, Answer: errUndoInvalid}, {Err: ErrUndoTooLate, Answer: errUndoTooLate},
	{Err: account.ErrNotFound, Answer: api.ErrUnauthenticated}, {Err: ErrTooManyExports, Answer: api.ErrTooManyRequest},
}

func apiError(err error) error { return api.Map(err, answers) }

// session is the request's session, 401 without one; with fresh, 403
// REAUTH_REQUIRED unless its last proof is recent.
func (h *Handler) session(r *http.Request, fresh bool) (sso.Session, error) {
	if fresh {
		return h.Sessions.Fresh(r)
	}
	s, err := h.Sessions.Current(r)
	if err != nil {
		return sso.Session{}, api.ErrUnauthenticated
	}
	return s, nil
}

type exportAnswer struct {
	State       string     `json:"state"` // requested | ready
	RequestedAt time.Time  `json:"requestedAt"`
	ReadyAt     *time.Time `json:"readyAt,omitempty"`
	ExpiresAt   *time.Time `json:"expiresAt,omitempty"`
}

type deletionAnswer struct {
	RequestedAt time.Time `json:"requestedAt"`
	DeleteAt    time.Time `json:"deleteAt"`
}

type statusAnswer struct {
	Export   *exportAnswer   `json:"export"`
	Deletion *deletionAnswer `json:"deletion"`
}

func exportOut(e Export) *exportAnswer {
	out := &exportAnswer{State: e.State, RequestedAt: e.RequestedAt}
	if e.State == ExportReady {
		out.ReadyAt, out.ExpiresAt = &e.ReadyAt, &e.ExpiresAt
	}
	return out
}

// Status is GET /api/v1/me/privacy: the account's export (null when none
// or expired) and pending deletion (null when none).
func (h *Handler) Status(w http.ResponseWriter, r *http.Request) error {
	s, err := h.session(r, false)
	if err != nil {
		return err
	}
	var out statusAnswer
	if e, err := h.Service.CurrentExport(r.Context(), s.Brand, s.AccountID); err == nil {
		out.Export = exportOut(e)
	} else if !errors.Is(err, ErrNoExport) {
		return err
	}
	if d, err := h.Service.PendingDeletion(r.Context(), s.Brand, s.AccountID); err == nil {
		out.Deletion = &deletionAnswer{RequestedAt: d.RequestedAt, DeleteAt: d.DeleteAt}
	} else if !errors.Is(err, ErrNotPending) {
		return err
	}
	api.JSON(w, http.StatusOK, out)
	return nil
}

// RequestExport is POST /api/v1/me/export: 202 with the export asked for
// (prepared in the background, announced by email); 401, 403
// REAUTH_REQUIRED; 429 RATE_LIMITED past ExportsPerDay a day.
func (h *Handler) RequestExport(w http.ResponseWriter, r *http.Request) error {
	a, err := h.ask(r)
	if err != nil {
		return err
	}
	e, err := h.Service.RequestExport(r.Context(), a)
	return api.Reply(w, http.StatusAccepted, exportOut(e), apiError(err))
}

// ask is the request of the signed-in customer with a fresh proof, as
// RequestExport takes it (RequestDeletion's DeletionAsk has its fields).
func (h *Handler) ask(r *http.Request) (ExportAsk, error) {
	s, err := h.session(r, true)
	if err != nil {
		return ExportAsk{}, err
	}
	site := api.SiteOf(r)
	return ExportAsk{Brand: s.Brand, AccountID: s.AccountID, Language: site.Language,
		Province: site.Province, Origin: account.Origin(r), IP: api.ClientIP(r)}, nil
}

// DownloadJSON is GET /api/v1/me/export.json: the ready export as a JSON
// file; 404 NO_EXPORT when none is ready (or it expired); 401; 403
// REAUTH_REQUIRED.
func (h *Handler) DownloadJSON(w http.ResponseWriter, r *http.Request) error {
	return h.download(w, r, "json")
}

// DownloadHTML is GET /api/v1/me/export.html: the same as a page to read,
// in the site's language.
func (h *Handler) DownloadHTML(w http.ResponseWriter, r *http.Request) error {
	return h.download(w, r, "html")
}

func (h *Handler) download(w http.ResponseWriter, r *http.Request, format string) error {
	s, err := h.session(r, true)
	if err != nil {
		return err
	}
	doc, err := h.Service.Download(r.Context(), s.Brand, s.AccountID, format, api.ClientIP(r))
	if err != nil {
		return apiError(err)
	}
	site := api.SiteOf(r)
	name := "guichet-" + s.Brand + "-data." + format
	contentType := "application/json; charset=utf-8"
	if format == "html" {
		if doc, err = Page(doc, site.Language, site.Brand.Name.For(site.Language)); err != nil {
			return err
		}
		contentType = "text/html; charset=utf-8"
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(doc)
	return err
}

// RequestDeletion is POST /api/v1/me/deletion: 202 {requestedAt,
// deleteAt}; the account is erased after 30 days unless cancelled (the
// email's link, or DELETE). 401; 403 REAUTH_REQUIRED.
func (h *Handler) RequestDeletion(w http.ResponseWriter, r *http.Request) error {
	a, err := h.ask(r)
	if err != nil {
		return err
	}
	d, err := h.Service.RequestDeletion(r.Context(), DeletionAsk(a))
	return api.Reply(w, http.StatusAccepted, deletionAnswer(d), apiError(err))
}

// CancelDeletion is DELETE /api/v1/me/deletion: 204; 404 NO_DELETION; 410
// UNDO_TOO_LATE once the grace is over.
func (h *Handler) CancelDeletion(w http.ResponseWriter, r *http.Request) error {
	s, err := h.session(r, false)
	if err != nil {
		return err
	}
	if err := h.Service.CancelDeletion(r.Context(), s.Brand, s.AccountID, api.ClientIP(r)); err != nil {
		return apiError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type undoForm struct {
	Token string `json:"token"`
}

// UndoDeletion is POST /api/v1/deletion/undo {token}: the emailed link's
// cancel, without a session (the link is the proof). 204; 404
// UNDO_LINK_INVALID (unknown or used); 410 UNDO_TOO_LATE.
func (h *Handler) UndoDeletion(w http.ResponseWriter, r *http.Request) error {
	var f undoForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	if err := h.Service.UndoByLink(r.Context(), api.SiteOf(r).Brand.ID, f.Token, api.ClientIP(r)); err != nil {
		return apiError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
