package bot

import (
	"strings"
	"testing"

	"guichet/config"
)

var brandIDs = []string{"belair", "bna", "intact", "scotia", "servus"}

func loadSamples(t testing.TB) *Bot {
	t.Helper()
	b, err := Load(config.Brands(), brandIDs)
	if err != nil {
		t.Fatalf("Load(config.Brands()): %v", err)
	}
	for _, id := range brandIDs {
		if !b.HasFAQ(id) {
			t.Fatalf("brand %s has no FAQ", id)
		}
	}
	return b
}

// answerCases are questions as visitors type them (typos of case and
// accents, extra words), none copied from the FAQ files, each with the
// topic it must get.
var answerCases = []struct{ brand, lang, question, topic string }{
	{"belair", "en", "Hi, I can't sign into my account", "sign-in"},
	{"belair", "en", "my login isn't working anymore", "sign-in"},
	{"intact", "en", "My account is locked, what should I do?", "sign-in"},
	{"scotia", "en", "I forgot my password, can you reset it?", "password-reset"},
	{"servus", "en", "resetting passwords", "password-reset"},
	{"bna", "en", "I never got the code to reset my password", "password-reset"},
	{"belair", "en", "How can I register for online access?", "registration"},
	{"intact", "en", "creating an account for my home policy", "registration"},
	{"scotia", "en", "where do I download my pink card", "documents"},
	{"servus", "en", "I need a copy of my policy documents", "documents"},
	{"belair", "en", "how do I file a claim after an accident", "claims"},
	{"bna", "en", "someone hit my car, who do I call?", "claims"},
	{"intact", "en", "a tree fell on my house and damaged the roof", "claims"},
	{"scotia", "en", "What time does chat open on Saturday?", "hours"},
	{"belair", "en", "are you open sundays", "hours"},
	{"servus", "en", "I'm moving next month, how do I update my address", "change-address"},
	{"bna", "en", "change of address", "change-address"},
	{"intact", "en", "how do I pay my premium", "payment"},
	{"scotia", "en", "I'd like to insure the new truck I just bought", "vehicle"},
	{"belair", "en", "my monthly payment was declined by the bank", "payment"},
	{"belair", "fr", "Bonjour, je n'arrive pas à me connecter à mon compte", "sign-in"},
	{"intact", "fr", "mon compte est bloque", "sign-in"},
	{"bna", "fr", "la connexion à mon compte en ligne ne marche pas", "sign-in"},
	{"scotia", "fr", "J’ai oublié mon mot de passe", "password-reset"},
	{"belair", "fr", "comment réinitialiser le mot de passe", "password-reset"},
	{"servus", "fr", "je n’ai jamais reçu le code pour mon mot de passe", "password-reset"},
	{"intact", "fr", "je voudrais m'inscrire en ligne", "registration"},
	{"bna", "fr", "création de compte", "registration"},
	{"scotia", "fr", "où puis-je télécharger ma preuve d'assurance?", "documents"},
	{"belair", "fr", "je cherche mon numéro de police", "documents"},
	{"intact", "fr", "Je veux faire une réclamation pour ma voiture", "claims"},
	{"bna", "fr", "j'ai eu un accident ce matin", "claims"},
	{"servus", "fr", "dégât d'eau dans ma maison, comment déclarer le sinistre", "claims"},
	{"belair", "fr", "Êtes-vous ouverts samedi?", "hours"},
	{"scotia", "fr", "vos heures d'ouverture", "hours"},
	{"intact", "fr", "je déménage, que faire pour mon adresse?", "change-address"},
	{"bna", "fr", "changement d'adresse", "change-address"},
	{"belair", "fr", "comment payer ma prime", "payment"},
	{"servus", "fr", "je viens d'acheter une voiture neuve", "vehicle"},
	{"scotia", "fr", "mon paiement a été refusé par la banque", "payment"},
}

func TestAnswer(t *testing.T) {
	b := loadSamples(t)
	for _, c := range answerCases {
		t.Run(c.brand+"/"+c.lang+"/"+c.question, func(t *testing.T) {
			r := b.Answer(c.brand, c.lang, c.question)
			if r.Handover || r.TopicID != c.topic {
				t.Fatalf("Answer(%q) = topic %q (score %.2f, handover %v, reason %q), want %q", c.question, r.TopicID, r.Score, r.Handover, r.Reason, c.topic)
			}
			if r.Score < Threshold || r.Reason != "" {
				t.Errorf("score %.2f, reason %q", r.Score, r.Reason)
			}
			checkLanguage(t, c.lang, r.Text)
			checkQuickReplies(t, b, c.brand, c.lang, r.QuickReplies)
		})
	}
}

