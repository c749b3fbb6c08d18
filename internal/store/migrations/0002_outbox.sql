-- Notification outbox (internal/notify): one row per email or SMS, written in
-- the transaction of the change that causes it and delivered by the worker.
-- Bodies are rendered at send time from template + data; data is emptied
-- ('' = purged) after delivery when it held a code or a link.
-- state: queued | sending (leased until lease_until) | sent | failed | abandoned
-- Times are unix milliseconds (UTC); expires_at 0 = never.
-- all:
CREATE TABLE outbox (
  id TEXT PRIMARY KEY,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  brand TEXT NOT NULL,
  language TEXT NOT NULL,
  channel TEXT NOT NULL,
  recipient TEXT NOT NULL,
  template TEXT NOT NULL,
  data TEXT NOT NULL,
  sensitive INTEGER NOT NULL DEFAULT 0,
  expires_at BIGINT NOT NULL DEFAULT 0,
  state TEXT NOT NULL DEFAULT 'queued',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL DEFAULT 0,
  lease_token TEXT NOT NULL DEFAULT '',
  lease_until BIGINT NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT '',
  sent_at BIGINT NOT NULL DEFAULT 0
);
-- The worker's claim scans only messages not yet done with, in due order.
CREATE INDEX outbox_pending ON outbox (next_attempt_at, created_at) WHERE state IN ('queued', 'sending');
-- Dev mailbox (--dev without SMTP/SMS): what would have been sent, rendered.
-- sqlite:
CREATE TABLE dev_mailbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  outbox_id TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  channel TEXT NOT NULL,
  brand TEXT NOT NULL,
  language TEXT NOT NULL,
  template TEXT NOT NULL,
  recipient TEXT NOT NULL,
  sender TEXT NOT NULL,
  subject TEXT NOT NULL,
  text_body TEXT NOT NULL,
  html_body TEXT NOT NULL
);
-- postgres:
CREATE TABLE dev_mailbox (
  seq BIGSERIAL PRIMARY KEY,
  outbox_id TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  channel TEXT NOT NULL,
  brand TEXT NOT NULL,
  language TEXT NOT NULL,
  template TEXT NOT NULL,
  recipient TEXT NOT NULL,
  sender TEXT NOT NULL,
  subject TEXT NOT NULL,
  text_body TEXT NOT NULL,
  html_body TEXT NOT NULL
);
-- all:
CREATE INDEX dev_mailbox_recipient ON dev_mailbox (recipient, seq);
