package bot

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"
)

// Ranking parameters: Okapi BM25 with the usual constants.
const (
	k1 = 1.2  // how fast a repeated word stops adding to the score
	b  = 0.75 // how much a long entry is penalised
)

// Threshold is the confidence below which the bot hands over to an agent.
//
// The confidence of an answer (Reply.Score) is a share, from 0 to 1, of
// what the question says that the best entry (by BM25) holds. Each of the
// question's distinct words weighs its idf; a word counts as found in full
// when its BM25 term score reaches its idf, that is, when it occurs at
// least as often as once in an entry of average length (less often in a
// longer entry counts in part). The share is the found weight over the
// question's whole weight, where a word the FAQ does not know weighs
// unknownWeight of the rarest known word. This is the BM25 score measured
// against the score the question would get from an entry holding each of
// its words once, capped so that one repeated word cannot make up for
// words not found.
//
// 0.5: at least half of the question, weighted so, must be found in one
// entry; a question with one telling word and two unknown ones is on the
// line (answered). On the sample FAQs (bot_test.go) every realistic
// question scores 0.5 or more (most 0.6 to 1) and every question about
// something else 0.46 or less (most 0: no known word at all). Below the
// line an agent answers: a wrong answer from the bot costs more than a
// handover.
const Threshold = 0.5

// Handover reasons (Reply.Reason).
const (
	ReasonPerson        = "person"         // the visitor asked for a person
	ReasonLowConfidence = "low-confidence" // the best answer scored below Threshold
	ReasonEmpty         = "empty"          // no question: empty, punctuation, only courtesy words
	ReasonNoFAQ         = "no-faq"         // the brand has no FAQ file
	// ReasonCourtesy is no handover: a greeting or a thank-you alone is
	// answered politely, with the top topics, and the bot stays.
	ReasonCourtesy = "courtesy"
)

// Bot answers the questions of every brand that has a FAQ file. It does not
// change once loaded and is safe for concurrent use.
type Bot struct {
	brands map[string]*brandBot
}

type brandBot struct {
	faq  *faqFile
	byID map[string]int
	ix   map[string]*index // by language
}

// Load reads <id>/faq.yaml for each brand id from fsys (config.Brands(), or
// os.DirFS of the brands directory). A brand without the file has no bot
// answers: every question hands over. Decoding is strict; every error names
// the file (and the field).
func Load(fsys fs.FS, brandIDs []string) (*Bot, error) {
	bot := &Bot{brands: map[string]*brandBot{}}
	var errs []error
	for _, id := range brandIDs {
		path := id + "/faq.yaml"
		if strings.Contains(id, "/") || !fs.ValidPath(path) {
			errs = append(errs, fmt.Errorf("bot: %q is not a brand id", id))
			continue
		}
		data, err := fs.ReadFile(fsys, path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("bot: %w", err))
			continue
		}
		f, err := decodeFAQ(path, data)
		if err != nil {
			errs = append(errs, fmt.Errorf("bot: %w", err))
			continue
		}
		bot.brands[id] = newBrandBot(f)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return bot, nil
}

func newBrandBot(f *faqFile) *brandBot {
	bb := &brandBot{faq: f, byID: map[string]int{}, ix: map[string]*index{}}
	for i, t := range f.Topics {
		bb.byID[t.ID] = i
	}
	for _, lang := range []string{"en", "fr"} {
		docs := make([][]string, len(f.Topics))
		for i, t := range f.Topics {
			// The questions count twice (a BM25F-like field weight): they
			// are how visitors ask, while an answer's words are partly
			// incidental ("blocked for a moment").
			asked := append([]string{t.Title.in(lang)}, t.Questions.in(lang)...)
			q := terms(lang, words(strings.Join(asked, "\n")))
			docs[i] = append(append(q, q...), terms(lang, words(t.Answer.in(lang)))...)
		}
		bb.ix[lang] = newIndex(docs)
	}
	return bb
}

// HasFAQ reports whether the brand has a FAQ file (so the bot can answer).
func (bot *Bot) HasFAQ(brandID string) bool {
	return bot != nil && bot.brands[brandID] != nil
}

// Welcome greets the visitor, with quick replies of the brand's top topics.
func (bot *Bot) Welcome(brandID, lang string) Reply {
	lang = language(lang)
	bb := bot.brand(brandID)
	if bb == nil {
		return Reply{Text: defaultWelcome.in(lang)}
	}
	r := Reply{Text: bb.faq.Welcome.in(lang)}
	for _, id := range bb.faq.Top {
		r.QuickReplies = append(r.QuickReplies, bb.quickReply(bb.byID[id], lang))
	}
	return r
}

