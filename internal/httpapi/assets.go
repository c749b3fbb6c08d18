package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// encodings are the content codings the build writes beside an asset
// (web/scripts/compress-dist.mjs), in the order preferred when a client
// accepts several equally: brotli is the smaller.
var encodings = []struct{ name, ext string }{
	{"br", ".br"},
	{"gzip", ".gz"},
}

// asset is one file of the built SPA with its precompressed siblings.
type asset struct {
	name    string            // path in the SPA's file system
	encoded map[string]string // content coding → file holding the encoded bytes
	etags   sync.Map          // file → strong ETag, computed on first use
}

// indexAssets lists the SPA's files once at start; a request for a name not
// listed (a directory, a .br or .gz sibling, a missing file) is a 404.
func indexAssets(files fs.FS) (map[string]*asset, error) {
	all := map[string]bool{}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			all[p] = true
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	assets := map[string]*asset{}
	for p := range all {
		if strings.HasSuffix(p, ".br") || strings.HasSuffix(p, ".gz") || p == "index.html" {
			continue // siblings are served under their original's name; index.html is rendered
		}
		a := &asset{name: p, encoded: map[string]string{}}
		for _, e := range encodings {
			if all[p+e.ext] {
				a.encoded[e.name] = p + e.ext
			}
		}
		assets[p] = a
	}
	return assets, nil
}

// etag is the strong validator of one representation: a digest of its
// bytes, so each encoding has its own.
func (a *asset) etag(files fs.FS, file string) (string, error) {
	if v, ok := a.etags.Load(file); ok {
		return v.(string), nil
	}
	f, err := files.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	tag := `"` + hex.EncodeToString(h.Sum(nil)[:12]) + `"`
	a.etags.Store(file, tag)
	return tag, nil
}

// weighted is one element of an Accept-* field and its q-value.
type weighted struct {
	token string
	q     float64
}

// qValues splits an Accept-* field (RFC 9110 §12.4.2) into its elements in
// order, each with its weight (1 when none is given; 0 when malformed, which
// accepts nothing rather than guessing).
func qValues(field string) []weighted {
	var out []weighted
	for part := range strings.SplitSeq(field, ",") {
		token, params, _ := strings.Cut(part, ";")
		token = strings.TrimSpace(token)
		weight := 1.0
		for p := range strings.SplitSeq(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				w, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || w < 0 || w > 1 {
					w = 0
				}
				weight = w
			}
		}
		if token != "" {
			out = append(out, weighted{token, weight})
		}
	}
	return out
}

// negotiate picks the content coding of a response from Accept-Encoding
// (RFC 9110 §12.5.3): the available coding of highest q-value, brotli
// before gzip before identity on a tie. "" is identity, served too when the
// client accepts nothing on offer (the field is then disregarded).
func negotiate(acceptEncoding string, available map[string]string) string {
	if len(available) == 0 || acceptEncoding == "" {
		return ""
	}
	q := map[string]float64{}
	for _, w := range qValues(acceptEncoding) {
		coding := strings.ToLower(w.token)
		if coding == "x-gzip" {
			coding = "gzip"
		}
		q[coding] = w.q
	}
	weight := func(coding string, unlisted float64) float64 {
		if w, ok := q[coding]; ok {
			return w
		}
		if w, ok := q["*"]; ok {
			return w
		}
		return unlisted
	}
	// Identity is acceptable unless excluded (RFC 9110 §12.5.3), but when
	// not listed it ranks below any coding the client asked for.
	best, bestQ := "", weight("identity", 0)
	for i := len(encodings) - 1; i >= 0; i-- { // later (preferred) codings win ties
		name := encodings[i].name
		if _, ok := available[name]; !ok {
			continue
		}
		if w := weight(name, 0); w > 0 && w >= bestQ {
			best, bestQ = name, w
		}
	}
	return best
}

