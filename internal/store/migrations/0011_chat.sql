-- Live chat (issue 17, internal/chat). Times are unix milliseconds (UTC);
-- 0 = never/none. Booleans are INTEGER 0/1.
--
-- chat_conversations: one row per conversation, live (a visitor's chat:
-- status bot | waiting | active | ended) or offline (the message form:
-- waiting until an agent answers by email, then ended). visitor_hash is
-- the SHA-256 (hex) of the visitor cookie's secret ('' for offline ones).
-- last_seq is the last message's seq (every message takes last_seq + 1 in
-- the transaction that stores it); version moves with every other change
-- (status, agent, typing, read receipts), so a socket on any instance sees
-- what changed by reading the row. waiting_since orders the queue.
-- all:
CREATE TABLE chat_conversations (
  id TEXT PRIMARY KEY,
  brand TEXT NOT NULL,
  province TEXT NOT NULL,
  language TEXT NOT NULL,
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  visitor_hash TEXT NOT NULL DEFAULT '',
  name TEXT NOT NULL,
  topic TEXT NOT NULL DEFAULT '',
  page TEXT NOT NULL DEFAULT '',
  roadblock TEXT NOT NULL DEFAULT '',
  email TEXT NOT NULL DEFAULT '',
  question TEXT NOT NULL DEFAULT '',
  account_id TEXT NOT NULL DEFAULT '',
  account_email TEXT NOT NULL DEFAULT '',
  agent_id TEXT NOT NULL DEFAULT '',
  agent_name TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  waiting_since BIGINT NOT NULL DEFAULT 0,
  accepted_at BIGINT NOT NULL DEFAULT 0,
  ended_at BIGINT NOT NULL DEFAULT 0,
  updated_at BIGINT NOT NULL,
  last_seq BIGINT NOT NULL DEFAULT 0,
  version BIGINT NOT NULL DEFAULT 0,
  visitor_read_seq BIGINT NOT NULL DEFAULT 0,
  agent_read_seq BIGINT NOT NULL DEFAULT 0,
  visitor_typing INTEGER NOT NULL DEFAULT 0,
  agent_typing INTEGER NOT NULL DEFAULT 0,
  rating INTEGER NOT NULL DEFAULT 0,
  transcript_sent INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX chat_conversations_queue ON chat_conversations (status, brand, waiting_since);
CREATE INDEX chat_conversations_visitor ON chat_conversations (visitor_hash, status);
CREATE INDEX chat_conversations_agent ON chat_conversations (agent_id, status);
CREATE INDEX chat_conversations_updated ON chat_conversations (updated_at);
CREATE INDEX chat_conversations_created ON chat_conversations (brand, created_at);

-- chat_messages: every message of a conversation in seq order (1, 2, ...
-- without gaps). sender: visitor | agent | bot | system. client_id is the
-- sender's idempotency key (NULL when none: bot and system messages), so
-- a resend stores nothing twice. system_key/system_name: the i18n key and
-- name of a system message; reply: the bot's Reply (JSON) of a bot message.
CREATE TABLE chat_messages (
  conversation_id TEXT NOT NULL REFERENCES chat_conversations (id) ON DELETE CASCADE,
  seq BIGINT NOT NULL,
  client_id TEXT,
  sender TEXT NOT NULL,
  agent_id TEXT NOT NULL DEFAULT '',
  agent_name TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL,
  system_key TEXT NOT NULL DEFAULT '',
  system_name TEXT NOT NULL DEFAULT '',
  reply TEXT NOT NULL DEFAULT '',
  at BIGINT NOT NULL,
  PRIMARY KEY (conversation_id, seq),
  UNIQUE (conversation_id, client_id)
);

-- chat_agents: a staff member's chat availability (available | away), the
-- languages they took when going available (comma list), the last
-- heartbeat (presence: within 60 s), and when they were last given a
-- conversation (round-robin: the one idle longest first).
CREATE TABLE chat_agents (
  staff_id TEXT PRIMARY KEY REFERENCES staff_accounts (id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  languages TEXT NOT NULL DEFAULT '',
  heartbeat_at BIGINT NOT NULL DEFAULT 0,
  last_assigned_at BIGINT NOT NULL DEFAULT 0,
  updated_at BIGINT NOT NULL
);
