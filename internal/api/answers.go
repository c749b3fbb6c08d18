package api

import (
	"errors"

	"guichet/internal/throttle"
)

// Answer pairs a domain error with the API error it is answered with:
// Answer, or, when With is set, what With makes of the error (a wait it
// carries read into Retry-After).
type Answer struct {
	Err    error
	Answer *Error
	With   func(error) *Error
}

// AnswerTo is the answer of the first pair whose Err err is (errors.Is),
// false when none is.
func AnswerTo(err error, answers []Answer) (*Error, bool) {
	for _, a := range answers {
		if errors.Is(err, a.Err) {
			if a.With != nil {
				return a.With(err), true
			}
			return a.Answer, true
		}
	}
	return nil, false
}

// Map is a handler package's one mapping of its domain errors: the answer
// of the first pair, table after table, whose Err err is; err as it is
// when none is (nil stays nil, an *Error stays one, anything else is
// WriteError's technical error). What a table cannot say (an errors.As
// case, an answer naming a field) stays code before the call.
func Map(err error, tables ...[]Answer) error {
	if err == nil {
		return nil
	}
	for _, t := range tables {
		if answer, ok := AnswerTo(err, t); ok {
			return answer
		}
	}
	return err
}

// Throttled answers a throttle.Limited error (one a rate limit refused):
// 429 RATE_LIMITED with the limit's Retry-After.
func Throttled(err error) *Error { return TooManyRequests(throttle.RetryAfter(err)) }

// CodeOf is the error code of an already mapped error, false when it is
// no *Error (a technical error).
func CodeOf(mapped error) (string, bool) {
	var apiErr *Error
	if errors.As(mapped, &apiErr) {
		return apiErr.Code, true
	}
	return "", false
}
