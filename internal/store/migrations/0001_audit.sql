-- Authentication audit trail (design.md "Logs"): time (UTC ms), brand,
-- account, IP, event and outcome. Never a password, code, token or PIN.
-- sqlite:
CREATE TABLE audit_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at BIGINT NOT NULL,
  brand TEXT NOT NULL,
  account_id TEXT NOT NULL DEFAULT '',
  ip TEXT NOT NULL DEFAULT '',
  event TEXT NOT NULL,
  outcome TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT ''
);
-- postgres:
CREATE TABLE audit_events (
  id BIGSERIAL PRIMARY KEY,
  at BIGINT NOT NULL,
  brand TEXT NOT NULL,
  account_id TEXT NOT NULL DEFAULT '',
  ip TEXT NOT NULL DEFAULT '',
  event TEXT NOT NULL,
  outcome TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT ''
);
-- all:
CREATE INDEX audit_events_account ON audit_events (brand, account_id, at);
