-- The insurer's staff and their console sessions (issue 16, internal/staff).
-- Times are unix milliseconds (UTC); 0 = never/none. Emails are stored lower
-- case. brands: '' = every brand, else a comma list of brand ids.
-- password_hash is '' until the set-up link is used. totp_secret is the
-- AES-GCM sealed secret (base64url of nonce|ciphertext); totp_last_step is
-- the last accepted TOTP time step (a code's step must be greater: replay).
-- all:
CREATE TABLE staff_accounts (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  role TEXT NOT NULL,
  brands TEXT NOT NULL DEFAULT '',
  password_hash TEXT NOT NULL DEFAULT '',
  totp_secret TEXT NOT NULL DEFAULT '',
  totp_last_step BIGINT NOT NULL DEFAULT 0,
  failed_attempts INTEGER NOT NULL DEFAULT 0,
  locked_until BIGINT NOT NULL DEFAULT 0,
  disabled_at BIGINT NOT NULL DEFAULT 0,
  enrolled_at BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

-- The 10 one-time recovery codes of a member (HMAC under a derived key).
CREATE TABLE staff_recovery_codes (
  staff_id TEXT NOT NULL REFERENCES staff_accounts (id) ON DELETE CASCADE,
  code_hash TEXT NOT NULL,
  used_at BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (staff_id, code_hash)
);

-- One-time set-up links (24 h); only the SHA-256 (hex) of the token.
CREATE TABLE staff_setup_links (
  token_hash TEXT PRIMARY KEY,
  staff_id TEXT NOT NULL REFERENCES staff_accounts (id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX staff_setup_links_staff ON staff_setup_links (staff_id);

-- Console sessions: only the SHA-256 (hex) of the cookie's id. pending = 1
-- after the password, before the second factor (factor_at 0).
CREATE TABLE staff_sessions (
  id_hash TEXT PRIMARY KEY,
  staff_id TEXT NOT NULL REFERENCES staff_accounts (id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  last_seen_at BIGINT NOT NULL,
  factor_at BIGINT NOT NULL DEFAULT 0,
  expires_at BIGINT NOT NULL,
  revoked_at BIGINT NOT NULL DEFAULT 0,
  pending INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX staff_sessions_staff ON staff_sessions (staff_id);
CREATE INDEX staff_sessions_expiry ON staff_sessions (expires_at);
