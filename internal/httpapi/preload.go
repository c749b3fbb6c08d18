package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"strings"
)

// pageChunks is dist/page-chunks.json (web/scripts/page-chunks.ts): what a
// first visit to each page needs besides the entry chunk. index.html names
// them, so the browser fetches the page's chunk and the message catalogues
// alongside the entry rather than after it has run (issue 12, defect 3:
// the login page painted late and its footer jumped when the page arrived).
type pageChunks struct {
	Pages map[string]struct {
		JS  []string `json:"js"`
		CSS []string `json:"css"`
		// Sections: the message sections the page's route loads before
		// its first render (catalogues "<section>.<language>").
		Sections []string `json:"sections"`
		// Aside: the page shows the brand's promo panel when it first
		// renders (routes.tsx `aside: true`).
		Aside bool `json:"aside"`
	} `json:"pages"`
	// Catalogs: a catalogue's chunk and the chunks it imports that the
	// entry does not (English's imports the texts' chunk, which the staff
	// console shares).
	Catalogs map[string][]string `json:"catalogs"`
}

// readPageChunks reads page-chunks.json; a build without it (a Go-only
// test build) preloads nothing.
func readPageChunks(files fs.FS) (*pageChunks, error) {
	data, err := fs.ReadFile(files, "page-chunks.json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var pc pageChunks
	if err := json.Unmarshal(data, &pc); err != nil {
		return nil, fmt.Errorf("page-chunks.json: %w", err)
	}
	return &pc, nil
}

// preloadTags returns the <link> elements for a page: the chunks of the
// route that matches path ("*", the not-found page, when none does or
// notFound) and the catalogues src/i18n/catalog.ts loads for brand and
// language: that language's catalogue and the brand's overrides in it
// (never another language's), and the page's message sections in it.
// promo is the path of the promo image the page shows in its panel, ""
// when it shows none (no promo, webview mode): a page that shows the
// panel asks for it first, at a high priority, so that the phone's
// largest element does not wait for the first render (issue 32,
// Lighthouse's prioritize-lcp-image).
func (s *spa) preloadTags(path string, notFound bool, brandID, language, promo string) []byte {
	if s.chunks == nil {
		return nil
	}
	pattern := "*"
	if !notFound {
		for _, p := range s.paths {
			if matchPath(p, path) {
				pattern = p
				break
			}
		}
	}
	var b strings.Builder
	module := func(file string) {
		if file != "" {
			fmt.Fprintf(&b, `<link rel="modulepreload" crossorigin href="/%s">`+"\n", html.EscapeString(file))
		}
	}
	page := s.chunks.Pages[pattern]
	if page.Aside && promo != "" {
		fmt.Fprintf(&b, `<link rel="preload" as="image" fetchpriority="high" href="%s">`+"\n", html.EscapeString(promo))
	}
	for _, f := range page.CSS {
		fmt.Fprintf(&b, `<link rel="stylesheet" crossorigin href="/%s">`+"\n", html.EscapeString(f))
	}
	for _, f := range page.JS {
		module(f)
	}
	for _, f := range s.chunks.Catalogs[language] {
		module(f)
	}
	for _, f := range s.chunks.Catalogs[brandID+"."+language] {
		module(f)
	}
	for _, section := range page.Sections {
		for _, f := range s.chunks.Catalogs[section+"."+language] {
			module(f)
		}
	}
	return []byte(b.String())
}