// checkLanguage: a French text has French words and no English ones, and
// the other way round (enough to catch a text of the wrong language).
func checkLanguage(t *testing.T, lang, text string) {
	t.Helper()
	ws := " " + strings.Join(words(text), " ") + " "
	fr := strings.Contains(ws, " le ") || strings.Contains(ws, " la ") || strings.Contains(ws, " de ") || strings.Contains(ws, " vos ") || strings.Contains(ws, " mon ") || strings.Contains(ws, " mes ") || strings.Contains(ws, " un ")
	en := strings.Contains(ws, " the ") || strings.Contains(ws, " your ") || strings.Contains(ws, " my ") || strings.Contains(ws, " to ") || strings.Contains(ws, " an ")
	if lang == "fr" && (!fr || en) || lang == "en" && (!en || fr) {
		t.Errorf("%q is not in %s only", text, lang)
	}
}

// checkQuickReplies: each is a topic's title in lang.
func checkQuickReplies(t *testing.T, b *Bot, brand, lang string, qs []QuickReply) {
	t.Helper()
	bb := b.brands[brand]
	for _, q := range qs {
		i, ok := bb.byID[q.ID]
		if !ok || q.Text != bb.faq.Topics[i].Title.in(lang) {
			t.Errorf("quick reply %+v is not the %s title of a topic", q, lang)
		}
	}
}

var unrelated = []struct{ lang, question string }{
	{"en", "what is the capital of Peru"},
	{"en", "can I insure my boat"},
	{"en", "who won the hockey game last night"},
	{"en", "recommend a good pizza restaurant"},
	{"en", "asdkjh qwpoeiru zxmcnv"},
	{"en", "can you recommend a good mechanic for my car"},
	{"en", "my phone screen is broken"},
	{"en", "what is the best time to visit Quebec City"},
	{"en", "tell me a joke"},
	{"en", "is it going to snow this weekend"},
	{"en", "what's the weather tomorrow in Halifax"},
	{"fr", "quelle est la capitale du Pérou"},
	{"fr", "qui a gagné le match de hockey hier soir"},
	{"fr", "une bonne recette de tarte au sucre"},
	{"fr", "est-ce que vous assurez les bateaux"},
	{"fr", "je cherche un bon garagiste pour ma voiture"},
	{"fr", "l'écran de mon téléphone est brisé"},
	{"fr", "quel est le meilleur moment pour visiter Québec"},
	{"fr", "raconte-moi une blague"},
	{"fr", "va-t-il neiger cette fin de semaine"},
	{"fr", "recette de pâté chinois"},
}

func TestAnswerBelowThreshold(t *testing.T) {
	b := loadSamples(t)
	for _, brand := range brandIDs {
		for _, c := range unrelated {
			r := b.Answer(brand, c.lang, c.question)
			if !r.Handover || r.Reason != ReasonLowConfidence || r.TopicID != "" || r.Score >= Threshold {
				t.Errorf("%s %s %q = %+v, want a low-confidence handover", brand, c.lang, c.question, r)
			}
			checkLanguage(t, c.lang, r.Text)
		}
	}
}

func TestAnswerHandsOverWhenAskedForAPerson(t *testing.T) {
	b := loadSamples(t)
	for _, c := range []struct{ lang, question string }{
		{"en", "I want to talk to an agent"},
		{"en", "Can I speak to a human please"},
		{"en", "real person please!"},
		{"en", "representative"},
		{"en", "I'd like to talk to someone about my claim"},
		{"en", "Let me speak with someone"},
		{"en", "AGENT"},
		{"fr", "Je veux parler à un conseiller"},
		{"fr", "une conseillère svp"},
		{"fr", "je veux parler à quelqu’un"},
		{"fr", "Puis-je parler avec quelqu'un?"},
		{"fr", "un humain, s'il vous plaît"},
		{"fr", "passez-moi une personne réelle"},
		{"fr", "un agent svp"},
		{"fr", "mot de passe oublié, je veux un représentant"},
	} {
		for _, brand := range append(brandIDs, "unknown") {
			r := b.Answer(brand, c.lang, c.question)
			if !r.Handover || r.Reason != ReasonPerson || r.TopicID != "" || r.Text == "" {
				t.Errorf("%s %s %q = %+v, want a handover for a person", brand, c.lang, c.question, r)
			}
			checkLanguage(t, c.lang, r.Text)
		}
	}
	// Words that only look like it do not hand over.
	for _, q := range []struct{ lang, question string }{
		{"en", "where are my personal documents"},
		{"en", "someone hit my car"},
		{"fr", "quelqu'un a embouti ma voiture"},
	} {
		if r := b.Answer("belair", q.lang, q.question); r.Handover {
			t.Errorf("%q hands over: %+v", q.question, r)
		}
	}
}

func TestAnswerEmptyOrGarbage(t *testing.T) {
	b := loadSamples(t)
	for _, q := range []string{"", "   ", "\n\t", "???", "!!! ...", "😀😀", "--", "a b c", "\x00\xff"} {
		for _, lang := range []string{"en", "fr"} {
			r := b.Answer("belair", lang, q)
			if !r.Handover || r.Reason != ReasonEmpty || r.TopicID != "" || r.Text == "" {
				t.Errorf("%s %q = %+v, want an empty handover", lang, q, r)
			}
		}
	}
}

// A greeting or a thank-you alone is answered politely and the bot stays:
// handing a "merci!" to an agent would queue a conversation nobody needs.
func TestAnswerCourtesyStays(t *testing.T) {
	b := loadSamples(t)
	for _, q := range []string{"hello", "thanks!", "Thank you", "bonjour", "merci beaucoup", "Merci!", "ok thanks bye"} {
		for _, lang := range []string{"en", "fr"} {
			r := b.Answer("belair", lang, q)
			if r.Handover || r.Reason != ReasonCourtesy || r.TopicID != "" || len(r.QuickReplies) == 0 {
				t.Errorf("%s %q = %+v, want a courtesy reply that stays", lang, q, r)
			}
			checkLanguage(t, lang, r.Text)
		}
	}
}

func TestWelcomeAndQuickReplies(t *testing.T) {
	b := loadSamples(t)
	for _, brand := range brandIDs {
		for _, lang := range []string{"en", "fr"} {
			w := b.Welcome(brand, lang)
			if w.Text == "" || w.Handover || len(w.QuickReplies) == 0 {
				t.Fatalf("Welcome(%s, %s) = %+v", brand, lang, w)
			}
			checkLanguage(t, lang, w.Text)
			checkQuickReplies(t, b, brand, lang, w.QuickReplies)
			want := []string{"sign-in", "password-reset", "registration", "claims"}
			for i, q := range w.QuickReplies {
				if i >= len(want) || q.ID != want[i] {
					t.Errorf("Welcome(%s, %s) quick replies %+v, want %v", brand, lang, w.QuickReplies, want)
					break
				}
			}
			// Pressing any topic's button (its title) answers that topic.
			for _, tp := range b.brands[brand].faq.Topics {
				r := b.Answer(brand, lang, tp.Title.in(lang))
				if r.Handover || r.TopicID != tp.ID {
					t.Errorf("%s %s: the button %q answers %q (%.2f)", brand, lang, tp.Title.in(lang), r.TopicID, r.Score)
				}
				if len(r.QuickReplies) == 0 {
					t.Errorf("%s %s %s: no related topics", brand, lang, tp.ID)
				}
				for _, q := range r.QuickReplies {
					if q.ID == tp.ID {
						t.Errorf("%s %s: %s offers itself as related", brand, lang, tp.ID)
					}
				}
				checkQuickReplies(t, b, brand, lang, r.QuickReplies)
				for _, l := range r.Links {
					if !httpsURL(l.URL) || l.Label == "" {
						t.Errorf("%s %s %s: link %+v", brand, lang, tp.ID, l)
					}
				}
			}
		}
	}
}

func TestLanguageFallback(t *testing.T) {
	b := loadSamples(t)
	en := b.Answer("belair", "en", "I forgot my password")
	for _, lang := range []string{"", "de", "EN", "xx-YY", "<script>"} {
		if r := b.Answer("belair", lang, "I forgot my password"); r.Text != en.Text || r.TopicID != "password-reset" {
			t.Errorf("lang %q: %+v, want the English answer", lang, r)
		}
		if w := b.Welcome("belair", lang); w.Text != b.Welcome("belair", "en").Text {
			t.Errorf("Welcome lang %q = %q", lang, w.Text)
		}
	}
	fr := b.Answer("belair", "fr", "mot de passe oublié")
	for _, lang := range []string{"FR", "fr-CA", " fr "} {
		if r := b.Answer("belair", lang, "mot de passe oublié"); r.Text != fr.Text {
			t.Errorf("lang %q: %q, want the French answer", lang, r.Text)
		}
	}
	if en.Text == fr.Text {
		t.Fatal("the English and French answers are the same text")
	}
}

func TestBrandWithoutFAQ(t *testing.T) {
	b := loadSamples(t)
	for _, lang := range []string{"en", "fr"} {
		r := b.Answer("acme", lang, "I forgot my password")
		if !r.Handover || r.Reason != ReasonNoFAQ || r.Text == "" {
			t.Errorf("Answer(acme) = %+v", r)
		}
		w := b.Welcome("acme", lang)
		if w.Text == "" || len(w.QuickReplies) != 0 {
			t.Errorf("Welcome(acme) = %+v", w)
		}
		checkLanguage(t, lang, w.Text)
	}
	var none *Bot
	if r := none.Answer("belair", "en", "password"); !r.Handover {
		t.Errorf("nil Bot answers: %+v", r)
	}
	if none.Welcome("belair", "fr").Text == "" {
		t.Error("nil Bot has no welcome")
	}
}
