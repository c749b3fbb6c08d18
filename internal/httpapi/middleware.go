package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"guichet/internal/api"
	"guichet/internal/brand"
)

// Limits on what a request may carry.
const (
	maxBodyBytes = 1 << 20 // any body; JSON handlers apply api.MaxBody on top
	maxURLBytes  = 4096
)

// middleware wraps the mux: the bound on requests under way and the
// hashers' admission first (shed.go), then request id and access log,
// panic recovery, security headers with a CSP nonce, cross-origin
// protection, size limits.
func (s *server) middleware(next http.Handler) http.Handler {
	h := s.metrics.wrap(next)
	h = s.limits(h)
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, http.StatusForbidden, "CROSS_ORIGIN", "error.technical")
	}))
	h = cop.Handler(h)
	h = s.securityHeaders(h)
	h = s.recoverPanics(h)
	h = s.accessLog(h)
	h = s.inFlight(h)
	h = s.shedFirst(h)
	return h
}

type ctxKey int

const (
	nonceKey ctxKey = iota
	requestIDKey
)

// nonceOf returns the response's CSP nonce.
func nonceOf(r *http.Request) string {
	n, _ := r.Context().Value(nonceKey).(string)
	return n
}

// RequestID returns the request's id (also in every log line of the request).
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

func (s *server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !validRequestID(id) {
			var b [8]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		ip := s.cfg.TrustedProxies.clientIP(r)
		ctx := context.WithValue(r.Context(), requestIDKey, id)
		ctx = api.WithClientIP(ctx, ip)
		ctx = api.WithLoggedPath(ctx)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		start := time.Now()
		r = r.WithContext(ctx)
		next.ServeHTTP(rec, r)
		// The path is the matched route's, its bearer tokens left out
		// (logpath.go); the query string is never logged: it may carry
		// tokens (/reset?token=).
		slog.InfoContext(ctx, "request", "id", id, "method", r.Method, "path", api.LoggedPath(r),
			"status", rec.status, "ms", time.Since(start).Milliseconds(), "ip", ip, "host", r.Host)
	})
}

// logPath keeps log lines short whatever the client sent.
func logPath(p string) string {
	if len(p) > 200 {
		return p[:200] + "…"
	}
	return p
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func (s *server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				slog.ErrorContext(r.Context(), "panic", "id", RequestID(r.Context()), "path", api.LoggedPath(r), "panic", fmt.Sprint(p))
				api.JSON(w, api.ErrTechnical.Status, api.ErrTechnical)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

func (s *server) securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b [18]byte
		_, _ = rand.Read(b[:])
		nonce := base64.RawStdEncoding.EncodeToString(b[:])
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
		h.Set("Content-Security-Policy", s.csp(r, nonce))
		if strings.HasPrefix(r.URL.Path, "/api/") {
			dataHeaders(h)
		}
		if r.TLS != nil || s.cfg.TrustedProxies.forwardedHTTPS(r) {
			h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), nonceKey, nonce)))
	})
}

// dataPolicy is the Content-Security-Policy of a response that is data, not
// a page (the API's JSON, an SVG image): nothing may load or run if a
// browser ever shows it as a document (an SVG opened by its address keeps
// its own inline styles), and nothing may frame it. Constant, so HTTP/2's
// header compression sends it once a connection, where the pages' nonce
// policy is new on every response.
const (
	dataPolicy = "default-src 'none'; frame-ancestors 'none'"
	svgPolicy  = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
)

// dataHeaders gives a response that is data the headers of one: the data
// policy instead of the page's, and no Cross-Origin-Opener-Policy nor
// Permissions-Policy, which govern a page's scripts and windows (a JSON
// answer or an image has none): about 330 bytes fewer on every API answer
// (issue 32). X-Frame-Options stays for browsers that do not read
// frame-ancestors.
func dataHeaders(h http.Header) {
	h.Set("Content-Security-Policy", dataPolicy)
	h.Del("Cross-Origin-Opener-Policy")
	h.Del("Permissions-Policy")
}

// csp is the strict policy of design.md: scripts only with this response's
// nonce (and what they load), no inline styles in markup, no framing. The dev
// mailbox shows emails whose HTML carries inline styles, as email needs.
func (s *server) csp(r *http.Request, nonce string) string {
	style := "style-src 'self'"
	if s.cfg.Dev && strings.HasPrefix(r.URL.Path, "/_dev/") {
		style = "style-src 'self' 'unsafe-inline'"
	}
	formActions := s.formActions
	img, font := "img-src 'self' data:", "font-src 'self'"
	if s.deps.OIDC != nil && !s.isConsoleHost(r.Host) {
		// A sign-in for an application ends at the application (issue 30).
		if to := s.deps.OIDC.FormAction(r); to != "" {
			formActions += " " + to
		}
	}
	if s.isConsoleHost(r.Host) {
		// The console posts to no external sign-in.
		formActions = ""
		if strings.HasPrefix(r.URL.Path, ViewerPathPrefix) {
			// The co-browse viewer replays the visitor's page in a sandboxed
			// iframe without scripts that inherits this policy: its inline
			// <style> and style attributes (rrweb inlines the page's CSS) and
			// the brand hosts' stylesheets, images and fonts. script-src
			// stays as strict as everywhere.
			style = "style-src 'self' 'unsafe-inline'" + s.replaySources
			img = "img-src 'self' data: blob:" + s.replaySources
			font = "font-src 'self' data:" + s.replaySources
		}
	}
	return "default-src 'self'; script-src 'nonce-" + nonce + "' 'strict-dynamic'; " + style +
		"; " + img + "; " + font + "; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
		"form-action 'self'" + formActions + "; frame-ancestors 'none'"
}

