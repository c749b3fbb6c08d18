-- Sign in (issue 5): accounts, policy records and their links, failed-attempt
-- records for the lockout, one-time login tickets, password-reset link tokens,
-- web sessions and the rate-limit counters shared by every instance.
-- Times are unix milliseconds (UTC); tokens are stored as SHA-256 hex only.
-- all:
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  brand TEXT NOT NULL,
  email TEXT NOT NULL,
  email_normalized TEXT NOT NULL,
  password_hash TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL DEFAULT 'active',
  temp_hash TEXT NOT NULL DEFAULT '',
  temp_expires_at BIGINT NOT NULL DEFAULT 0,
  temp_failures INTEGER NOT NULL DEFAULT 0,
  locked_until BIGINT NOT NULL DEFAULT 0,
  lock_level INTEGER NOT NULL DEFAULT 0,
  ubi_driver INTEGER NOT NULL DEFAULT 0,
  first_name TEXT NOT NULL DEFAULT '',
  last_name TEXT NOT NULL DEFAULT '',
  language TEXT NOT NULL DEFAULT 'en',
  postal_code TEXT NOT NULL DEFAULT '',
  phone TEXT NOT NULL DEFAULT '',
  date_of_birth TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX accounts_brand_email ON accounts (brand, email_normalized);

CREATE TABLE policies (
  id TEXT PRIMARY KEY,
  brand TEXT NOT NULL,
  number TEXT NOT NULL,
  kind TEXT NOT NULL,
  province TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX policies_brand_number ON policies (brand, number);

CREATE TABLE account_policies (
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  policy_id TEXT NOT NULL REFERENCES policies (id) ON DELETE CASCADE,
  role TEXT NOT NULL,
  PRIMARY KEY (account_id, policy_id)
);
CREATE INDEX account_policies_policy ON account_policies (policy_id);

CREATE TABLE login_failures (
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  at BIGINT NOT NULL
);
CREATE INDEX login_failures_account ON login_failures (account_id, at);

CREATE TABLE login_tickets (
  token_hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  brand TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX login_tickets_expiry ON login_tickets (expires_at);

CREATE TABLE password_reset_tokens (
  token_hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  brand TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX password_reset_tokens_account ON password_reset_tokens (account_id);
CREATE INDEX password_reset_tokens_expiry ON password_reset_tokens (expires_at);

CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  brand TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  last_seen_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE rate_limits (
  scope TEXT NOT NULL,
  subject TEXT NOT NULL,
  window_start BIGINT NOT NULL,
  hits BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (scope, subject, window_start)
);
CREATE INDEX rate_limits_expiry ON rate_limits (expires_at);
