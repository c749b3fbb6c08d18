package bot

import "strings"

// stemFR is a light French stemmer in the manner of J. Savoy's ("A stemming
// procedure and stopword list for general French corpora", 1999): it
// removes inflection (plural, feminine, the common verb endings) and a few
// frequent derivational suffixes, and leaves at least three letters. It
// works on folded words (no accents: réclamée is reclamee), so réclamation,
// réclamations, réclamer and réclamé all give reclam.
func stemFR(w string) string {
	if len(w) <= 3 || !plainASCII(w) {
		return w
	}
	// Plural: chevaux → cheval, comptes → compte, prix stays prix.
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "aux"):
		w = w[:len(w)-3] + "al"
	case strings.HasSuffix(w, "s") || strings.HasSuffix(w, "x"):
		w = w[:len(w)-1]
	}
	// Derivational suffixes, longest first; the first that matches with at
	// least minStem letters before it is removed (or replaced).
	w = cutFirst(w, frDerivational)
	// Inflection of verbs and participles.
	w = cutFirst(w, frInflection)
	// Final e, then a final doubled consonant (adresse → adress → adres).
	if len(w) > minStem && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	if n := len(w); n > 4 && w[n-1] == w[n-2] && cons([]byte(w), n-1) {
		w = w[:n-1]
	}
	return w
}

// minStem is the fewest letters a suffix removal may leave.
const minStem = 3

var frDerivational = []rule{
	{"issement", "ir"}, {"atrice", ""}, {"ateur", ""}, {"ation", ""}, {"ition", "it"},
	{"ement", ""}, {"issant", "ir"}, {"ment", ""}, {"euse", ""}, {"ique", ""},
	{"able", ""}, {"ible", ""}, {"ance", ""}, {"ence", ""}, {"eur", ""}, {"ite", ""},
	{"if", ""}, {"ive", ""},
}

var frInflection = []rule{
	{"erez", ""}, {"aient", ""}, {"ees", ""}, {"ant", ""},
	{"ait", ""}, {"ee", ""}, {"er", ""}, {"ez", ""}, {"ir", ""}, {"es", ""},
}

// cutFirst applies the first rule that matches with at least minStem
// letters before the suffix; later rules are not tried.
func cutFirst(w string, rules []rule) string {
	for _, r := range rules {
		if strings.HasSuffix(w, r.suffix) && len(w)-len(r.suffix) >= minStem {
			return w[:len(w)-len(r.suffix)] + r.repl
		}
	}
	return w
}
