package bot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// faqFile is <brand id>/faq.yaml. Every text is given in English and French.
type faqFile struct {
	// Welcome greets the visitor when the conversation starts.
	Welcome text `yaml:"welcome"`
	// Top names the topics offered as quick replies with the welcome, in order.
	Top []string `yaml:"top"`
	// Topics are the questions the bot answers.
	Topics []topic `yaml:"topics"`
}

type topic struct {
	ID string `yaml:"id"`
	// Title is the topic's quick reply: a short question the visitor may
	// press instead of typing (it must lead back to this topic).
	Title text `yaml:"title"`
	// Questions are ways visitors ask it, several per language.
	Questions phrasings `yaml:"questions"`
	Answer    text      `yaml:"answer"`
	Links     []link    `yaml:"links"`
	// Related topics are offered as quick replies under the answer.
	Related []string `yaml:"related"`
}

// bilingual is a value given in English and in French.
type bilingual[T any] struct {
	EN T `yaml:"en"`
	FR T `yaml:"fr"`
}

// in is the value in lang ("fr", else English).
func (b bilingual[T]) in(lang string) T {
	if lang == "fr" {
		return b.FR
	}
	return b.EN
}

// text is a text in both languages; phrasings, several per language.
type (
	text      = bilingual[string]
	phrasings = bilingual[[]string]
)

type link struct {
	Label text `yaml:"label"`
	URL   text `yaml:"url"`
}

// Bounds of a FAQ file.
const (
	maxFAQFile     = 256 << 10
	maxAnswer      = 2000 // a chat message's limit
	maxTop         = 6
	minPhrasings   = 2
	maxTitleLength = 80
)

var topicID = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// decodeFAQ reads one FAQ file strictly: unknown fields, duplicate keys, a
// second document and every missing text are errors, all listed, each
// prefixed with the file's path.
func decodeFAQ(path string, data []byte) (*faqFile, error) {
	if len(data) > maxFAQFile {
		return nil, fmt.Errorf("%s: larger than %d KB", path, maxFAQFile>>10)
	}
	var f faqFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty file", path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var next any
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: more than one YAML document", path)
	}
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s: %s", path, field, fmt.Sprintf(format, args...)))
	}
	checkText := func(field string, t text, limit int) {
		for _, l := range []struct{ lang, s string }{{"en", t.EN}, {"fr", t.FR}} {
			switch {
			case l.s == "":
				bad(field+"."+l.lang, "missing")
			case !utf8.ValidString(l.s):
				bad(field+"."+l.lang, "not UTF-8")
			case utf8.RuneCountInString(l.s) > limit:
				bad(field+"."+l.lang, "longer than %d characters", limit)
			}
		}
	}
	checkText("welcome", f.Welcome, maxAnswer)
	if len(f.Topics) == 0 {
		bad("topics", "missing")
	}
	ids := map[string]bool{}
	for i, t := range f.Topics {
		field := fmt.Sprintf("topics[%d]", i)
		switch {
		case !topicID.MatchString(t.ID):
			bad(field+".id", "%q is not a topic id (a-z, 0-9 and dashes)", t.ID)
		case ids[t.ID]:
			bad(field+".id", "%q is used twice", t.ID)
		}
		ids[t.ID] = true
		checkText(field+".title", t.Title, maxTitleLength)
		checkText(field+".answer", t.Answer, maxAnswer)
		for _, lang := range []string{"en", "fr"} {
			qs := t.Questions.in(lang)
			if len(qs) < minPhrasings {
				bad(field+".questions."+lang, "give at least %d phrasings", minPhrasings)
			}
			for j, q := range qs {
				if len(terms(lang, words(q))) == 0 {
					bad(fmt.Sprintf("%s.questions.%s[%d]", field, lang, j), "%q has no word the bot can match", q)
				}
			}
		}
		for j, l := range t.Links {
			lf := fmt.Sprintf("%s.links[%d]", field, j)
			checkText(lf+".label", l.Label, maxTitleLength)
			for _, u := range []struct{ lang, s string }{{"en", l.URL.EN}, {"fr", l.URL.FR}} {
				if u.s != "" && !httpsURL(u.s) {
					bad(lf+".url."+u.lang, "%q is not an https URL", u.s)
				} else if u.s == "" {
					bad(lf+".url."+u.lang, "missing")
				}
			}
		}
	}
	for i, t := range f.Topics {
		for j, r := range t.Related {
			if !ids[r] || r == t.ID {
				bad(fmt.Sprintf("topics[%d].related[%d]", i, j), "%q is not another topic of this file", r)
			}
		}
	}
	switch {
	case len(f.Top) == 0:
		bad("top", "missing")
	case len(f.Top) > maxTop:
		bad("top", "at most %d topics", maxTop)
	}
	for i, id := range f.Top {
		if !ids[id] {
			bad(fmt.Sprintf("top[%d]", i), "%q is not a topic of this file", id)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &f, nil
}

func httpsURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil
}
