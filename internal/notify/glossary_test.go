package notify

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The words the server sends against docs/glossary.md, the one list of the
// portal's words (web/src/i18n/glossary.test.ts reads the same file for the
// SPA's catalogues). Only `backticked` entries of its tables count: the
// "<Language>: never" columns are the words a text must not hold, the
// "<Language>" columns the approved phrases, inside which a word to avoid is
// allowed (« conseiller ou conseillère » passes where a bare « conseiller »
// fails).

const repoRoot = "../.."

// glossaryWords is one language's entries.
type glossaryWords struct{ never, use []string }

var glossaryColumns = map[string]string{"English": "en", "French": "fr"}

func parseGlossary(t *testing.T, markdown string) map[string]*glossaryWords {
	t.Helper()
	words := map[string]*glossaryWords{"en": {}, "fr": {}}
	backticked := regexp.MustCompile("`([^`]+)`")
	var header []string
	for _, line := range strings.Split(markdown, "\n") {
		if !strings.HasPrefix(line, "|") {
			header = nil
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if header == nil {
			header = cells
			continue
		}
		for i, cell := range cells {
			if i >= len(header) {
				break
			}
			var items []string
			for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
				items = append(items, m[1])
			}
			column := header[i]
			if lang, ok := glossaryColumns[strings.TrimSuffix(column, ": never")]; ok {
				if strings.HasSuffix(column, ": never") {
					words[lang].never = append(words[lang].never, items...)
				} else {
					words[lang].use = append(words[lang].use, items...)
				}
			}
		}
	}
	return words
}

// termPattern: any case, ' and ’ alike, any spaces alike, * any letters; the
// whole-word test is wordSpans'.
func termPattern(term string) *regexp.Regexp {
	var body strings.Builder
	for _, r := range term {
		switch {
		case r == '*':
			body.WriteString(`\pL*`)
		case r == '\'' || r == '’':
			body.WriteString(`['’]`)
		case r == ' ' || r == '\u00a0':
			body.WriteString(`[\s\x{00a0}\x{202f}]+`)
		default:
			body.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return regexp.MustCompile(`(?i)` + body.String())
}

// wordSpans are where p matches text as whole words (no letter or digit
// just before or after).
func wordSpans(p *regexp.Regexp, text string) [][2]int {
	inWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	var spans [][2]int
	for _, m := range p.FindAllStringIndex(text, -1) {
		before, _ := utf8.DecodeLastRuneInString(text[:m[0]])
		after, _ := utf8.DecodeRuneInString(text[m[1]:])
		if !inWord(before) && !inWord(after) {
			spans = append(spans, [2]int{m[0], m[1]})
		}
	}
	return spans
}

type glossaryChecker func(text string) []string

var notProse = regexp.MustCompile(`\{\{.*?\}\}|\{\w+\}|<[^>]*>|https?://\S+`)

// newGlossaryChecker: the words to avoid that a text holds, except where
// they are part of an approved phrase.
func newGlossaryChecker(w *glossaryWords) glossaryChecker {
	var approved []*regexp.Regexp
	for _, phrase := range w.use {
		approved = append(approved, termPattern(phrase))
	}
	return func(text string) []string {
		prose := notProse.ReplaceAllString(text, " ")
		var allowed [][2]int
		for _, p := range approved {
			allowed = append(allowed, wordSpans(p, prose)...)
		}
		var found []string
		for _, term := range w.never {
			for _, span := range wordSpans(termPattern(term), prose) {
				if !slices.ContainsFunc(allowed, func(a [2]int) bool { return a[0] <= span[0] && span[1] <= a[1] }) {
					found = append(found, term)
					break
				}
			}
		}
		return found
	}
}

// sentText is one text the server sends, and where it comes from. Typed
// texts are shown as they are written (the bot's answers, the chat's system
// messages, the server's pages), so they follow the typography of their
// language too; the templates have their own typography test.
type sentText struct {
	where, lang, text string
	typed             bool
}

// templateTexts: the email and text-message templates, whole files.
func templateTexts(t *testing.T) []sentText {
	var texts []sentText
	for _, lang := range []string{"en", "fr"} {
		paths, err := filepath.Glob(filepath.Join("templates", lang, "*"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("templates/%s: %v", lang, err)
		}
		for _, path := range paths {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, sentText{where: path, lang: lang, text: string(data)})
		}
	}
	return texts
}

// configTexts: the texts of every brand's files in config/brands, under a key
// en or fr: the chat bot's answers, titles and link labels (<brand>/faq.yaml),
// the promotion and the agents' canned replies (<brand>.yaml). The bot's sample
// questions are what visitors type, not what we send; links and images are
// not text.
func configTexts(t *testing.T) []sentText {
	paths, err := filepath.Glob(filepath.Join(repoRoot, "config/brands/*/faq.yaml"))
	brandFiles, err2 := filepath.Glob(filepath.Join(repoRoot, "config/brands/*.yaml"))
	if err != nil || err2 != nil || len(paths) == 0 || len(brandFiles) == 0 {
		t.Fatalf("no brand files: %v %v", err, err2)
	}
	var texts []sentText
	var walk func(path string, n *yaml.Node, field, lang string)
	walk = func(path string, n *yaml.Node, field, lang string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				key, value := n.Content[i], n.Content[i+1]
				switch key.Value {
				case "questions", "url", "image":
				case "en", "fr":
					walk(path, value, field, key.Value)
				default:
					walk(path, value, key.Value, lang)
				}
			}
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				walk(path, c, field, lang)
			}
		case yaml.ScalarNode:
			if lang != "" && !strings.HasPrefix(n.Value, "/") && !strings.HasPrefix(n.Value, "https://") {
				texts = append(texts, sentText{path + ":" + strconv.Itoa(n.Line) + " " + field, lang, n.Value, true})
			}
		}
	}
	for _, path := range append(paths, brandFiles...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		walk(path, &doc, "", "")
	}
	return texts
}