// Answer is the bot's reply to one visitor message in a conversation in
// lang ("en" or "fr"; anything else is English): the best FAQ answer, or a
// handover (Handover true, with Reason) when the visitor asks for a person,
// when the message holds no question, or when the best answer's
// confidence (Reply.Score) is below Threshold.
func (bot *Bot) Answer(brandID, lang, question string) Reply {
	lang = language(lang)
	ws := words(question)
	switch {
	case len(ws) == 0:
		return handover(lang, ReasonEmpty, 0)
	case asksForPerson(ws):
		return handover(lang, ReasonPerson, 0)
	}
	bb := bot.brand(brandID)
	if bb == nil {
		return handover(lang, ReasonNoFAQ, 0)
	}
	q := terms(lang, ws)
	if len(q) == 0 {
		if onlyCourtesy(ws) {
			r := Reply{Text: courtesyText.in(lang), Reason: ReasonCourtesy}
			for _, id := range bb.faq.Top {
				r.QuickReplies = append(r.QuickReplies, bb.quickReply(bb.byID[id], lang))
			}
			return r
		}
		return handover(lang, ReasonEmpty, 0)
	}
	best, score := bb.ix[lang].rank(q)
	if best < 0 || score < Threshold {
		return handover(lang, ReasonLowConfidence, score)
	}
	t := bb.faq.Topics[best]
	r := Reply{Text: t.Answer.in(lang), TopicID: t.ID, Score: score}
	for _, l := range t.Links {
		r.Links = append(r.Links, Link{Label: l.Label.in(lang), URL: l.URL.in(lang)})
	}
	for _, id := range t.Related {
		r.QuickReplies = append(r.QuickReplies, bb.quickReply(bb.byID[id], lang))
	}
	return r
}

func (bot *Bot) brand(id string) *brandBot {
	if bot == nil {
		return nil
	}
	return bot.brands[id]
}

func (bb *brandBot) quickReply(i int, lang string) QuickReply {
	t := bb.faq.Topics[i]
	return QuickReply{ID: t.ID, Text: t.Title.in(lang)}
}

// language is "fr" for French ("fr", "FR", "fr-CA"), else "en" (the
// fallback language, spec §9).
func language(lang string) string {
	l := strings.ToLower(strings.TrimSpace(lang))
	if l == "fr" || strings.HasPrefix(l, "fr-") || strings.HasPrefix(l, "fr_") {
		return "fr"
	}
	return "en"
}

var defaultWelcome = text{
	EN: "Hello! Ask your question, and one of our agents will answer it.",
	FR: "Bonjour\u00a0! Posez votre question\u00a0: un conseiller ou une conseillère vous répondra.",
}

// courtesyText answers a greeting or a thank-you alone ("merci!", "hello").
var courtesyText = text{
	EN: "You’re welcome. What else can I help you with? Pick a topic, ask a question, or ask to talk to an agent.",
	FR: "Avec plaisir. Puis-je vous aider avec autre chose\u00a0? Choisissez un sujet, posez une question ou demandez à parler à un conseiller ou une conseillère.",
}

// onlyCourtesy: the message holds a courtesy word and nothing that counts
// (a greeting or a thank-you, not a string of stop words or letters).
func onlyCourtesy(ws []string) bool {
	for _, w := range ws {
		if courtesy[w] {
			return true
		}
	}
	return false
}

var handoverTexts = map[string]text{
	ReasonPerson: {
		EN: "Of course. I’m passing the conversation to one of our agents, who will take it over from here.",
		FR: "Bien sûr. Je transmets la conversation à un conseiller ou une conseillère, qui prendra le relais.",
	},
	ReasonLowConfidence: {
		EN: "I’m not sure I have the right answer to that. I’m passing the conversation to one of our agents, who will take it over from here.",
		FR: "Je ne suis pas certain d’avoir la bonne réponse. Je transmets la conversation à un conseiller ou une conseillère, qui prendra le relais.",
	},
	ReasonEmpty: {
		EN: "I didn’t find a question in your message. I’m passing the conversation to one of our agents, who will take it over from here.",
		FR: "Je n’ai pas trouvé de question dans votre message. Je transmets la conversation à un conseiller ou une conseillère, qui prendra le relais.",
	},
	ReasonNoFAQ: {
		EN: "One of our agents will take over this conversation and answer you.",
		FR: "Un conseiller ou une conseillère prendra le relais de cette conversation et vous répondra.",
	},
}

