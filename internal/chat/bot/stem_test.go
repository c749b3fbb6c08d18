package bot

import (
	"slices"
	"testing"
)

func TestStemEN(t *testing.T) {
	// From Porter's paper and its published vocabulary.
	for in, want := range map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bled", "motoring": "motor",
		"sing": "sing", "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
		"tanned": "tan", "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
		"filing": "file", "happy": "happi", "sky": "sky", "relational": "relat", "conditional": "condit",
		"rational": "ration", "digitizer": "digit", "vietnamization": "vietnam", "predication": "predic",
		"operator": "oper", "feudalism": "feudal", "decisiveness": "decis", "hopefulness": "hope",
		"callousness": "callous", "formaliti": "formal", "sensitiviti": "sensit", "sensibiliti": "sensibl",
		"triplicate": "triplic", "formative": "form", "formalize": "formal", "electrical": "electr",
		"hopeful": "hope", "goodness": "good", "revival": "reviv", "allowance": "allow", "inference": "infer",
		"airliner": "airlin", "adjustable": "adjust", "defensible": "defens", "irritant": "irrit",
		"replacement": "replac", "adjustment": "adjust", "dependent": "depend", "adoption": "adopt",
		"communism": "commun", "activate": "activ", "effective": "effect", "bowdlerize": "bowdler",
		"probate": "probat", "rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
		"generalizations": "gener", "oscillators": "oscil",
		// Short, digits and other scripts stay as they are.
		"is": "is", "2fa": "2fa", "café": "café",
	} {
		if got := stemEN(in); got != want {
			t.Errorf("stemEN(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStemsMeetTheirFamilies: the forms visitors type reach the same stem.
func TestStemsMeetTheirFamilies(t *testing.T) {
	for _, c := range []struct {
		lang  string
		forms []string
	}{
		{"en", []string{"password", "passwords"}},
		{"en", []string{"claim", "claims", "claimed", "claiming"}},
		{"en", []string{"document", "documents"}},
		{"en", []string{"sign", "signing", "signed", "signs"}},
		{"en", []string{"reset", "resetting", "resets"}},
		{"en", []string{"pay", "paying", "pays"}},
		{"en", []string{"move", "moving", "moved", "moves"}},
		{"en", []string{"lock", "locked", "locking"}},
		{"en", []string{"damage", "damaged", "damages"}},
		{"fr", []string{"reclamation", "reclamations", "reclamer", "reclame", "reclamee", "reclamez"}},
		{"fr", []string{"connecter", "connecte", "connectee", "connectes", "connectez"}},
		{"fr", []string{"oublie", "oublier", "oubliee", "oublies"}},
		{"fr", []string{"reinitialiser", "reinitialisation", "reinitialise"}},
		{"fr", []string{"demenager", "demenagement", "demenage", "demenagez"}},
		{"fr", []string{"adresse", "adresses"}},
		{"fr", []string{"heure", "heures"}},
		{"fr", []string{"prelever", "prelevement", "prelevements"}},
		{"fr", []string{"creer", "creation", "cree"}},
		{"fr", []string{"cheval", "chevaux"}},
		{"fr", []string{"document", "documents"}},
	} {
		stem := stemEN
		if c.lang == "fr" {
			stem = stemFR
		}
		var got []string
		for _, f := range c.forms {
			got = append(got, stem(f))
		}
		if len(slices.Compact(slices.Clone(got))) != 1 {
			t.Errorf("%s %v stem to %v, want one stem", c.lang, c.forms, got)
		}
	}
}

func TestStemFR(t *testing.T) {
	for in, want := range map[string]string{
		"reclamations": "reclam", "sinistre": "sinistr", "connexion": "connexion", "passe": "pass",
		"adresse": "adres", "finissement": "fin", "finir": "fin", "chevaux": "cheval", "prix": "pri",
		"identite": "ident", "police": "polic", "numero": "numero",
		// Never below three letters; short words and digits stay.
		"cree": "cre", "mot": "mot", "ete": "ete", "911": "911", "les": "les",
	} {
		if got := stemFR(in); got != want {
			t.Errorf("stemFR(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"J’AI oublié mon MOT de passe!": {"j", "ai", "oublie", "mon", "mot", "de", "passe"},
		"l'Île-du-Prince-Édouard":       {"l", "ile", "du", "prince", "edouard"},
		"can't sign-in… (2FA)":          {"can", "t", "sign", "in", "2fa"},
		"cœur Ça":                       {"coeur", "ca"},
		"  \t ":                         nil,
	} {
		if got := words(in); !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}
