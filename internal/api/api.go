// Package api holds what every HTTP handler shares: the request's site (brand,
// province, language), JSON decoding with size limits, path ids, and the one
// error shape of the API ({"errorCode", "messageKey"} with the spec's status;
// an unexpected 500 has no errorCode).
package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"guichet/internal/brand"
	"guichet/internal/store"
)

// Site is what the middleware resolved for a request.
type Site struct {
	Brand    *brand.Brand
	Province string
	Language string
	Dev      bool
	Webview  bool
}

type siteKey struct{}

// WithSite returns a context carrying the site.
func WithSite(ctx context.Context, s Site) context.Context {
	return context.WithValue(ctx, siteKey{}, s)
}

// SiteOf returns the site the middleware resolved; handlers behind the brand
// middleware always have one.
func SiteOf(r *http.Request) Site { return SiteFrom(r.Context()) }

// SiteFrom is SiteOf for code that holds the request's context only (the
// OpenID provider's storage, called by zitadel/oidc's handlers).
func SiteFrom(ctx context.Context) Site {
	s, _ := ctx.Value(siteKey{}).(Site)
	return s
}

// Error is an API error: an HTTP status, a spec error code and an i18n key.
// Only ErrTechnical goes without a code: spec §8.1 sends a 500 with an
// errorCode to the login-difficulties roadblock, one without to the technical
// one.
type Error struct {
	Status     int    `json:"-"`
	Code       string `json:"errorCode,omitempty"`
	MessageKey string `json:"messageKey"`
	// Fields carries per-field rule errors (field name -> error key) on 400.
	Fields map[string]string `json:"fields,omitempty"`
	// Data carries extra answer data a spec status needs (rarely used).
	Data map[string]any `json:"data,omitempty"`
	// Field names the form field of a VALIDATION error (registration).
	Field string `json:"field,omitempty"`
	// TriesLeft is the guesses left after a wrong registration code or PIN.
	TriesLeft *int `json:"triesLeft,omitempty"`
	// RetryAfter, when set, is the Retry-After header in seconds.
	RetryAfter int `json:"-"`
}

// TooManyRequests is ErrTooManyRequest with a Retry-After of wait, in
// whole seconds rounded up (none when wait is zero): the SPA tells the
// visitor how many minutes to wait.
func TooManyRequests(wait time.Duration) *Error {
	e := *ErrTooManyRequest
	if wait > 0 {
		e.RetryAfter = int((wait + time.Second - 1) / time.Second)
	}
	return &e
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s", e.Status, e.Code) }

// NewError builds an API error.
func NewError(status int, code, messageKey string) *Error {
	return &Error{Status: status, Code: code, MessageKey: messageKey}
}

// Common errors.
var (
	ErrBadJSON        = NewError(http.StatusBadRequest, "BAD_REQUEST", "error.badRequest")
	ErrBodyTooLarge   = NewError(http.StatusRequestEntityTooLarge, "BODY_TOO_LARGE", "error.badRequest")
	ErrInvalidAPIKey  = NewError(http.StatusForbidden, "INVALID_API_KEY", "error.technical")
	ErrNotFound       = NewError(http.StatusNotFound, "NOT_FOUND", "error.notFound")
	ErrTooManyRequest = NewError(http.StatusTooManyRequests, "RATE_LIMITED", "error.rateLimited")
	// ErrTechnical answers what went wrong unexpectedly (a bug, a panic, the
	// database gone): no errorCode, so the SPA shows the technical roadblock.
	ErrTechnical = &Error{Status: http.StatusInternalServerError, MessageKey: "error.technical"}
	// ErrUnavailable answers a call the database could not serve because
	// it cannot be reached or used right now (store.Unavailable: an
	// outage, not a bug): 503 with Retry-After, and an errorCode that the
	// SPA tells from maintenance's 503 and sends to the technical roadblock.
	ErrUnavailable = &Error{Status: http.StatusServiceUnavailable, Code: "UNAVAILABLE", MessageKey: "error.technical",
		RetryAfter: UnavailableRetryAfter}
)

// UnavailableRetryAfter is ErrUnavailable's Retry-After, in seconds.
const UnavailableRetryAfter = 30

// IDLength is the length of every id the API hands out and reads back from
// a path (account, decoy, validation ids): 16 random or HMAC bytes,
// base64url without padding.
const IDLength = 22

// PathID returns the path value name when it has the shape of an id, and
// ErrNotFound otherwise: a NUL byte, invalid UTF-8 or a 10 kB value never
// reaches a query (PostgreSQL refuses such text with an error, SQLite
// compares it), and no handler has to bound it itself.
func PathID(r *http.Request, name string) (string, error) {
	v := r.PathValue(name)
	if !IsID(v) {
		return "", ErrNotFound
	}
	return v, nil
}

// PathAndBody is the path value name as PathID reads it, then the request
// body decoded into v as Decode does: what a call on one resource reads.
func PathAndBody(w http.ResponseWriter, r *http.Request, name string, v any) (string, error) {
	id, err := PathID(r, name)
	if err != nil {
		return "", err
	}
	return id, Decode(w, r, v)
}

// IsID reports whether s has the shape of an id: IDLength characters of the
// base64url alphabet.
func IsID(s string) bool { return IsBase64URL(s, IDLength) }

// IsBase64URL reports whether s is n characters of the base64url alphabet
// (no padding).
func IsBase64URL(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// MaxBody is the default limit of a JSON request body.
const MaxBody = 64 << 10

// Decode reads a JSON body of at most MaxBody bytes into v, refusing unknown
// fields and trailing data.
func Decode(w http.ResponseWriter, r *http.Request, v any) error {
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return ErrBodyTooLarge
		}
		e := *ErrBadJSON
		return &e
	}
	if _, err := dec.Token(); err != io.EOF {
		e := *ErrBadJSON
		return &e
	}
	return nil
}

