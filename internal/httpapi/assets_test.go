package httpapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// assetServer serves a built SPA holding one script with its brotli and
// gzip siblings (as web/scripts/compress-dist.mjs writes them), an image
// with none, and the favicon. Go's library has no brotli decoder: the .br
// sibling here is marked bytes, checked to be what is sent; the browser
// test (web/e2e/assets.test.mjs) and the build step's own test decode
// real brotli.
func assetServer(t *testing.T) (h http.Handler, js, gz, br []byte) {
	t.Helper()
	js = []byte(strings.Repeat("export const greeting = 'Bonjour';\n", 200))
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(js)
	_ = zw.Close()
	gz = buf.Bytes()
	br = []byte("brotli bytes of app-abc.js")
	h, _ = newServer(t, Config{Dev: true}, Deps{
		SPA: fstest.MapFS{
			"index.html":                {Data: []byte(testIndex)},
			"index.html.gz":             {Data: []byte("unused: the page is rendered per request")},
			"assets/app-abc.js":         {Data: js},
			"assets/app-abc.js.gz":      {Data: gz},
			"assets/app-abc.js.br":      {Data: br},
			"assets/photo-abc.webp":     {Data: []byte("RIFF....WEBP")},
			"assets/font-abc.woff2":     {Data: []byte("wOF2")},
			"assets/style-abc.css":      {Data: []byte("body{margin:0}")},
			"favicon.svg":               {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)},
			"favicon.svg.gz":            {Data: []byte("gz")},
			"brands/belair/logo.svg":    {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><title>belair</title></svg>`)},
			"brands/belair/logo.svg.br": {Data: []byte("br")},
		},
	})
	return h, js, gz, br
}

func TestAssetsPrecompressedByAcceptEncoding(t *testing.T) {
	h, js, gz, br := assetServer(t)
	cases := []struct {
		accept, coding string
	}{
		{"", ""},
		{"gzip", "gzip"},
		{"br", "br"},
		{"gzip, deflate, br", "br"},       // Chromium over HTTPS
		{"gzip, deflate, br, zstd", "br"}, // Chromium 123+
		{"gzip, deflate", "gzip"},         // Chromium over plain http
		{"BR", "br"},
		{"x-gzip", "gzip"},
		{"br;q=0.5, gzip", "gzip"},
		{"br;q=0.5, gzip;q=0.8", "gzip"},
		{"gzip;q=0.9, br;q=0.9", "br"}, // a tie goes to the smaller
		{"br;q=0, gzip", "gzip"},
		{"br;q=0, gzip;q=0", ""},
		{"gzip;q=0.5, identity", ""}, // identity preferred
		{"identity", ""},
		{"deflate", ""},
		{"zstd", ""},
		{"*", "br"},
		{"*;q=0", ""}, // nothing acceptable: identity rather than 406
		{"gzip;q=0, *", "br"},
		{"br;q=nonsense, gzip", "gzip"},
	}
	for _, tt := range cases {
		t.Run(tt.accept, func(t *testing.T) {
			rec := do(t, h, "GET", "/assets/app-abc.js", "belair.localhost", map[string]string{"Accept-Encoding": tt.accept}, "")
			if rec.Status != 200 {
				t.Fatalf("status %d", rec.Status)
			}
			hd := rec.Header
			if got := hd.Get("Content-Encoding"); got != tt.coding {
				t.Fatalf("Content-Encoding %q, want %q", got, tt.coding)
			}
			if got := hd.Get("Vary"); got != "Accept-Encoding" {
				t.Errorf("Vary %q, want Accept-Encoding", got)
			}
			if got := hd.Get("Content-Type"); got != "text/javascript; charset=utf-8" {
				t.Errorf("Content-Type %q", got)
			}
			if got := hd.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
				t.Errorf("Cache-Control %q", got)
			}
			body := rec.Body
			if got, want := hd.Get("Content-Length"), len(body); got != strconv.Itoa(want) {
				t.Errorf("Content-Length %s, body %d bytes", got, want)
			}
			var decoded []byte
			switch tt.coding {
			case "":
				decoded = body
			case "gzip":
				if !bytes.Equal(body, gz) {
					t.Fatal("gzip body is not the .gz file")
				}
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if decoded, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			case "br":
				if !bytes.Equal(body, br) {
					t.Fatal("brotli body is not the .br file")
				}
				decoded = js
			}
			if !bytes.Equal(decoded, js) {
				t.Fatal("the body does not decode to the original")
			}
		})
	}
}

func TestAssetETagPerEncodingAnd304(t *testing.T) {
	h, _, _, _ := assetServer(t)
	tags := map[string]string{}
	for _, accept := range []string{"", "gzip", "br"} {
		rec := do(t, h, "GET", "/assets/app-abc.js", "belair.localhost", map[string]string{"Accept-Encoding": accept}, "")
		tag := rec.Header.Get("ETag")
		if !strings.HasPrefix(tag, `"`) || len(tag) < 10 {
			t.Fatalf("Accept-Encoding %q: ETag %q, want a strong validator", accept, tag)
		}
		for other, seen := range tags {
			if seen == tag {
				t.Fatalf("Accept-Encoding %q and %q share ETag %s", accept, other, tag)
			}
		}
		tags[accept] = tag

		rec = do(t, h, "GET", "/assets/app-abc.js", "belair.localhost", map[string]string{"Accept-Encoding": accept, "If-None-Match": tag}, "")
		if rec.Status != http.StatusNotModified || len(rec.Body) != 0 {
			t.Fatalf("Accept-Encoding %q, If-None-Match %s: status %d, %d bytes; want 304, none", accept, tag, rec.Status, len(rec.Body))
		}
		if rec.Header.Get("ETag") != tag || rec.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("304 headers %v", rec.Header)
		}
	}
	// The gzip validator does not match the brotli representation.
	rec := do(t, h, "GET", "/assets/app-abc.js", "belair.localhost", map[string]string{"Accept-Encoding": "br", "If-None-Match": tags["gzip"]}, "")
	if rec.Status != 200 || rec.Header.Get("Content-Encoding") != "br" {
		t.Fatalf("br with the gzip ETag: status %d, encoding %q; want 200 br", rec.Status, rec.Header.Get("Content-Encoding"))
	}
}

