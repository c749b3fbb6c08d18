package httpapi

import (
	"bytes"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"strings"

	"guichet/internal/staff"
)

// DevConsoleHost is the console's host in --dev (any port).
const DevConsoleHost = "console.localhost"

// consolePage is the console SPA's entry (web/console.html, built as
// dist/console.html), nil when the build has none.
type consolePage struct {
	html []byte
}

func newConsolePage(files fs.FS) (*consolePage, error) {
	if files == nil {
		return &consolePage{}, nil
	}
	b, err := fs.ReadFile(files, "console.html")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return &consolePage{html: b}, nil
}

// isConsoleHost tells whether a request's Host is the console's.
func (s *server) isConsoleHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return false
	}
	if s.cfg.ConsoleHost != "" && host == strings.ToLower(s.cfg.ConsoleHost) {
		return true
	}
	return s.cfg.Dev && host == DevConsoleHost
}

// byHost sends the console host's requests to its own mux: nothing of the
// portal is served there, and nothing of the console on brand hosts.
func (s *server) byHost(portal, console http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.isConsoleHost(r.Host) {
			console.ServeHTTP(w, r)
			return
		}
		portal.ServeHTTP(w, r)
	})
}

// staffGuard puts the signed-in staff member in the context and asks a
// fresh factor of state-changing calls (staff.Handler.Guard); without the
// staff handler, every call is refused.
func (s *server) staffGuard(h http.Handler) http.Handler {
	if s.deps.Staff == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeProblem(w, r, staff.ErrSignInRequired.Status, staff.ErrSignInRequired.Code, staff.ErrSignInRequired.MessageKey)
		})
	}
	return s.deps.Staff.Guard(h)
}

// staffSession puts the signed-in staff member in the context without
// asking a fresh factor (ConsoleChat routes); without the staff handler,
// every call is refused.
func (s *server) staffSession(h http.Handler) http.Handler {
	if s.deps.Staff == nil {
		return s.staffGuard(h)
	}
	return s.deps.Staff.Authenticate(h)
}

// staffIdentify puts the signed-in staff member, if any, in the context
// (ConsoleSocket routes: the handler refuses after the upgrade); without
// the staff handler, nobody is signed in.
func (s *server) staffIdentify(h http.Handler) http.Handler {
	if s.deps.Staff == nil {
		return h
	}
	return s.deps.Staff.Identify(h)
}

// consolePage serves the console SPA for every page path of the console
// host, with the CSP nonce: 200, or 404 for the portal's pages.
func (s *server) consolePage(w http.ResponseWriter, r *http.Request) {
	// Nothing posts to the console's pages (the portal's form post is not here).
	if r.Method != http.MethodGet && r.Method != http.MethodHead || s.console.html == nil {
		writeProblem(w, r, http.StatusNotFound, "CONSOLE_NOT_BUILT", "error.notFound")
		return
	}
	// The portal's pages do not exist here: the console's page, with 404
	// (its router shows its not-found page).
	status := http.StatusOK
	if r.URL.Path != "/" && s.spa.known(r.URL.Path) {
		status = http.StatusNotFound
	}
	nonce := nonceOf(r)
	page := bytes.ReplaceAll(s.console.html, []byte("<script"), []byte(`<script nonce="`+nonce+`"`))
	page = bytes.ReplaceAll(page, []byte(`<link rel="modulepreload"`), []byte(`<link rel="modulepreload" nonce="`+nonce+`"`))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(page)
	}
}
