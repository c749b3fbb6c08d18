-- Password recovery (issue 6, internal/recovery): reset requests, their
-- 6-digit codes, the one-time reset tokens a right code (or a RESET_PSW link)
-- is exchanged for, and the server secret the codes are keyed with.
-- Times are unix milliseconds (UTC); 0 means "not yet". Codes are stored as
-- HMAC-SHA256 only (key derived from recovery_secrets), tokens as SHA-256 hex.
-- all:
CREATE TABLE recovery_secrets (
  name TEXT PRIMARY KEY,
  secret TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

-- One forgot-password request and its resends. subject is the id the API
-- answered: the account id, or for an unknown email a decoy id derived from
-- it (account_id is then ''), so both behave alike from the outside.
CREATE TABLE password_resets (
  id TEXT PRIMARY KEY,
  brand TEXT NOT NULL,
  subject TEXT NOT NULL,
  account_id TEXT NOT NULL DEFAULT '',
  resends INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  done_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX password_resets_subject ON password_resets (brand, subject);
CREATE INDEX password_resets_created ON password_resets (created_at);

-- One code (validationId = id). code_hmac '' never matches: the code of a
-- decoy, or of a request over the per-account email cap, is never sent.
CREATE TABLE password_reset_codes (
  id TEXT PRIMARY KEY,
  reset_id TEXT NOT NULL REFERENCES password_resets (id) ON DELETE CASCADE,
  code_hmac TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT NOT NULL DEFAULT 0,
  revoked_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX password_reset_codes_reset ON password_reset_codes (reset_id);

-- One-time reset tokens that POST accounts/{id}/password needs; attempts
-- counts wrong postal codes or phones presented with the token.
CREATE TABLE recovery_tokens (
  token_hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  brand TEXT NOT NULL,
  source TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX recovery_tokens_account ON recovery_tokens (account_id);
CREATE INDEX recovery_tokens_expiry ON recovery_tokens (expires_at);
