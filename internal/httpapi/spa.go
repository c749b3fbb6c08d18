package httpapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"mime"
	"net/http"
	pathpkg "path"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"guichet/internal/api"
	"guichet/internal/brand"
)

// spa serves the built single-page app: index.html for the SPA's routes,
// with the site configuration and the CSP nonce injected, and the hashed
// assets with long caching.
type spa struct {
	files fs.FS
	index []byte // nil when the SPA was not built (a Go-only test build)
	// assetIndex: every file served as is, with its precompressed siblings.
	assetIndex map[string]*asset
	paths      []string
	brands     *brand.Registry
	chunks     *pageChunks // nil when the build has no page-chunks.json
}

func newSPA(files fs.FS, pathsJSON []byte, brands *brand.Registry) (*spa, error) {
	var list struct {
		Paths []string `json:"paths"`
	}
	if err := json.Unmarshal(pathsJSON, &list); err != nil {
		return nil, fmt.Errorf("web/src/app/paths.json: %w", err)
	}
	for _, p := range list.Paths {
		if !strings.HasPrefix(p, "/") {
			return nil, fmt.Errorf("web/src/app/paths.json: %q does not start with /", p)
		}
	}
	s := &spa{files: files, paths: list.Paths, brands: brands}
	if files != nil {
		index, err := fs.ReadFile(files, "index.html")
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		s.index = index
		if s.assetIndex, err = indexAssets(files); err != nil {
			return nil, err
		}
		if s.chunks, err = readPageChunks(files); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// known tells whether path is one of the SPA's routes.
func (s *spa) known(path string) bool {
	for _, p := range s.paths {
		if matchPath(p, path) {
			return true
		}
	}
	return false
}

// matchPath matches a route pattern: literal segments, ":name" for one
// segment, "*" for the rest. A trailing slash is ignored.
func matchPath(pattern, path string) bool {
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	ps := strings.Split(pattern, "/")
	xs := strings.Split(path, "/")
	for i, seg := range ps {
		if seg == "*" {
			return true
		}
		if i >= len(xs) {
			return false
		}
		if strings.HasPrefix(seg, ":") {
			if xs[i] == "" {
				return false
			}
			continue
		}
		if seg != xs[i] {
			return false
		}
	}
	return len(xs) == len(ps)
}

// Cache lifetimes: files under /assets/ carry their content's hash in
// their name, so they never change; the others (logos, favicon) may.
const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cacheHour      = "public, max-age=3600"
)

func (s *spa) assets() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cache := cacheHour
		if strings.HasPrefix(r.URL.Path, "/assets/") {
			cache = cacheImmutable
			if strings.HasSuffix(r.URL.Path, ".woff2") || strings.HasSuffix(r.URL.Path, ".woff") {
				// Fonts are fetched in CORS mode: the console's co-browse
				// viewer shows the visitor's page, fonts included. Public,
				// hashed files, no credentials.
				w.Header().Set("Access-Control-Allow-Origin", "*")
			}
		}
		if img, ok := s.brandImage(r.URL.Path); ok {
			// A promo image of the brands directory (brand.LoadDir).
			w.Header().Set("Cache-Control", cache)
			w.Header().Set("Content-Type", imageType(r.URL.Path))
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(img))
			return
		}
		if b, lang, ok := s.logoless(r.URL.Path); ok {
			if lang == "fr" && b.Name.FR == b.Name.EN && s.hasFile("brands/"+b.ID+"/logo.svg") {
				// Same name in French: the one logo file serves both.
				r2 := *r
				r2.URL = new(*r.URL)
				r2.URL.Path = "/brands/" + b.ID + "/logo.svg"
				s.serveAsset(w, &r2, cache)
				return
			}
			w.Header().Set("Cache-Control", cache)
			w.Header().Set("Content-Type", "image/svg+xml")
			http.ServeContent(w, r, "logo.svg", time.Time{}, bytes.NewReader(textLogo(b, lang)))
			return
		}
		if s.files == nil {
			http.NotFound(w, r)
			return
		}
		s.serveAsset(w, r, cache)
	})
}

// brandImage returns a promo image the brands directory carries.
func (s *spa) brandImage(path string) ([]byte, bool) {
	if s.brands == nil {
		return nil, false
	}
	return s.brands.Image(path)
}

// imageType is the Content-Type of a promo image by its extension (the
// names brand files may give: .svg, .webp, .avif, .png, .jpg, all in Go's
// built-in table).
func imageType(path string) string {
	return mime.TypeByExtension(pathpkg.Ext(path))
}

// logoless returns the brand and language of a logo path
// (/brands/<id>/logo.svg, English, or /brands/<id>/logo.fr.svg, French)
// when the SPA has no file for it (web/public/brands/<id>/): a brand added
// as a file alone, or one whose name is the same in French.
func (s *spa) logoless(path string) (*brand.Brand, string, bool) {
	rest, ok := strings.CutPrefix(path, "/brands/")
	if !ok || s.brands == nil {
		return nil, "", false
	}
	id, file, ok := strings.Cut(rest, "/")
	lang := map[string]string{"logo.svg": "en", "logo.fr.svg": "fr"}[file]
	if !ok || lang == "" {
		return nil, "", false
	}
	b, ok := s.brands.ByID(id)
	if !ok || s.hasFile("brands/"+id+"/"+file) {
		return nil, "", false
	}
	return b, lang, true
}

func (s *spa) hasFile(name string) bool {
	if s.files == nil {
		return false
	}
	_, err := fs.Stat(s.files, name)
	return err == nil
}