// JSON writes v with the status.
func JSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if v != nil {
		_ = json.NewEncoder(w).Encode(v)
	}
}

// Reply writes v as JSON with status when err is nil; otherwise it writes
// nothing and returns err for the Handler to answer.
func Reply(w http.ResponseWriter, status int, v any, err error) error {
	if err != nil {
		return err
	}
	JSON(w, status, v)
	return nil
}

// WriteError maps an error to the API's one error shape. *Error keeps its
// status; a FieldError (rules) is a 400; the database unreachable
// (store.Unavailable) is ErrUnavailable, 503 with Retry-After; anything
// else is logged and answered as a technical error without detail.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	var apiErr *Error
	var fieldErr FieldError
	switch {
	case errors.As(err, &apiErr):
		if apiErr.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(apiErr.RetryAfter))
		}
		JSON(w, apiErr.Status, apiErr)
	case errors.As(err, &fieldErr):
		field, key := fieldErr.FieldKey()
		JSON(w, http.StatusBadRequest, &Error{Code: key, MessageKey: key, Fields: map[string]string{field: key}})
	case errors.Is(err, context.Canceled):
		// The client went away; nobody reads an answer.
	case store.Unavailable(err):
		slog.WarnContext(r.Context(), "request failed: database unavailable", "route", r.Pattern, "err", err)
		w.Header().Set("Retry-After", strconv.Itoa(ErrUnavailable.RetryAfter))
		JSON(w, ErrUnavailable.Status, ErrUnavailable)
	default:
		slog.ErrorContext(r.Context(), "request failed", "path", LoggedPath(r), "err", err)
		JSON(w, ErrTechnical.Status, ErrTechnical)
	}
}

// FieldError is implemented by field-rule errors (rules.Error): the field
// and the error key. Handlers return a rule's error as it is; WriteError
// answers it, once for every handler.
type FieldError interface {
	error
	FieldKey() (field, key string)
}

// Handler is an http handler that returns an error, mapped once by WriteError.
type Handler func(w http.ResponseWriter, r *http.Request) error

func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h(w, r); err != nil {
		WriteError(w, r, err)
	}
}

// ClientIP returns the request's client address (the direct peer; a trusted
// proxy header is honoured only when the server is configured for it, see
// httpapi.Proxies).
func ClientIP(r *http.Request) string {
	if ip, ok := r.Context().Value(clientIPKey{}).(string); ok {
		return ip
	}
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i > 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}

type clientIPKey struct{}

// WithClientIP records the client address the middleware trusted.
func WithClientIP(ctx context.Context, ip string) context.Context {
	return context.WithValue(ctx, clientIPKey{}, ip)
}
