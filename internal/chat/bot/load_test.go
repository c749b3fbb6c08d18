package bot

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"guichet/config"
	"guichet/internal/brand"
)

// readGoodFAQ is testdata/acme/faq.yaml, a valid FAQ file of two topics
// that the tests of bad files spoil one way each.
func readGoodFAQ(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "acme", "faq.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestLoad(t *testing.T) {
	goodFAQ := readGoodFAQ(t)
	b, err := Load(fstest.MapFS{"acme/faq.yaml": {Data: []byte(goodFAQ)}}, []string{"acme", "other"})
	if err != nil {
		t.Fatal(err)
	}
	if !b.HasFAQ("acme") || b.HasFAQ("other") {
		t.Fatalf("HasFAQ: acme %v, other %v", b.HasFAQ("acme"), b.HasFAQ("other"))
	}
	if r := b.Answer("acme", "fr", "j'ai oublié mon mot de passe"); r.TopicID != "password" || r.Links[0].URL != "https://example.com/fr" {
		t.Fatalf("Answer = %+v", r)
	}
	if r := b.Answer("other", "en", "I forgot my password"); r.Reason != ReasonNoFAQ {
		t.Fatalf("a brand without a file: %+v", r)
	}
	// From a directory, as with GUICHET_BRANDS_DIR.
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "acme"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "acme", "faq.yaml"), []byte(goodFAQ), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Load(os.DirFS(dir), []string{"acme"}); err != nil || !b.HasFAQ("acme") {
		t.Fatalf("Load(DirFS) = %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	goodFAQ := readGoodFAQ(t)
	for _, c := range []struct{ name, file, want string }{
		{"bad yaml", "welcome: [\n", "acme/faq.yaml: yaml:"},
		{"unknown field", strings.Replace(goodFAQ, "top:", "colour: red\ntop:", 1), "field colour not found"},
		{"unknown field in a topic", strings.Replace(goodFAQ, "    related: [hours]", "    related: [hours]\n    priority: 1", 1), "field priority not found"},
		{"missing fr answer", strings.Replace(goodFAQ, `, fr: "En semaine de 8 h à 18 h." }`, " }", 1), "acme/faq.yaml: topics[1].answer.fr: missing"},
		{"missing fr questions", strings.Replace(goodFAQ, `      fr: ["heures d'ouverture", "quand êtes-vous ouverts"]`+"\n", "", 1), "topics[1].questions.fr: give at least 2 phrasings"},
		{"one phrasing", strings.Replace(goodFAQ, `["opening hours", "when are you open"]`, `["opening hours"]`, 1), "topics[1].questions.en: give at least 2"},
		{"stop words only", strings.Replace(goodFAQ, `"when are you open"`, `"what is it"`, 1), `topics[1].questions.en[1]: "what is it" has no word`},
		{"http link", strings.Replace(goodFAQ, "https://example.com/fr", "http://example.com/fr", 1), "topics[0].links[0].url.fr: \"http://example.com/fr\" is not an https URL"},
		{"javascript link", strings.Replace(goodFAQ, "https://example.com/en", "javascript:alert(1)", 1), "is not an https URL"},
		{"unknown related", strings.Replace(goodFAQ, "related: [hours]", "related: [claims]", 1), `topics[0].related[0]: "claims" is not another topic`},
		{"unknown top", strings.Replace(goodFAQ, "top: [password]", "top: [nope]", 1), `top[0]: "nope" is not a topic`},
		{"no top", strings.Replace(goodFAQ, "top: [password]\n", "", 1), "acme/faq.yaml: top: missing"},
		{"duplicate id", strings.Replace(goodFAQ, "id: hours", "id: password", 1), `"password" is used twice`},
		{"bad id", strings.Replace(goodFAQ, "id: hours", "id: Hours!", 1), "is not a topic id"},
		{"duplicate key", strings.Replace(goodFAQ, "top: [password]", "top: [password]\ntop: [hours]", 1), "already defined"},
		{"two documents", goodFAQ + "---\nwelcome: {}\n", "more than one YAML document"},
		{"empty", "", "acme/faq.yaml: empty file"},
		{"no welcome", strings.Replace(goodFAQ, "welcome:\n  en: \"Hello from Acme.\"\n  fr: \"Bonjour de la part d’Acme.\"\n", "", 1), "welcome.en: missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(fstest.MapFS{"acme/faq.yaml": {Data: []byte(c.file)}}, []string{"acme"})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "acme/faq.yaml") {
				t.Fatalf("Load = %v, want an error naming acme/faq.yaml with %q", err, c.want)
			}
		})
	}
	// Every problem of a file is listed, not only the first.
	both := strings.Replace(strings.Replace(goodFAQ, "top: [password]", "top: [nope]", 1), "related: [hours]", "related: [claims]", 1)
	if _, err := Load(fstest.MapFS{"acme/faq.yaml": {Data: []byte(both)}}, []string{"acme"}); err == nil ||
		!strings.Contains(err.Error(), "nope") || !strings.Contains(err.Error(), "claims") {
		t.Fatalf("Load = %v, want both problems", err)
	}
	for _, id := range []string{"../etc", "a/b", ""} {
		if _, err := Load(fstest.MapFS{}, []string{id}); err == nil {
			t.Errorf("Load accepts the brand id %q", id)
		}
	}
}

// TestSampleFAQsMatchTheBrands: each brand's FAQ names the brand and gives
// only its own phone numbers, every menu province's among them.
func TestSampleFAQsMatchTheBrands(t *testing.T) {
	reg, err := brand.LoadFS(config.Brands(), "embedded")
	if err != nil {
		t.Fatal(err)
	}
	b := loadSamples(t)
	phone := regexp.MustCompile(`1 833-\d{3}-\d{4}`)
	for _, id := range brandIDs {
		br, ok := reg.ByID(id)
		if !ok {
			t.Fatalf("no brand %s", id)
		}
		own := map[string]bool{}
		for _, p := range br.Provinces {
			own[p.Phone] = true
		}
		for _, lang := range []string{"en", "fr"} {
			if name := br.Name.For(lang); !strings.Contains(b.Welcome(id, lang).Text, name) {
				t.Errorf("%s %s welcome does not name %q", id, lang, name)
			}
			var claims string
			for _, tp := range b.brands[id].faq.Topics {
				text := tp.Answer.in(lang)
				for _, p := range phone.FindAllString(text, -1) {
					if !own[p] {
						t.Errorf("%s %s %s: %s is not a phone number of %s", id, lang, tp.ID, p, id)
					}
				}
				if tp.ID == "claims" {
					claims = text
				}
			}
			for _, p := range br.Provinces {
				if p.Menu && !strings.Contains(claims, p.Phone) {
					t.Errorf("%s %s: the claims answer lacks %s (%s)", id, lang, p.Phone, p.Key)
				}
			}
		}
	}
}
