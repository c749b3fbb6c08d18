package chatapi

import (
	"errors"
	"net/http"
	"time"

	"guichet/internal/api"
	"guichet/internal/chat"
)

// Errors only the API and its sockets answer.
var (
	ErrNoCookie      = api.NewError(http.StatusUnauthorized, "NO_CONVERSATION", "chat.error.noConversation")
	ErrCrossOrigin   = api.NewError(http.StatusForbidden, "CROSS_ORIGIN", "error.technical")
	ErrForbiddenRole = api.NewError(http.StatusForbidden, "FORBIDDEN_ROLE", "console.error.forbiddenRole")
	errBadFrame      = api.NewError(http.StatusBadRequest, "INVALID_FRAME", "chat.error.invalidFrame")
	errRateLimited   = api.NewError(http.StatusTooManyRequests, "RATE_LIMITED", "error.rateLimited")
	errSignedOut     = api.NewError(http.StatusUnauthorized, "SIGN_IN_REQUIRED", "console.error.signInRequired")
)

// answers are the chat's domain errors as the API answers them.
var answers = []struct {
	err    error
	answer *api.Error
}{
	{chat.ErrClosed, api.NewError(http.StatusConflict, "CHAT_CLOSED", "chat.error.closed")},
	{chat.ErrNoConversation, api.NewError(http.StatusNotFound, "NO_CONVERSATION", "chat.error.noConversation")},
	{chat.ErrAlreadyTaken, api.NewError(http.StatusConflict, "ALREADY_TAKEN", "chat.error.alreadyTaken")},
	{chat.ErrAgentLimit, api.NewError(http.StatusConflict, "AGENT_LIMIT", "chat.error.agentLimit")},
	{chat.ErrForbiddenBrand, api.NewError(http.StatusForbidden, "FORBIDDEN_BRAND", "console.error.forbiddenBrand")},
	{chat.ErrNotFound, api.NewError(http.StatusNotFound, "NOT_FOUND", "chat.error.notFound")},
	{chat.ErrEnded, api.NewError(http.StatusConflict, "CONVERSATION_ENDED", "chat.error.ended")},
	{chat.ErrNotEnded, api.NewError(http.StatusConflict, "NOT_ENDED", "chat.error.notEnded")},
	{chat.ErrAlreadyDone, api.NewError(http.StatusConflict, "ALREADY_DONE", "chat.error.alreadyDone")},
	{chat.ErrNotHolder, api.NewError(http.StatusConflict, "NOT_HOLDER", "chat.error.notHolder")},
	{chat.ErrTargetUnavailable, api.NewError(http.StatusConflict, "TARGET_UNAVAILABLE", "chat.error.targetUnavailable")},
	{chat.ErrNotOffline, api.NewError(http.StatusConflict, "NOT_OFFLINE", "chat.error.notOffline")},
	{chat.ErrWrongStatus, api.NewError(http.StatusConflict, "WRONG_STATUS", "chat.error.wrongStatus")},
	{chat.ErrTooLong, api.NewError(http.StatusBadRequest, "MESSAGE_TOO_LONG", "chat.error.tooLong")},
	{chat.ErrRateLimited, errRateLimited},
	{chat.ErrSignedOut, errSignedOut},
}

// Error maps a chat error to the API's status, error code and i18n key
// (the one place that does: the handlers, the sockets' error frames and
// co-browse's handlers call it); an error it does not know is returned
// as it is (an *api.Error stays one; anything else is api.WriteError's
// technical error).
func Error(err error) error {
	if err == nil {
		return nil
	}
	var field *chat.FieldError
	if errors.As(err, &field) {
		e := api.NewError(http.StatusBadRequest, "INVALID_FIELD", "chat.error.invalidField")
		e.Field = field.Field
		return e
	}
	var limited *chat.RateLimitedError
	if errors.As(err, &limited) {
		e := *errRateLimited
		e.RetryAfter = int((limited.Wait + time.Second - 1) / time.Second)
		return &e
	}
	for _, a := range answers {
		if errors.Is(err, a.err) {
			return a.answer
		}
	}
	return err
}

// errorCode is the API error code of err (Error's), false when it has
// none (a technical error).
func errorCode(err error) (string, bool) {
	var apiErr *api.Error
	if errors.As(Error(err), &apiErr) {
		return apiErr.Code, true
	}
	return "", false
}

// mapped is deferred by every handler: its error, as Error maps it.
func mapped(err *error) { *err = Error(*err) }
