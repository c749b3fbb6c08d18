package chatapi

import (
	"errors"
	"net/http"

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
var answers = []api.Answer{
	{Err: chat.ErrClosed, Answer: api.NewError(http.StatusConflict, "CHAT_CLOSED", "chat.error.closed")},
	{Err: chat.ErrNoAgent, Answer: api.NewError(http.StatusConflict, "CHAT_NO_AGENT", "chat.error.noAgent")},
	{Err: chat.ErrNoConversation, Answer: api.NewError(http.StatusNotFound, "NO_CONVERSATION", "chat.error.noConversation")},
	{Err: chat.ErrAlreadyTaken, Answer: api.NewError(http.StatusConflict, "ALREADY_TAKEN", "chat.error.alreadyTaken")},
	{Err: chat.ErrAgentLimit, Answer: api.NewError(http.StatusConflict, "AGENT_LIMIT", "chat.error.agentLimit")},
	{Err: chat.ErrForbiddenBrand, Answer: api.NewError(http.StatusForbidden, "FORBIDDEN_BRAND", "console.error.forbiddenBrand")},
	{Err: chat.ErrNotFound, Answer: api.NewError(http.StatusNotFound, "NOT_FOUND", "chat.error.notFound")},
	{Err: chat.ErrEnded, Answer: api.NewError(http.StatusConflict, "CONVERSATION_ENDED", "chat.error.ended")},
	{Err: chat.ErrNotEnded, Answer: api.NewError(http.StatusConflict, "NOT_ENDED", "chat.error.notEnded")},
	{Err: chat.ErrAlreadyDone, Answer: api.NewError(http.StatusConflict, "ALREADY_DONE", "chat.error.alreadyDone")},
	{Err: chat.ErrNotHolder, Answer: api.NewError(http.StatusConflict, "NOT_HOLDER", "chat.error.notHolder")},
	{Err: chat.ErrTargetUnavailable, Answer: api.NewError(http.StatusConflict, "TARGET_UNAVAILABLE", "chat.error.targetUnavailable")},
	{Err: chat.ErrNotOffline, Answer: api.NewError(http.StatusConflict, "NOT_OFFLINE", "chat.error.notOffline")},
	{Err: chat.ErrWrongStatus, Answer: api.NewError(http.StatusConflict, "WRONG_STATUS", "chat.error.wrongStatus")},
	{Err: chat.ErrTooLong, Answer: api.NewError(http.StatusBadRequest, "MESSAGE_TOO_LONG", "chat.error.tooLong")},
	{Err: chat.ErrRateLimited, Answer: errRateLimited},
	{Err: chat.ErrSignedOut, Answer: errSignedOut},
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
		return api.TooManyRequests(limited.Wait)
	}
	return api.Map(err, answers)
}

// errorCode is the API error code of err (Error's), false when it has
// none (a technical error).
func errorCode(err error) (string, bool) { return api.CodeOf(Error(err)) }

// mapped is deferred by every handler: its error, as Error maps it.
func mapped(err *error) { *err = Error(*err) }