func handover(lang, reason string, score float64) Reply {
	return Reply{Text: handoverTexts[reason].in(lang), Handover: true, Reason: reason, Score: score}
}

// personWords ask for a person in English or French, whatever the
// conversation's language (folded, not stemmed).
var personWords = set(`agent agents agente agentes human humans humain humaine humains humaines
person persons representative representatives rep operator operators advisor adviser
conseiller conseillere conseillers conseilleres personne personnes operateur operatrice
representant representante representants`)

// personPhrases ask for a person in a few words, none of which says it alone.
var personPhrases = [][]string{
	{"talk", "to", "someone"}, {"talk", "with", "someone"}, {"speak", "to", "someone"},
	{"speak", "with", "someone"}, {"talk", "to", "somebody"}, {"speak", "to", "somebody"},
	{"talk", "to", "a", "real"}, {"parler", "a", "quelqu", "un"}, {"parler", "avec", "quelqu", "un"},
	{"joindre", "quelqu", "un"}, {"parle", "a", "quelqu", "un"},
}

func asksForPerson(ws []string) bool {
	for i, w := range ws {
		if personWords[w] {
			return true
		}
		for _, p := range personPhrases {
			if i+len(p) <= len(ws) && equalWords(ws[i:i+len(p)], p) {
				return true
			}
		}
	}
	return false
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// unknownWeight is how much a word the FAQ does not know weighs in the
// reference score, relative to the rarest word it knows (one held by one
// entry): enough that a question about something else, which shares a
// common word or two with the FAQ, stays below Threshold; not so much that
// a visitor's extra words ("next month", "since yesterday") sink a good
// answer.
const unknownWeight = 0.5

// index is a BM25 index of one brand's topics in one language.
type index struct {
	tf    []map[string]int // by topic
	dl    []int            // terms per topic
	avgdl float64
	df    map[string]int
}

func newIndex(docs [][]string) *index {
	ix := &index{df: map[string]int{}}
	total := 0
	for _, d := range docs {
		tf := map[string]int{}
		for _, t := range d {
			tf[t]++
		}
		for t := range tf {
			ix.df[t]++
		}
		ix.tf = append(ix.tf, tf)
		ix.dl = append(ix.dl, len(d))
		total += len(d)
	}
	if len(docs) > 0 {
		ix.avgdl = float64(total) / float64(len(docs))
	}
	return ix
}

// idf is BM25's inverse document frequency (the always positive form,
// ln(1 + (N - n + 0.5) / (n + 0.5))) of a term found in n entries.
func (ix *index) idf(n int) float64 {
	N := float64(len(ix.tf))
	return math.Log(1 + (N-float64(n)+0.5)/(float64(n)+0.5))
}

// rank returns the topic with the best BM25 score for the query terms, and
// the confidence of that answer (see Threshold): the query's terms found in
// the topic, each weighted by its idf and counted at most once (a BM25 term
// score of idf or more, i.e. at least one occurrence in an entry of average
// length, counts fully), over the reference weight of the whole query.
// -1 when no topic holds any of the terms.
func (ix *index) rank(q []string) (int, float64) {
	seen := map[string]bool{}
	var uniq []string
	reference := 0.0
	for _, t := range q {
		if seen[t] {
			continue
		}
		seen[t] = true
		uniq = append(uniq, t)
		if n := ix.df[t]; n > 0 {
			reference += ix.idf(n)
		} else {
			reference += unknownWeight * ix.idf(1)
		}
	}
	best, bestScore, bestFound := -1, 0.0, 0.0
	for i, tf := range ix.tf {
		score, found := 0.0, 0.0
		norm := k1 * (1 - b + b*float64(ix.dl[i])/ix.avgdl)
		for _, t := range uniq {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			idf := ix.idf(ix.df[t])
			saturation := f * (k1 + 1) / (f + norm) // 1 for one occurrence in an average entry
			score += idf * saturation
			found += idf * math.Min(1, saturation)
		}
		if score > bestScore {
			best, bestScore, bestFound = i, score, found
		}
	}
	if best < 0 || reference == 0 {
		return -1, 0
	}
	return best, bestFound / reference
}
