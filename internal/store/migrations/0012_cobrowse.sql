-- Co-browse (issue 18, internal/cobrowse, docs/cobrowse.md). Times are unix
-- milliseconds (UTC); 0 = never/none.
--
-- cobrowse_sessions: one row per session. origin code (the footer link:
-- the visitor consented and reads a 6-digit code to the agent) or chat (an
-- agent asked from a chat conversation). status pending | waiting |
-- active | declined | ended. code_hmac is the live code's HMAC ('' once
-- spent, expired or ended; unique among live codes, so a code names one
-- session). visitor_hash is the SHA-256 (hex) of the visitor's co-browse
-- cookie secret ('' until consent). last_seq is the last event's seq;
-- version moves with every other change; snapshot_req counts the viewers'
-- joins (each asks the visitor for a full snapshot). visitor_left_at is
-- when the visitor's last socket closed (0 while one is open);
-- visitor_seen_at their last connect or ping.
-- all:
CREATE TABLE cobrowse_sessions (
  id TEXT PRIMARY KEY,
  brand TEXT NOT NULL,
  language TEXT NOT NULL,
  origin TEXT NOT NULL,
  conversation_id TEXT NOT NULL DEFAULT '',
  visitor_hash TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  code_hmac TEXT NOT NULL DEFAULT '',
  code_expires_at BIGINT NOT NULL DEFAULT 0,
  agent_id TEXT NOT NULL DEFAULT '',
  agent_name TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  consent_at BIGINT NOT NULL DEFAULT 0,
  started_at BIGINT NOT NULL DEFAULT 0,
  ended_at BIGINT NOT NULL DEFAULT 0,
  end_reason TEXT NOT NULL DEFAULT '',
  updated_at BIGINT NOT NULL,
  last_seq BIGINT NOT NULL DEFAULT 0,
  version BIGINT NOT NULL DEFAULT 0,
  snapshot_req BIGINT NOT NULL DEFAULT 0,
  visitor_seen_at BIGINT NOT NULL DEFAULT 0,
  visitor_left_at BIGINT NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX cobrowse_sessions_code ON cobrowse_sessions (code_hmac) WHERE code_hmac <> '';
CREATE INDEX cobrowse_sessions_visitor ON cobrowse_sessions (visitor_hash, status);
CREATE INDEX cobrowse_sessions_conversation ON cobrowse_sessions (conversation_id, status);
CREATE INDEX cobrowse_sessions_status ON cobrowse_sessions (status, updated_at);
CREATE INDEX cobrowse_sessions_updated ON cobrowse_sessions (updated_at);

-- cobrowse_events: a session's frames in seq order: the visitor's rrweb
-- events (data: the frame's JSON, opaque to the server) and the agent's
-- pointer. Deleted when the session ends unless the brand records.
CREATE TABLE cobrowse_events (
  session_id TEXT NOT NULL REFERENCES cobrowse_sessions (id) ON DELETE CASCADE,
  seq BIGINT NOT NULL,
  sender TEXT NOT NULL,
  data TEXT NOT NULL,
  at BIGINT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