// textLogo draws a brand's name in a language, in its text colour, the size
// of the logo files (180×40), as the header shows it.
func textLogo(b *brand.Brand, language string) []byte {
	raw := b.Name.For(language)
	name := html.EscapeString(raw)
	fit := ""
	if utf8.RuneCountInString(raw) > 14 { // wider than the box at this size
		fit = ` textLength="176" lengthAdjust="spacingAndGlyphs"`
	}
	return fmt.Appendf(nil, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 180 40" width="180" height="40" role="img">`+
		`<title>%s</title><text x="2" y="27" font-family="Arial, Helvetica, sans-serif" font-size="20" font-weight="700" fill="%s"%s>%s</text></svg>`+"\n",
		name, html.EscapeString(b.Theme.Text), fit, name)
}

// page serves every path that is not an API or an asset: the redirects of
// spec §2.1, then the SPA (status 404 for paths it does not know, where it
// shows its not-found page).
func (s *server) page(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeProblem(w, r, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "error.badRequest")
		return
	}
	if target, ok := s.redirect(r); ok {
		http.Redirect(w, r, target, http.StatusFound)
		return
	}
	status := http.StatusOK
	// Dev pages (/_dev/...) exist only in --dev.
	if !s.spa.known(r.URL.Path) || (!s.cfg.Dev && strings.HasPrefix(r.URL.Path, "/_dev/")) {
		status = http.StatusNotFound
	}
	s.renderIndex(w, r, status)
}

// redirect applies spec §2.1: /WAA/<path> to /<path>, /registration to
// /registration/identification (both keep the query string), and unknown
// paths under /create-an-account to /not-found.
func (s *server) redirect(r *http.Request) (string, bool) {
	path, query := r.URL.Path, ""
	if r.URL.RawQuery != "" {
		query = "?" + r.URL.RawQuery
	}
	switch {
	case path == "/WAA" || path == "/WAA/":
		return "/" + query, true
	case strings.HasPrefix(path, "/WAA/"):
		rest := strings.TrimLeft(strings.TrimPrefix(path, "/WAA/"), "/")
		return "/" + rest + query, true // TrimLeft: never a protocol-relative //host
	case path == "/registration" || path == "/registration/":
		return "/registration/identification" + query, true
	case (path == "/create-an-account" || strings.HasPrefix(path, "/create-an-account/")) && !s.spa.known(path):
		return "/not-found", true
	}
	return "", false
}

// choiceMaxAge is the 6 months the province and language cookies live
// (spec §3, §9).
const choiceMaxAge = 6 * 30 * 24 * 60 * 60

// rememberChoice sets a province or language cookie the SPA also reads and
// writes (so not HttpOnly).
func rememberChoice(w http.ResponseWriter, r *http.Request, name, value string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: choiceMaxAge,
		SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
}

func (s *server) renderIndex(w http.ResponseWriter, r *http.Request, status int) {
	if s.spa.index == nil {
		writeProblem(w, r, http.StatusServiceUnavailable, "SPA_NOT_BUILT", "error.technical")
		return
	}
	site := api.SiteOf(r)
	cfg := site.Brand.Site(site.Province, site.Language, site.Webview, site.Dev, s.cfg.Env)
	data, err := json.Marshal(cfg) // escapes <, > and & so the JSON cannot close the tag
	if err != nil {
		api.WriteError(w, r, err)
		return
	}
	// A province or language chosen in the address is remembered like one
	// chosen in the header, so it survives the SSO post and later visits.
	if r.URL.Query().Has("province") {
		rememberChoice(w, r, "province", site.Province)
	}
	if r.URL.Query().Has("lang") {
		rememberChoice(w, r, "language", site.Language)
	}
	nonce := nonceOf(r)
	page := bytes.Replace(s.spa.index, []byte(`<html lang="en"`), []byte(`<html lang="`+html.EscapeString(site.Language)+`"`), 1)
	promo := ""
	if p := cfg.Brand.Promo; p != nil && !site.Webview {
		promo = p.Image
	}
	preload := s.spa.preloadTags(r.URL.Path, status == http.StatusNotFound, site.Brand.ID, site.Language, promo)
	page = bytes.Replace(page, []byte("</head>"), append(preload, "</head>"...), 1)
	page = bytes.ReplaceAll(page, []byte("<script"), []byte(`<script nonce="`+nonce+`"`))
	page = bytes.ReplaceAll(page, []byte(`<link rel="modulepreload"`), []byte(`<link rel="modulepreload" nonce="`+nonce+`"`))
	inject := []byte(`<script id="guichet-site" type="application/json">` + string(data) + "</script>\n</head>")
	page = bytes.Replace(page, []byte("</head>"), inject, 1)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// no-cache, not no-store: the page holds no personal data (that comes
	// from the API), and the back button may show it; it is asked again on
	// every other use, so a deployment's new asset names are seen at once.
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Cookie")
	h.Add("Vary", "Accept-Encoding")
	if negotiate(r.Header.Get("Accept-Encoding"), pageCodings) == "gzip" {
		page = gzipPage(page)
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(page)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(page)
	}
}

// pageCodings: the rendered page is compressed per response (its nonce
// differs each time, so there is no file to precompress), in gzip, the
// coding Go's library writes; the hashed assets have brotli siblings too.
// About 6.5 KB of HTML become 2.5 KB: the first response of every visit,
// before any script is asked for (issue 32). The nonce is new on every
// response and the page reflects nothing the visitor typed, so a
// compression oracle (BREACH) has no secret to guess.
var pageCodings = map[string]string{"gzip": ""}

// gzipWriters are reused: a flate compressor holds about a megabyte of
// tables, too much to allocate for every page.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestCompression) // a valid level: no error
	return zw
}}

func gzipPage(page []byte) []byte {
	var buf bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(&buf)
	_, _ = zw.Write(page) // a bytes.Buffer does not fail
	_ = zw.Close()
	gzipWriters.Put(zw)
	return buf.Bytes()
}