func TestAssetRangeAndHead(t *testing.T) {
	h, _, gz, _ := assetServer(t)
	rec := do(t, h, "GET", "/assets/app-abc.js", "belair.localhost", map[string]string{"Accept-Encoding": "gzip", "Range": "bytes=0-9"}, "")
	if rec.Status != http.StatusPartialContent {
		t.Fatalf("range: status %d", rec.Status)
	}
	// A range is of the representation sent: the gzip bytes.
	if !bytes.Equal(rec.Body, gz[:10]) || rec.Header.Get("Content-Encoding") != "gzip" ||
		rec.Header.Get("Content-Range") != "bytes 0-9/"+strconv.Itoa(len(gz)) || rec.Header.Get("Content-Length") != "10" {
		t.Fatalf("range: %v, body %x", rec.Header, rec.Body)
	}

	rec = do(t, h, "HEAD", "/assets/app-abc.js", "belair.localhost", map[string]string{"Accept-Encoding": "gzip"}, "")
	if rec.Status != 200 || len(rec.Body) != 0 || rec.Header.Get("Content-Length") != strconv.Itoa(len(gz)) ||
		rec.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("HEAD: status %d, %d bytes, %v", rec.Status, len(rec.Body), rec.Header)
	}
}

func TestAssetCachingAndWhatIsServed(t *testing.T) {
	h, _, _, _ := assetServer(t)
	cases := []struct {
		target, accept     string
		status             int
		cache, coding, typ string
	}{
		{"/assets/app-abc.js", "br", 200, "public, max-age=31536000, immutable", "br", "text/javascript; charset=utf-8"},
		// Already compressed: no sibling, no Vary.
		{"/assets/photo-abc.webp", "br, gzip", 200, "public, max-age=31536000, immutable", "", "image/webp"},
		{"/favicon.svg", "gzip", 200, "public, max-age=3600", "gzip", "image/svg+xml"},
		{"/brands/belair/logo.svg", "br", 200, "public, max-age=3600", "br", "image/svg+xml"},
		// Every page the server renders is asked again before reuse.
		// compressed per response (gzip: Go's library writes no brotli).
		{"/", "br, gzip", 200, "no-cache", "gzip", "text/html; charset=utf-8"},
		{"/nope", "br", 404, "no-cache", "", "text/html; charset=utf-8"},
		{"/nope", "gzip;q=0.5, identity", 404, "no-cache", "", "text/html; charset=utf-8"},
		{"/nope", "deflate, gzip", 404, "no-cache", "gzip", "text/html; charset=utf-8"},
		// Siblings and folders are not files of their own.
		{"/assets/app-abc.js.gz", "", 404, "", "", ""},
		{"/assets/app-abc.js.br", "", 404, "", "", ""},
		{"/assets/", "", 404, "", "", ""},
		{"/assets/missing.js", "gzip", 404, "", "", ""},
	}
	for _, tt := range cases {
		t.Run(tt.target, func(t *testing.T) {
			rec := do(t, h, "GET", tt.target, "belair.localhost", map[string]string{"Accept-Encoding": tt.accept}, "")
			if rec.Status != tt.status {
				t.Fatalf("status %d, want %d", rec.Status, tt.status)
			}
			if tt.status == 404 && tt.cache == "" {
				if rec.Header.Get("Content-Encoding") != "" {
					t.Errorf("404 with Content-Encoding %q", rec.Header.Get("Content-Encoding"))
				}
				return
			}
			hd := rec.Header
			if hd.Get("Cache-Control") != tt.cache || hd.Get("Content-Encoding") != tt.coding || hd.Get("Content-Type") != tt.typ {
				t.Fatalf("Cache-Control %q, Content-Encoding %q, Content-Type %q; want %q, %q, %q",
					hd.Get("Cache-Control"), hd.Get("Content-Encoding"), hd.Get("Content-Type"), tt.cache, tt.coding, tt.typ)
			}
			if vary := hd.Values("Vary"); tt.coding != "" && !contains(vary, "Accept-Encoding") {
				t.Errorf("Vary %q", vary)
			} else if tt.target == "/assets/photo-abc.webp" && contains(vary, "Accept-Encoding") {
				t.Errorf("Vary %q on a file with one representation", vary)
			}
		})
	}
}

