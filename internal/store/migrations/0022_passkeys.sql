-- Passkeys (issue 31, internal/passkey, on github.com/go-webauthn/webauthn).
-- The relying party is the brand's host: every row names its rp_id, and a
-- passkey is offered and checked only under the rp_id it was made for.
-- passkey_users holds the account's user handle (random, 32 bytes,
-- base64url) per rp_id: the authenticator keeps it, a discoverable sign-in
-- returns it. passkeys holds the credentials: a public id (22 characters,
-- what My account and the console name it by), the credential id
-- (base64url), the customer's name for it, the credential record as
-- go-webauthn serializes it (JSON: public key, sign count, flags; no
-- secret), when it was added and last used (0: never). passkey_challenges
-- holds each ceremony's session data between its two calls, by the SHA-256
-- of the id handed to the browser: single use (deleted when finished),
-- expiring after five minutes. passkey_offers remembers, per account, that
-- My account offered to add a passkey after a password sign-in (once).
-- Bytes are base64url text so that SQLite and PostgreSQL read the same SQL.
-- all:
CREATE TABLE passkey_users (
  rp_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  handle TEXT NOT NULL,
  PRIMARY KEY (rp_id, account_id)
);
CREATE UNIQUE INDEX passkey_users_handle ON passkey_users (rp_id, handle);
CREATE TABLE passkeys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  brand TEXT NOT NULL,
  rp_id TEXT NOT NULL,
  credential_id TEXT NOT NULL,
  name TEXT NOT NULL,
  credential TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  last_used_at BIGINT NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX passkeys_credential ON passkeys (rp_id, credential_id);
CREATE INDEX passkeys_account ON passkeys (account_id);
CREATE TABLE passkey_challenges (
  id_hash TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  brand TEXT NOT NULL,
  rp_id TEXT NOT NULL,
  account_id TEXT NOT NULL DEFAULT '',
  session_id TEXT NOT NULL DEFAULT '',
  data TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX passkey_challenges_expires ON passkey_challenges (expires_at);
CREATE TABLE passkey_offers (
  account_id TEXT PRIMARY KEY,
  offered_at BIGINT NOT NULL
);
