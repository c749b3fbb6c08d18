// Package bot is the chat's chatbot (issue 17): it answers common questions
// in English and French from each brand's FAQ file (<brands dir>/<id>/faq.yaml),
// ranked by BM25 over stemmed words, and hands the visitor over to an agent
// when its best answer scores below the confidence threshold or when the
// visitor asks for a person.
package bot

// Reply is what the bot says to one visitor message (or on welcome).
type Reply struct {
	// Text is plain text in the conversation's language (never HTML).
	Text string `json:"text"`
	// Links are the answer's links (https only), shown as safe links.
	Links []Link `json:"links,omitempty"`
	// TopicID is the FAQ entry answered ("" for the welcome, a handover or
	// a miss).
	TopicID string `json:"topicId,omitempty"`
	// Score is the best entry's score, for tests and the transcript.
	Score float64 `json:"score"`
	// Handover: the bot passes the conversation to the agents' queue
	// (confidence below the threshold, or the visitor asked for a person).
	Handover bool `json:"handover"`
	// Reason says why the bot hands over (ReasonPerson, ReasonLowConfidence,
	// ReasonEmpty, ReasonNoFAQ); "" when it answers.
	Reason string `json:"reason,omitempty"`
	// QuickReplies are buttons the visitor may press instead of typing:
	// the brand's top topics (welcome) or related ones.
	QuickReplies []QuickReply `json:"quickReplies,omitempty"`
}

// Link is one link of an answer.
type Link struct {
	Label string `json:"label"`
	URL   string `json:"url"`
}

// QuickReply is one button; pressing it sends Text as the visitor's message.
type QuickReply struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}
