package bot

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxQuestion bounds the part of a visitor's message the bot reads (the
// chat limits a message to 2,000 characters; this keeps a fuzzer's input
// cheap too).
const maxQuestion = 4000

// words splits text into folded words: lower case, accents removed (NFD,
// combining marks dropped), split on anything that is not a letter or a
// digit (so the French elisions l', d', qu' and the English n't fall apart).
func words(text string) []string {
	if len(text) > maxQuestion {
		text = text[:maxQuestion]
		for !utf8.ValidString(text) && len(text) > 0 { // do not cut a rune in two
			text = text[:len(text)-1]
		}
	}
	var out []string
	var w strings.Builder
	flush := func() {
		if w.Len() > 0 {
			out = append(out, w.String())
			w.Reset()
		}
	}
	for _, r := range norm.NFD.String(text) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// a combining accent: dropped, the base letter stays
		case r == 'œ' || r == 'Œ':
			w.WriteString("oe")
		case r == 'æ' || r == 'Æ':
			w.WriteString("ae")
		case r == 'ß':
			w.WriteString("ss")
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			w.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return out
}

// terms are the words (from words) that carry meaning in lang: stop words
// and one-character words removed, the rest stemmed.
func terms(lang string, ws []string) []string {
	stop, stem := stopEN, stemEN
	if lang == "fr" {
		stop, stem = stopFR, stemFR
	}
	var out []string
	for _, w := range ws {
		if utf8.RuneCountInString(w) < 2 || stop[w] || courtesy[w] || places[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

func set(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}

// courtesy words in either language (a greeting or a thank-you in the
// other language is no question either).
var courtesy = set(`hi hello hey thanks thank you ok okay bye goodbye please bonjour bonsoir
allo salut merci beaucoup svp stp bye`)

// places are the provinces' names, English and French: answers list
// phone numbers and hours by province, which says nothing of their topic
// ("visit Quebec City" must not match the hours).
var places = set(`quebec ontario alberta british columbia colombie britannique manitoba new
brunswick nouveau nova scotia nouvelle ecosse newfoundland labrador terre neuve northwest
territories territoires nord ouest nunavut prince edward island ile edouard saskatchewan yukon`)

// stopEN: English function words, plus the courtesy and request words every
// question carries ("hi", "please", "help", "want"), which say nothing of
// the topic, and "insurance" (every question to an insurer is about
// insurance: "can I insure my boat" must not match "proof of insurance").
// Folded (no apostrophes: "can't" is "can" + "t").
var stopEN = set(`a about above after again all also am an and any are as at be because been
before being below between both but by can cannot could did do does doing done down during each
few for from further had has have having he her here hers him his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours out over own same
she should so some such than that the their theirs them then there these they this those through
to too under until up very was we were what when where which while who whom why will with would
you your yours yourself yourselves hi hello hey please pls thanks thank ok okay im ive dont cant
doesnt didnt isnt wont won ll re ve help need want get got like know tell let us may might must
still yet anyone something anything insurance insure insured insurer`)

// stopFR: French function words (folded: "où" is "ou", "ça" is "ca"), plus
// courtesy and request words (bonjour, merci, svp, aide, besoin, veux) and
// "assurance", as in English.
var stopFR = set(`a ai aie as au aux avec avez avoir avons ce ceci cela ces cet cette ca comme
comment dans de des dois doit du elle elles en es est et etre eu eux fait faire faut il ils je la
le les leur leurs lui ma mais me meme mes moi mon ne ni nos notre nous on ont ou par pas peu peut
peux plus pour pourquoi pourrais pouvez puis puisse quand que quel quelle quelles quels qui quoi
qu sa sans se ses si son sont suis sur ta te tes toi ton tres tu un une vos votre vous voudrais
veux voulez bonjour bonsoir allo salut merci svp stp aide aider besoin sais savoir ici cest jai
ya deja encore aussi alors donc chez car lorsque dont assurance assurances assurer assure
assuree assureur`)
