-- Emailed magic-link tokens (issue 14, internal/emailtoken): invitations the
-- insurer sends (edoc, BA, mrkt) to an insured person of its policy records.
-- Only the SHA-256 (hex) of the raw token is stored; the raw token is in the
-- link alone. Times are unix milliseconds (UTC); used_at 0 = live.
-- registration_id is the registration the last read opened ('' before any);
-- attempts counts wrong postal codes / phones of a reset with the token.
-- all:
CREATE TABLE email_tokens (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  brand TEXT NOT NULL,
  person_id TEXT NOT NULL REFERENCES insured_people (id) ON DELETE CASCADE,
  source TEXT NOT NULL,
  email TEXT NOT NULL,
  language TEXT NOT NULL,
  issued_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  start_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT NOT NULL DEFAULT 0,
  registration_id TEXT NOT NULL DEFAULT '',
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX email_tokens_person ON email_tokens (person_id);
CREATE INDEX email_tokens_registration ON email_tokens (registration_id);
CREATE INDEX email_tokens_expiry ON email_tokens (expires_at);

-- The 24-hour lock after a wrong cell phone in a token's account creation
-- (no account exists yet, so the person is locked); 0 = not locked.
ALTER TABLE insured_people ADD COLUMN locked_until BIGINT NOT NULL DEFAULT 0;
