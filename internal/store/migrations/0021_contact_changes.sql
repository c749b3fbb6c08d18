-- The customer's own email and cell phone changes (issue 31,
-- internal/contact). contact_changes: the one change under way per account
-- and kind ('email' or 'phone'): the new address, the HMAC of the code sent
-- to it, when the code ends, its wrong guesses and the codes sent for this
-- change. email_undos: the link the former address receives once an email
-- change is made, which puts that address back (72 hours, single use: only
-- the SHA-256 of its token is kept).
-- all:
CREATE TABLE contact_changes (
  account_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  brand TEXT NOT NULL,
  new_value TEXT NOT NULL,
  code_hmac TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0,
  sends INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (account_id, kind)
);
CREATE TABLE email_undos (
  token_hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  brand TEXT NOT NULL,
  old_email TEXT NOT NULL,
  old_email_normalized TEXT NOT NULL,
  new_email TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX email_undos_expires ON email_undos (expires_at);
CREATE INDEX email_undos_old_email ON email_undos (brand, old_email_normalized);
CREATE INDEX email_undos_account ON email_undos (account_id);