// ViewerPathPrefix is the console's co-browse viewer page
// (/cobrowse/sessions/<id>), loaded as a document of its own so that its
// policy (csp) applies only there.
const ViewerPathPrefix = "/cobrowse/sessions/"

// replaySources are the brand hosts (any port, the console's scheme) as
// CSP sources, dev hosts too in dev.
func replaySources(brands *brand.Registry, dev bool) string {
	seen := map[string]bool{}
	var out strings.Builder
	for _, b := range brands.All() {
		hosts := b.Hosts
		if dev {
			hosts = append(slices.Clone(hosts), b.DevHosts...)
		}
		for _, h := range hosts {
			if h = strings.ToLower(h); !seen[h] {
				seen[h] = true
				out.WriteString(" " + h + ":*")
			}
		}
	}
	return out.String()
}

// externalFormActions allows the form post to an external web SSO when a
// brand file points there.
func externalFormActions(brands *brand.Registry, env string) string {
	seen := map[string]bool{}
	var extra strings.Builder
	for _, b := range brands.All() {
		for _, origin := range b.SSOOrigins(env) {
			if !seen[origin] {
				seen[origin] = true
				extra.WriteString(" ")
				extra.WriteString(origin)
			}
		}
	}
	return extra.String()
}

func (s *server) limits(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.RequestURI) > maxURLBytes {
			writeProblem(w, r, http.StatusRequestURITooLong, "URI_TOO_LONG", "error.badRequest")
			return
		}
		if r.ContentLength > maxBodyBytes {
			writeProblem(w, r, http.StatusRequestEntityTooLarge, "BODY_TOO_LARGE", "error.badRequest")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// writeProblem answers JSON under /api/ and a short page elsewhere.
func writeProblem(w http.ResponseWriter, r *http.Request, status int, code, key string) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		api.JSON(w, status, api.NewError(status, code, key))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = problemPage.Execute(w, map[string]any{"Status": status, "Text": http.StatusText(status)})
}

var problemPage = template.Must(template.New("problem").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Status}} {{.Text}}</title></head>
<body><main><h1>{{.Status}} {{.Text}}</h1>
<p>This request could not be served. <span lang="fr">Cette demande ne peut pas être traitée.</span></p>
<p><a href="/">Back to sign in</a> · <a href="/" lang="fr">Retour à la connexion</a></p></main></body></html>`))

// withBrand resolves the brand from the Host header (spec §1) and the
// province and language for pages; an unknown host gets the 'unknown site'
// page (or JSON under /api/), unless a default brand is configured.
func (s *server) withBrand(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := s.deps.Brands.ByHost(r.Host, s.cfg.Dev)
		if !ok && s.cfg.DefaultBrand != "" {
			b, ok = s.deps.Brands.ByID(s.cfg.DefaultBrand)
		}
		if !ok {
			s.unknownSite(w, r)
			return
		}
		site := api.Site{Brand: b, Dev: s.cfg.Dev, Webview: webview(r)}
		site.Province = b.ResolveProvince(r.URL.Query().Get("province"), cookie(r, "province"))
		site.Language = b.ResolveLanguage(site.Province, r.URL.Query().Get("lang"), cookie(r, "language"))
		next.ServeHTTP(w, r.WithContext(api.WithSite(r.Context(), site)))
	})
}

// withAPI checks the api key of the host's brand (header api-key on the main
// client, X-API-KEY on the second), reads the province and language headers
// (spec §7), falling back like the pages do, and answers 503 while the
// brand is under maintenance.
func (s *server) withAPI(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		site := api.SiteOf(r)
		key := r.Header.Get("api-key")
		if key == "" {
			key = r.Header.Get("X-API-KEY")
		}
		if subtle.ConstantTimeCompare([]byte(key), []byte(site.Brand.APIKey)) != 1 {
			api.WriteError(w, r, api.ErrInvalidAPIKey)
			return
		}
		if p := r.Header.Get("province"); p != "" {
			site.Province = site.Brand.ResolveProvince(p, "")
		}
		site.Language = site.Brand.ResolveLanguage(site.Province, r.Header.Get("language"), cookie(r, "language"))
		r = r.WithContext(api.WithSite(r.Context(), site))
		if s.underMaintenance(w, r) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

func cookie(r *http.Request, name string) string {
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// webview is on when the mobile app set a cookie named waa-… (spec §3).
func webview(r *http.Request) bool {
	for _, c := range r.Cookies() {
		if strings.HasPrefix(c.Name, "waa-") {
			return true
		}
	}
	return false
}

type statusRecorder struct {
	http.ResponseWriter
	status  int
	written bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.written {
		s.status, s.written = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	s.written = true
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
