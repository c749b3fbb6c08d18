package api

import (
	"net/http"

	"guichet/internal/codes"
)

// The answers of the signed-in customer's flows (My account, issue 31).
var (
	// ErrUnauthenticated: no live session.
	ErrUnauthenticated = NewError(http.StatusUnauthorized, "UNAUTHENTICATED", "error.unauthenticated")
	// ErrCodeWrong, ErrCodeExceeded and ErrCodeExpired are spec §8's
	// answers to a code checked (recovery's too).
	ErrCodeWrong    = NewError(http.StatusBadRequest, "INVALID_ACTIVATION_CODE", "code.validation.wrong")
	ErrCodeExceeded = NewError(http.StatusForbidden, "EXCEEDED_RETRIES_CODE_ACTIVATION", "code.validation.exceeded")
	ErrCodeExpired  = NewError(http.StatusForbidden, "CODE_EXPIRED", "code.validation.expired")
	// ErrCodeSendLimit: no more codes for now.
	ErrCodeSendLimit = NewError(http.StatusTooManyRequests, "RESEND_LIMIT_REACHED", "security.reauth.sendLimit")
)

// CodeAnswers are codes' errors and their answers.
var CodeAnswers = []Answer{
	{Err: codes.ErrWrong, Answer: ErrCodeWrong},
	{Err: codes.ErrExceeded, Answer: ErrCodeExceeded},
	{Err: codes.ErrExpired, Answer: ErrCodeExpired},
	{Err: codes.ErrSendLimit, Answer: ErrCodeSendLimit},
}