// TestPageCompressed: the rendered page, sent gzip to a client that takes
// it, is the page sent uncompressed (its nonce apart), with its length.
func TestPageCompressed(t *testing.T) {
	h, _, _, _ := assetServer(t)
	plain := do(t, h, "GET", "/?lang=fr", "belair.localhost", nil, "")
	zipped := do(t, h, "GET", "/?lang=fr", "belair.localhost", map[string]string{"Accept-Encoding": "gzip"}, "")
	if plain.Header.Get("Content-Encoding") != "" || zipped.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q and %q", plain.Header.Get("Content-Encoding"), zipped.Header.Get("Content-Encoding"))
	}
	if got := zipped.Header.Get("Content-Length"); got != strconv.Itoa(len(zipped.Body)) {
		t.Fatalf("Content-Length %s for %d bytes", got, len(zipped.Body))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped.Body))
	if err != nil {
		t.Fatal(err)
	}
	page, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	nonce := regexp.MustCompile(`nonce="[^"]+"`)
	want := nonce.ReplaceAllString(string(plain.Body), "nonce")
	if got := nonce.ReplaceAllString(string(page), "nonce"); got != want || !strings.Contains(got, `<html lang="fr"`) {
		t.Fatalf("decoded page\n%s\nwant\n%s", got, want)
	}
	head := do(t, h, "HEAD", "/", "belair.localhost", map[string]string{"Accept-Encoding": "gzip"}, "")
	if head.Header.Get("Content-Encoding") != "gzip" || head.Header.Get("Content-Length") == "" || len(head.Body) != 0 {
		t.Fatalf("HEAD: %v, %d bytes", head.Header, len(head.Body))
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestLogoPerLanguage: /brands/<id>/logo.fr.svg is the French logo; without
// a file, a brand named alike in both languages shares its logo file, and
// the others get their French name drawn.
func TestLogoPerLanguage(t *testing.T) {
	h, _, _, _ := assetServer(t)
	cases := []struct{ target, want, not string }{
		{"/brands/belair/logo.fr.svg", "<title>belair</title>", ""},
		{"/brands/intact/logo.svg", "<title>Intact Insurance</title>", "Assurance"},
		{"/brands/intact/logo.fr.svg", "<title>Intact Assurance</title>", "Insurance"},
		{"/brands/bna/logo.fr.svg", "<title>Banque Nationale Assurances</title>", "Insurance"},
	}
	for _, c := range cases {
		rec := do(t, h, "GET", c.target, "belair.localhost", nil, "")
		body := string(rec.Body)
		if rec.Status != 200 || rec.Header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(body, c.want) ||
			(c.not != "" && strings.Contains(body, c.not)) {
			t.Errorf("%s: status %d, %q: %s", c.target, rec.Status, rec.Header.Get("Content-Type"), body)
		}
	}
	for _, target := range []string{"/brands/belair/logo.de.svg", "/brands/nope/logo.fr.svg", "/brands/intact/x/logo.fr.svg"} {
		if rec := do(t, h, "GET", target, "belair.localhost", nil, ""); rec.Status != 404 {
			t.Errorf("%s: status %d, want 404", target, rec.Status)
		}
	}
}

// TestFontsReadableAcrossOrigins: the portal's fonts (hashed, public) may be
// read by another origin (the console's co-browse viewer replays the
// visitor's page, whose CSS names them on the brand host; browsers fetch
// fonts in CORS mode); nothing else is.
func TestFontsReadableAcrossOrigins(t *testing.T) {
	h, _, _, _ := assetServer(t)
	origin := map[string]string{"Origin": "http://console.localhost"}
	font := do(t, h, "GET", "/assets/font-abc.woff2", "belair.localhost", origin, "")
	if font.Status != 200 || font.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("font: %d %v", font.Status, font.Header)
	}
	for _, path := range []string{"/assets/app-abc.js", "/assets/photo-abc.webp", "/favicon.svg", "/"} {
		if got := do(t, h, "GET", path, "belair.localhost", origin, "").Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Fatalf("%s: Access-Control-Allow-Origin %q", path, got)
		}
	}
}
