package brand

import (
	"strings"
	"unicode/utf8"
)

// Chat is the brand file's chat: section (issue 17), every field optional.
// Opening hours stay in provinces[].hours and the chatbot flag in
// features.chatbot.
type Chat struct {
	// MaxPerAgent is how many conversations an agent holds at once (0:
	// DefaultMaxPerAgent).
	MaxPerAgent int `yaml:"maxPerAgent"`
	// AutoAssign gives a new waiting conversation to the available agent
	// with the fewest active conversations (ties: the one idle longest)
	// instead of leaving it in the queue.
	AutoAssign bool `yaml:"autoAssign"`
	// RetentionMonths is how long conversations are kept before the
	// janitor purges them (0: DefaultChatRetentionMonths).
	RetentionMonths int `yaml:"retentionMonths"`
	// Canned are the agents' canned replies per language.
	Canned CannedReplies `yaml:"canned"`
}

// CannedReplies are canned replies per language.
type CannedReplies struct {
	EN []string `yaml:"en" json:"en"`
	FR []string `yaml:"fr" json:"fr"`
}

// Defaults and bounds of the chat section.
const (
	DefaultMaxPerAgent         = 3
	MaxMaxPerAgent             = 20
	DefaultChatRetentionMonths = 24
	MaxChatRetentionMonths     = 120
	maxCannedReplies           = 30
	maxCannedLength            = 2000
)

// ChatMaxPerAgent is the brand's conversations-per-agent limit.
func (b *Brand) ChatMaxPerAgent() int {
	if b.Chat.MaxPerAgent == 0 {
		return DefaultMaxPerAgent
	}
	return b.Chat.MaxPerAgent
}

// ChatRetentionMonths is how many months the brand keeps conversations.
func (b *Brand) ChatRetentionMonths() int {
	if b.Chat.RetentionMonths == 0 {
		return DefaultChatRetentionMonths
	}
	return b.Chat.RetentionMonths
}

func validateChat(ps *problems, c Chat) {
	if c.MaxPerAgent < 0 || c.MaxPerAgent > MaxMaxPerAgent {
		ps.add("chat.maxPerAgent", "%d must be 1 to %d (absent: %d)", c.MaxPerAgent, MaxMaxPerAgent, DefaultMaxPerAgent)
	}
	if c.RetentionMonths < 0 || c.RetentionMonths > MaxChatRetentionMonths {
		ps.add("chat.retentionMonths", "%d must be 1 to %d (absent: %d)", c.RetentionMonths, MaxChatRetentionMonths, DefaultChatRetentionMonths)
	}
	for lang, list := range map[string][]string{"en": c.Canned.EN, "fr": c.Canned.FR} {
		if len(list) > maxCannedReplies {
			ps.add("chat.canned."+lang, "%d replies; at most %d", len(list), maxCannedReplies)
		}
		for i, text := range list {
			if strings.TrimSpace(text) == "" || utf8.RuneCountInString(text) > maxCannedLength {
				ps.add("chat.canned."+lang, "reply %d must be 1 to %d characters", i+1, maxCannedLength)
			}
		}
	}
}

// Cobrowse is the brand file's cobrowse: section (issue 18).
type Cobrowse struct {
	// Record keeps a co-browse session's events after it ends (default
	// false: they are deleted at the end).
	Record bool `yaml:"record"`
}
