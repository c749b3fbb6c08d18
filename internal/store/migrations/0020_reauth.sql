-- Re-authentication (issue 31): a security change on My account wants a
-- proof no older than 10 minutes. sessions.reauth_at is when this browser's
-- customer last proved who they are (a sign-in is one; 0: never), owned by
-- internal/sso. reauth_codes holds the one code emailed to the account's
-- address as such a proof, per session (internal/reauth): its HMAC, when it
-- ends, the wrong guesses and the sends of this session.
-- all:
ALTER TABLE sessions ADD COLUMN reauth_at BIGINT NOT NULL DEFAULT 0;
CREATE TABLE reauth_codes (
  session_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  code_hmac TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0,
  sends INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX reauth_codes_expires ON reauth_codes (expires_at);
