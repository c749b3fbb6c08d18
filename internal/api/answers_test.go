package api

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"guichet/internal/throttle"
)

func TestMap(t *testing.T) {
	errA, errB, errLimited := errors.New("a"), errors.New("b"), errors.New("limited")
	answerA := NewError(http.StatusConflict, "A", "key.a")
	answerB := NewError(http.StatusNotFound, "B", "key.b")
	first := []Answer{{Err: errA, Answer: answerA}}
	second := []Answer{
		{Err: errA, Answer: answerB}, // never reached: first answers errA
		{Err: errB, Answer: answerB},
		{Err: errLimited, With: Throttled},
	}
	other := errors.New("other")
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"nil stays nil", nil, nil},
		{"first table first", errA, answerA},
		{"wrapped, second table", fmt.Errorf("x: %w", errB), answerB},
		{"unknown as it is", other, other},
		{"an answer as it is", answerB, answerB},
	} {
		if got := Map(tc.err, first, second); got != tc.want {
			t.Errorf("%s: Map = %v, want %v", tc.name, got, tc.want)
		}
	}
	limited := fmt.Errorf("wrapped: %w", &throttle.Limited{Err: errLimited, RetryAfter: 90 * time.Second})
	got, ok := Map(limited, second).(*Error)
	if !ok || got.Status != http.StatusTooManyRequests || got.Code != "RATE_LIMITED" || got.RetryAfter != 90 {
		t.Errorf("Map(limited) = %#v, want 429 RATE_LIMITED with the limit's Retry-After (90)", got)
	}
}
