package testenv

import (
	"net/http"

	"guichet/internal/api"
)

// Mux serves a package's routes the way internal/httpapi's route table
// does: each method pattern ("POST /api/v1/chat/offline") on the standard
// library mux, with its handler.
func Mux(routes map[string]api.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	for pattern, h := range routes {
		mux.Handle(pattern, h)
	}
	return mux
}