// serveAsset writes one file of the SPA, or its precompressed sibling when
// the client accepts it; http.ServeContent answers conditional, range and
// HEAD requests on the bytes sent (the encoded ones).
func (s *spa) serveAsset(w http.ResponseWriter, r *http.Request, cacheControl string) {
	a, ok := s.assetIndex[strings.TrimPrefix(path.Clean(r.URL.Path), "/")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", cacheControl)
	if len(a.encoded) > 0 {
		h.Add("Vary", "Accept-Encoding") // caches must key on it, identity responses included
	}
	file := a.name
	coding := negotiate(r.Header.Get("Accept-Encoding"), a.encoded)
	if coding != "" {
		file = a.encoded[coding]
	}
	f, err := s.files.Open(file)
	if err != nil {
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	defer f.Close()
	content, ok := f.(io.ReadSeeker) // embed.FS and fstest.MapFS files seek
	if !ok {
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	tag, err := a.etag(s.files, file)
	if err != nil {
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	ctype := mime.TypeByExtension(path.Ext(a.name))
	if path.Ext(a.name) == ".woff2" {
		ctype = "font/woff2" // not in Go's own table; /etc/mime.types may lack it
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h.Set("Content-Type", ctype) // the original's type, not that of .br or .gz
	if subresource(ctype) {
		for _, k := range documentOnlyHeaders {
			h.Del(k)
		}
	} else if mediaType, _, _ := strings.Cut(ctype, ";"); mediaType == "image/svg+xml" {
		// An image that may be opened as a page: the data headers, with
		// its own inline styles allowed.
		dataHeaders(h)
		h.Set("Content-Security-Policy", svgPolicy)
	}
	h.Set("ETag", tag)
	if coding != "" {
		w = &encodedWriter{ResponseWriter: w, coding: coding}
	}
	http.ServeContent(w, r, a.name, time.Time{}, content)
}

// documentOnlyHeaders are the security headers (securityHeaders) that act
// only on a document, a response a browser shows in a frame or a window:
// the policy of its scripts, styles and frames (CSP), its framing, its
// browsing context group and the features it may use. A script, a
// stylesheet, a font or a raster image is never shown as a document (the
// scripts start no worker, the only script a CSP of its own would govern),
// so on these the headers are bytes on every response of a page's load:
// about 430 of them, 7 to 8 KB on the login page (issue 32). What such a
// file keeps: X-Content-Type-Options (nosniff: a script or a stylesheet is
// run only with its own type), Referrer-Policy (a module script's and a
// stylesheet's own requests follow it), Strict-Transport-Security over
// HTTPS, and X-Request-Id. An HTML file may be opened as a page: it keeps
// everything, as do error answers (http.NotFound before this); an SVG may be
// too, but holds no script: it gets the data headers and svgPolicy.
var documentOnlyHeaders = []string{"Content-Security-Policy", "X-Frame-Options", "Cross-Origin-Opener-Policy", "Permissions-Policy"}

// subresource tells whether a file of this type is only ever loaded by a
// page, never shown as one.
func subresource(ctype string) bool {
	mediaType, _, _ := strings.Cut(ctype, ";")
	switch mediaType {
	case "text/javascript", "text/css", "font/woff2", "font/woff", "image/webp", "image/avif", "image/png", "image/jpeg":
		return true
	}
	return false
}

// encodedWriter adds Content-Encoding when the content is sent. Set
// before http.ServeContent, the header would make it leave out
// Content-Length (it assumes an encoding applied on the fly); the length
// of the precompressed bytes is known, and caches and progress bars want it.
type encodedWriter struct {
	http.ResponseWriter
	coding string
	wrote  bool
}

func (e *encodedWriter) WriteHeader(code int) {
	if !e.wrote && (code == http.StatusOK || code == http.StatusPartialContent) {
		e.Header().Set("Content-Encoding", e.coding)
	}
	e.wrote = true
	e.ResponseWriter.WriteHeader(code)
}

func (e *encodedWriter) Write(b []byte) (int, error) {
	if !e.wrote {
		e.WriteHeader(http.StatusOK)
	}
	return e.ResponseWriter.Write(b)
}

func (e *encodedWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }
