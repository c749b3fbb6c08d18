package bot

import (
	"math"
	"testing"
	"unicode/utf8"
)

// FuzzAnswer: whatever the visitor types, in whatever language and brand,
// Answer returns a valid reply and never panics.
func FuzzAnswer(f *testing.F) {
	b := loadSamples(f)
	for _, c := range answerCases {
		f.Add(c.brand, c.lang, c.question)
	}
	f.Add("belair", "fr", "je veux parler à quelqu’un")
	f.Add("nobody", "xx", "\x00\xff\xfe")
	f.Add("", "", "")
	f.Fuzz(func(t *testing.T, brand, lang, question string) {
		r := b.Answer(brand, lang, question)
		switch {
		case r.Text == "" || !utf8.ValidString(r.Text):
			t.Fatalf("empty or invalid text: %+v", r)
		case math.IsNaN(r.Score) || math.IsInf(r.Score, 0) || r.Score < 0 || r.Score > 1:
			t.Fatalf("score %v", r.Score)
		case r.Handover && (r.TopicID != "" || r.Reason == ""):
			t.Fatalf("handover with a topic or without a reason: %+v", r)
		case !r.Handover && r.Reason == ReasonCourtesy && (r.TopicID != "" || len(r.QuickReplies) == 0):
			t.Fatalf("%q: bad courtesy reply %+v", question, r)
		case !r.Handover && r.Reason != ReasonCourtesy && (r.TopicID == "" || r.Reason != "" || r.Score < Threshold):
			t.Fatalf("answer without a topic, or below the threshold: %+v", r)
		}
		for _, l := range r.Links {
			if !httpsURL(l.URL) || l.Label == "" {
				t.Fatalf("link %+v", l)
			}
		}
		for _, q := range r.QuickReplies {
			if q.ID == "" || q.Text == "" {
				t.Fatalf("quick reply %+v", q)
			}
		}
	})
}
