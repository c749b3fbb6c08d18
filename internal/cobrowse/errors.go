package cobrowse

import (
	"errors"
	"net/http"

	"guichet/internal/api"
	"guichet/internal/chat/chatapi"
)

// ErrNoCookie answers a visitor's socket without the co-browse cookie.
var ErrNoCookie = api.NewError(http.StatusUnauthorized, "NO_COBROWSE", "cobrowse.error.noSession")

var errRateLimited = api.NewError(http.StatusTooManyRequests, outcomeRateLimited, "error.rateLimited")

// answers are co-browse's domain errors as the API answers them.
var answers = []api.Answer{
	{Err: ErrUnavailable, Answer: api.NewError(http.StatusNotFound, "COBROWSE_UNAVAILABLE", "cobrowse.error.unavailable")},
	{Err: ErrNoSession, Answer: api.NewError(http.StatusNotFound, "NO_COBROWSE", "cobrowse.error.noSession")},
	{Err: ErrNotFound, Answer: api.NewError(http.StatusNotFound, "NOT_FOUND", "cobrowse.error.notFound")},
	{Err: ErrInvalidCode, Answer: api.NewError(http.StatusNotFound, outcomeInvalidCode, "cobrowse.error.invalidCode")},
	{Err: ErrRateLimited, Answer: errRateLimited},
	{Err: ErrPending, Answer: api.NewError(http.StatusConflict, "COBROWSE_PENDING", "cobrowse.error.pending")},
	{Err: ErrState, Answer: api.NewError(http.StatusConflict, "COBROWSE_STATE", "cobrowse.error.state")},
	{Err: ErrNotActive, Answer: api.NewError(http.StatusConflict, "COBROWSE_NOT_ACTIVE", "cobrowse.error.notActive")},
	{Err: ErrTooLarge, Answer: api.NewError(http.StatusBadRequest, "FRAME_TOO_LARGE", "cobrowse.error.tooLarge")},
	{Err: ErrBadFrame, Answer: api.NewError(http.StatusBadRequest, "INVALID_FRAME", "cobrowse.error.invalidFrame")},
	{Err: ErrWrongBrand, Answer: api.NewError(http.StatusForbidden, "COBROWSE_WRONG_BRAND", "cobrowse.error.wrongBrand")},
	{Err: ErrPrivateValue, Answer: api.NewError(http.StatusUnprocessableEntity, "PRIVATE_VALUE", "cobrowse.error.privateValue")},
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
		return api.TooManyRequests(guesses.Wait)
	}
	if answer, ok := api.AnswerTo(err, answers); ok {
		return answer
	}
	return chatapi.Error(err)
}

// errorCode is the API error code of err (apiError's), false when it has
// none (a technical error).
func errorCode(err error) (string, bool) { return api.CodeOf(apiError(err)) }

// mapped is deferred by every handler: its error, as apiError maps it.
func mapped(err *error) { *err = apiError(*err) }