var (
	frenchLetters = regexp.MustCompile(`[àâçéèêëîïôûùüœÀÂÇÉÈÊÎÔ«»]`)
	frenchWords   = regexp.MustCompile(`(?i)(^|[^\pL])(vous|votre|vos|nous|notre|une|est|les|des|avec|pour|dans|ou)([^\pL]|$)`)
)

// frenchValues adds the string literals of e, not the keys of its composite
// literals, to french.
func frenchValues(e ast.Node, french map[*ast.BasicLit]bool) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			frenchValues(n.Value, french)
			return false
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				french[n] = true
			}
		}
		return true
	})
}

// frenchByPlace: the literals that are French by where they stand, accents or
// not: a field FR (the bot's texts), the value of a key "fr" or of a variable fr
// (the chat's system messages, the unknown-site page), the second of an
// English/French pair in a map of [2]string (the privacy page).
func frenchByPlace(f *ast.File) map[*ast.BasicLit]bool {
	french := map[*ast.BasicLit]bool{}
	isPair := func(t ast.Expr) bool {
		a, ok := t.(*ast.ArrayType)
		if !ok || a.Len == nil {
			return false
		}
		n, ok := a.Len.(*ast.BasicLit)
		elt, isIdent := a.Elt.(*ast.Ident)
		return ok && n.Value == "2" && isIdent && elt.Name == "string"
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok && id.Name == "FR" {
				frenchValues(n.Value, french)
			}
			if lit, ok := n.Key.(*ast.BasicLit); ok && lit.Value == `"fr"` {
				frenchValues(n.Value, french)
			}
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if id, ok := lhs.(*ast.Ident); ok && id.Name == "fr" && i < len(n.Rhs) {
					frenchValues(n.Rhs[i], french)
				}
			}
		case *ast.CompositeLit:
			if m, ok := n.Type.(*ast.MapType); ok && isPair(m.Value) {
				for _, elt := range n.Elts {
					if kv, ok := elt.(*ast.KeyValueExpr); ok {
						if pair, ok := kv.Value.(*ast.CompositeLit); ok && len(pair.Elts) == 2 {
							frenchValues(pair.Elts[1], french)
						}
					}
				}
			}
		}
		return true
	})
	return french
}

