-- Live chat hardening (issue 17 review).
--
-- chat_conversations.visitor_seen_at: the visitor's last heartbeat (socket
-- connect, ping, message; written at most every 30 s); live conversations
-- silent for chat.AbandonAfter are ended. search: name, email and account
-- email folded (lower case, accents dropped, in Go) for the transcript
-- search; chat_messages.search: the body folded the same way. Rows written
-- before this migration get SQL's LOWER (ASCII only on SQLite).
-- chat_messages' idempotency key is the sender's: (conversation_id,
-- sender, client_id), so one side's client id never matches the other's.
-- all:
ALTER TABLE chat_conversations ADD COLUMN visitor_seen_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE chat_conversations ADD COLUMN search TEXT NOT NULL DEFAULT '';
UPDATE chat_conversations SET visitor_seen_at = updated_at,
  search = LOWER(name) || ' ' || LOWER(email) || ' ' || LOWER(account_email);
CREATE INDEX chat_conversations_live ON chat_conversations (status, visitor_seen_at);
-- sqlite:
CREATE TABLE chat_messages_new (
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
  search TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (conversation_id, seq),
  UNIQUE (conversation_id, sender, client_id)
);
INSERT INTO chat_messages_new (conversation_id, seq, client_id, sender, agent_id, agent_name, body, system_key,
  system_name, reply, at, search)
  SELECT conversation_id, seq, client_id, sender, agent_id, agent_name, body, system_key, system_name, reply, at, LOWER(body)
  FROM chat_messages;
DROP TABLE chat_messages;
ALTER TABLE chat_messages_new RENAME TO chat_messages;
-- postgres:
ALTER TABLE chat_messages ADD COLUMN search TEXT NOT NULL DEFAULT '';
UPDATE chat_messages SET search = LOWER(body);
ALTER TABLE chat_messages DROP CONSTRAINT chat_messages_conversation_id_client_id_key;
ALTER TABLE chat_messages ADD CONSTRAINT chat_messages_client UNIQUE (conversation_id, sender, client_id);
