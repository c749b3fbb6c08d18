package cobrowse

import (
	"errors"
	"net/http"
	"time"

	"guichet/internal/api"
	"guichet/internal/chat/chatapi"
)

// ErrNoCookie answers a visitor's socket without the co-browse cookie.
var ErrNoCookie = api.NewError(http.StatusUnauthorized, "NO_COBROWSE", "cobrowse.error.noSession")

var errRateLimited = api.NewError(http.StatusTooManyRequests, outcomeRateLimited, "error.rateLimited")

// answers are co-browse's domain errors as the API answers them.
var answers = []struct {
	err    error
	answer *api.Error
}{
	{ErrUnavailable, api.NewError(http.StatusNotFound, "COBROWSE_UNAVAILABLE", "cobrowse.error.unavailable")},
	{ErrNoSession, api.NewError(http.StatusNotFound, "NO_COBROWSE", "cobrowse.error.noSession")},
	{ErrNotFound, api.NewError(http.StatusNotFound, "NOT_FOUND", "cobrowse.error.notFound")},
	{ErrInvalidCode, api.NewError(http.StatusNotFound, outcomeInvalidCode, "cobrowse.error.invalidCode")},
	{ErrRateLimited, errRateLimited},
	{ErrPending, api.NewError(http.StatusConflict, "COBROWSE_PENDING", "cobrowse.error.pending")},
	{ErrState, api.NewError(http.StatusConflict, "COBROWSE_STATE", "cobrowse.error.state")},
	{ErrNotActive, api.NewError(http.StatusConflict, "COBROWSE_NOT_ACTIVE", "cobrowse.error.notActive")},
	{ErrTooLarge, api.NewError(http.StatusBadRequest, "FRAME_TOO_LARGE", "cobrowse.error.tooLarge")},
	{ErrBadFrame, api.NewError(http.StatusBadRequest, "INVALID_FRAME", "cobrowse.error.invalidFrame")},
	{ErrWrongBrand, api.NewError(http.StatusForbidden, "COBROWSE_WRONG_BRAND", "cobrowse.error.wrongBrand")},
	{ErrPrivateValue, api.NewError(http.StatusUnprocessableEntity, "PRIVATE_VALUE", "cobrowse.error.privateValue")},
}

// apiError maps a co-browse error to the API's status, error code and
// i18n key (the one place that does: the handlers and the sockets' error
// frames call it); the chat's errors (a conversation ended or unknown, a
// brand not served, another agent's conversation) are answered as chat's
// API answers them (chatapi.Error), anything else is returned as it is.
func apiError(err error) error {
	if err == nil {
		return nil
	}
	var guesses *GuessLimitedError
	if errors.As(err, &guesses) {
		e := *errRateLimited
		e.RetryAfter = int((guesses.Wait + time.Second - 1) / time.Second)
		return &e
	}
	for _, a := range answers {
		if errors.Is(err, a.err) {
			return a.answer
		}
	}
	return chatapi.Error(err)
}

// errorCode is the API error code of err (apiError's), false when it has
// none (a technical error).
func errorCode(err error) (string, bool) {
	var apiErr *api.Error
	if errors.As(apiError(err), &apiErr) {
		return apiErr.Code, true
	}
	return "", false
}

// mapped is deferred by every handler: its error, as apiError maps it.
func mapped(err *error) { *err = apiError(*err) }
