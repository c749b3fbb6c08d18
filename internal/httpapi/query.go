package httpapi

import (
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"guichet/internal/api"
)

// maxQueryValue bounds one query parameter's value (the URL itself is
// bounded by maxURLBytes).
const maxQueryValue = 1024

// checkedQuery refuses, before its handler runs, a call whose query string
// no handler may take: malformed percent-encoding, a name or value that is
// not valid UTF-8 or holds a control character (NUL included: PostgreSQL
// refuses such text with an error, SQLSTATE 22021), a value over
// maxQueryValue bytes, or a brand parameter that is not a brand of the
// registry. The answer is 400 INVALID_FIELD naming the parameter ("query"
// for a malformed string). Every console route and every socket gets it
// (register), so a new parameter is covered by construction; the handlers
// still parse their values (dates, numbers) and answer their own rules.
func (s *server) checkedQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if field, ok := s.queryOK(r.URL.RawQuery); !ok {
			e := api.NewError(http.StatusBadRequest, "INVALID_FIELD", "console.error.validation")
			e.Field = field
			api.JSON(w, e.Status, e)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// queryOK tells whether every parameter of the raw query string is
// acceptable, and otherwise which one is not.
func (s *server) queryOK(raw string) (string, bool) {
	if raw == "" {
		return "", true
	}
	values, err := url.ParseQuery(raw)
	if err != nil {
		return "query", false
	}
	for name, vs := range values {
		if !cleanQueryText(name) {
			return "query", false
		}
		for _, v := range vs {
			if !cleanQueryText(v) || len(v) > maxQueryValue {
				return name, false
			}
			if name == "brand" && v != "" && s.deps.Brands != nil {
				if _, ok := s.deps.Brands.ByID(v); !ok {
					return name, false
				}
			}
		}
	}
	return "", true
}

// cleanQueryText: valid UTF-8 without control characters.
func cleanQueryText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}
