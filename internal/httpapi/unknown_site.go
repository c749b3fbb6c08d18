package httpapi

import (
	_ "embed"
	"html/template"
	"net"
	"net/http"
	"strings"

	"guichet/internal/api"
)

// The unknown-site page: a host that is no brand's (a typo, an old name, a
// probe) gets a page in English or French that says so and lists every
// brand's portal and website, from the brand registry.

//go:embed unknownsite/page.html
var unknownSiteHTML string

//go:embed unknownsite/page.css
var unknownSiteCSS []byte

// unknownSiteCSSPath is the page's stylesheet (the CSP forbids inline
// styles); only unknown hosts serve it.
const unknownSiteCSSPath = "/unknown-site.css"

var unknownSitePage = template.Must(template.New("unknown").Parse(unknownSiteHTML))

// unknownSiteText is the page's wording per language.
var unknownSiteText = map[string]map[string]string{
	"en": {
		"title":     "Unknown site",
		"heading":   "This address is not one of our sites",
		"lead":      "Check the address you typed. To reach your account, choose your insurer below.",
		"sites":     "Our insurers’ sites",
		"signIn":    "Sign in",
		"website":   "Website",
		"other":     "Français",
		"otherLang": "fr",
	},
	"fr": {
		"title":     "Site inconnu",
		"heading":   "Cette adresse ne correspond à aucun de nos sites",
		"lead":      "Vérifiez l’adresse saisie. Pour accéder à votre compte, choisissez votre assureur ci-dessous.",
		"sites":     "Les sites de nos assureurs",
		"signIn":    "Se connecter",
		"website":   "Site Web",
		"other":     "English",
		"otherLang": "en",
	},
}

// unknownSiteBrand is one brand of the list.
type unknownSiteBrand struct {
	ID, Name, Portal, Host, Website, Logo string
}

func (s *server) unknownSite(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		api.JSON(w, http.StatusNotFound, api.NewError(http.StatusNotFound, "UNKNOWN_SITE", "error.unknownSite"))
		return
	}
	if r.URL.Path == unknownSiteCSSPath {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", cacheHour)
		_, _ = w.Write(unknownSiteCSS)
		return
	}
	lang := unknownSiteLanguage(r)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Language", lang)
	w.WriteHeader(http.StatusNotFound)
	_ = unknownSitePage.Execute(w, map[string]any{
		"Lang":   lang,
		"T":      unknownSiteText[lang],
		"CSS":    unknownSiteCSSPath,
		"Brands": s.unknownSiteBrands(r, lang),
	})
}

// unknownSiteBrands lists every brand with its portal address: the first
// production host, or in --dev the first dev host on the port asked for
// (so the links work on a developer's machine).
func (s *server) unknownSiteBrands(r *http.Request, lang string) []unknownSiteBrand {
	var out []unknownSiteBrand
	for _, b := range s.deps.Brands.All() {
		host, scheme := "", "https"
		if s.cfg.Dev && len(b.DevHosts) > 0 {
			host, scheme = b.DevHosts[0], "http"
			if _, port, err := net.SplitHostPort(r.Host); err == nil {
				host = net.JoinHostPort(host, port)
			}
		} else if len(b.Hosts) > 0 {
			host = b.Hosts[0]
		}
		if host == "" {
			continue
		}
		logo := "/brands/" + b.ID + "/logo.svg"
		if lang == "fr" {
			logo = "/brands/" + b.ID + "/logo.fr.svg"
		}
		out = append(out, unknownSiteBrand{
			ID:      b.ID,
			Name:    b.Name.For(lang),
			Portal:  scheme + "://" + host + "/?lang=" + lang,
			Host:    host,
			Website: b.Links.Marketing.For(lang),
			Logo:    logo,
		})
	}
	return out
}

// unknownSiteLanguage is ?lang= when it names a language, else the first of
// Accept-Language that the page has, else English (no brand says otherwise).
func unknownSiteLanguage(r *http.Request) string {
	if l := r.URL.Query().Get("lang"); l == "en" || l == "fr" {
		return l
	}
	best, bestQ := "en", 0.0
	for _, w := range qValues(r.Header.Get("Accept-Language")) {
		primary, _, _ := strings.Cut(strings.ToLower(w.token), "-")
		if (primary == "en" || primary == "fr") && w.q > bestQ {
			best, bestQ = primary, w.q
		}
	}
	return best
}