// goFrenchTexts: every string literal of the server's Go code that is French,
// by its place (frenchByPlace) or by its accents and words, rather than by a
// list of files, so that new French is checked too.
func goFrenchTexts(t *testing.T) []sentText {
	var texts []sentText
	for _, dir := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			french := frenchByPlace(f)
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err == nil && (french[lit] || frenchLetters.MatchString(s) || frenchWords.MatchString(s)) {
					texts = append(texts, sentText{fset.Position(lit.Pos()).String(), "fr", s, french[lit]})
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return texts
}

func glossaryCheckers(t *testing.T) map[string]glossaryChecker {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs/glossary.md"))
	if err != nil {
		t.Fatal(err)
	}
	words := parseGlossary(t, string(data))
	for lang, w := range words {
		if len(w.never) < 10 || len(w.use) < 10 {
			t.Fatalf("docs/glossary.md gives %d words to avoid and %d approved phrases in %s", len(w.never), len(w.use), lang)
		}
	}
	return map[string]glossaryChecker{"en": newGlossaryChecker(words["en"]), "fr": newGlossaryChecker(words["fr"])}
}

func TestGlossaryCatchesWhatItLists(t *testing.T) {
	check := glossaryCheckers(t)
	cases := []struct {
		text string
		bad  bool
	}{
		{"Votre agent demande à voir les pages", true},
		{"Le conseiller a demandé à voir votre écran", true},
		{"{{.Brand.Name}} : ouvrez une session avec votre adresse", true},
		{"La transcription est en route vers vous.", true},
		{"Le clavardage est injoignable.", true},
		{"Votre numéro de mobile", true},
		{"{{.Brand.Name}} : votre code de vérification", true},
		{"Un conseiller ou une conseillère prendra le relais.", false},
		{"<p>Connectez-vous à {{.Link}}</p>", false},
		{"https://example.com/agent", false},
		{"Téléchargez l’application mobile", false},
	}
	for _, c := range cases {
		if found := check["fr"](c.text); (len(found) > 0) != c.bad {
			t.Errorf("%q: found %v, want a word to avoid: %v", c.text, found, c.bad)
		}
	}
	if found := check["en"]("Please log in with your e-mail"); !slices.Equal(found, []string{"log in", "e-mail"}) {
		t.Errorf("English check found %v", found)
	}
}

func TestSentTextsUseTheGlossary(t *testing.T) {
	check := glossaryCheckers(t)
	sources := map[string][]sentText{"templates": templateTexts(t), "config": configTexts(t), "go": goFrenchTexts(t)}
	for name, min := range map[string]int{"templates": 80, "config": 200, "go": 30} {
		if len(sources[name]) < min {
			t.Fatalf("found %d texts in %s, fewer than %d: the walk lost its way", len(sources[name]), name, min)
		}
	}
	for _, texts := range sources {
		for _, s := range texts {
			if found := check[s.lang](s.text); len(found) > 0 {
				t.Errorf("%s (%s) uses %q, which docs/glossary.md says never to use:\n%s", s.where, s.lang, found, s.text)
			}
		}
	}
}

func TestShownTextsFollowTypography(t *testing.T) {
	texts := append(configTexts(t), goFrenchTexts(t)...)
	typed := 0
	for _, s := range texts {
		if !s.typed {
			continue
		}
		typed++
		for _, p := range typographyProblems(s.lang, s.text) {
			t.Errorf("%s (%s): %s", s.where, s.lang, p)
		}
	}
	if typed < 300 {
		t.Fatalf("only %d texts checked: the walk lost its way", typed)
	}
}
