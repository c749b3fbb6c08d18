-- The OpenID Connect provider (issue 30, internal/oidc): each brand's
-- relying parties ("clients") and signing keys. Times are unix milliseconds
-- (UTC); 0 = never/none.
-- oidc_clients: kind is public or confidential; secret_hash is the SHA-256
-- (hex) of a confidential client's secret ('' for a public client; the
-- secret is 32 random bytes, so a fast hash loses nothing); redirect_uris
-- is one URI a line, each matched exactly.
-- all:
CREATE TABLE oidc_clients (
  id TEXT PRIMARY KEY,
  brand TEXT NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  secret_hash TEXT NOT NULL DEFAULT '',
  third_party INTEGER NOT NULL DEFAULT 0,
  redirect_uris TEXT NOT NULL,
  backchannel_logout_uri TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  disabled_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX oidc_clients_brand ON oidc_clients (brand);

-- oidc_signing_keys: a brand's keys (id = the JWK "kid"). private_key is the
-- PKCS #8 key sealed with AES-GCM (codes.Sealer, bound to the id) under a key
-- derived from GUICHET_OIDC_KEY or the 'oidc' row of recovery_secrets;
-- public_jwk is the public half as a JWK. The newest key of each alg with
-- retired_at 0 signs; a retired key is still published until expires_at.
CREATE TABLE oidc_signing_keys (
  id TEXT PRIMARY KEY,
  brand TEXT NOT NULL,
  alg TEXT NOT NULL,
  private_key TEXT NOT NULL,
  public_jwk TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  retired_at BIGINT NOT NULL DEFAULT 0,
  expires_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX oidc_signing_keys_brand ON oidc_signing_keys (brand, alg);

-- oidc_auth_requests: an /authorize request while the visitor signs in
-- (10 minutes), then its code: code_hash is the SHA-256 (hex) of the code,
-- code_at when it was issued (it lives 60 s), exchanged_at when it was
-- traded for tokens (a second trade revokes the grant). account_id is ''
-- until the visitor has signed in. scopes, amr and ui_locales are
-- space-separated; max_age is -1 when not asked.
CREATE TABLE oidc_auth_requests (
  id TEXT PRIMARY KEY,
  brand TEXT NOT NULL,
  client_id TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  scopes TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT '',
  nonce TEXT NOT NULL DEFAULT '',
  response_mode TEXT NOT NULL DEFAULT '',
  code_challenge TEXT NOT NULL DEFAULT '',
  code_challenge_method TEXT NOT NULL DEFAULT '',
  prompt TEXT NOT NULL DEFAULT '',
  max_age BIGINT NOT NULL DEFAULT -1,
  login_hint TEXT NOT NULL DEFAULT '',
  ui_locales TEXT NOT NULL DEFAULT '',
  account_id TEXT NOT NULL DEFAULT '',
  auth_time BIGINT NOT NULL DEFAULT 0,
  amr TEXT NOT NULL DEFAULT '',
  code_hash TEXT NOT NULL DEFAULT '',
  code_at BIGINT NOT NULL DEFAULT 0,
  exchanged_at BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX oidc_auth_requests_code ON oidc_auth_requests (code_hash) WHERE code_hash <> '';
CREATE INDEX oidc_auth_requests_expiry ON oidc_auth_requests (expires_at);

-- oidc_grants: what a customer gave a client by signing in (id = the auth
-- request's): every refresh token and access token of that sign-in belongs
-- to it, and revoking it ends them all (code or refresh token reuse,
-- sign-out, a password reset, an account staff disabled).
CREATE TABLE oidc_grants (
  id TEXT PRIMARY KEY,
  brand TEXT NOT NULL,
  client_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  scopes TEXT NOT NULL,
  auth_time BIGINT NOT NULL,
  amr TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  revoked_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX oidc_grants_account ON oidc_grants (account_id);

-- oidc_refresh_tokens: only the SHA-256 (hex) of each token; a token is
-- used once (used_at): its use makes the next one of the grant, and a
-- second use revokes the grant.
CREATE TABLE oidc_refresh_tokens (
  token_hash TEXT PRIMARY KEY,
  grant_id TEXT NOT NULL REFERENCES oidc_grants (id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  used_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX oidc_refresh_tokens_grant ON oidc_refresh_tokens (grant_id);
