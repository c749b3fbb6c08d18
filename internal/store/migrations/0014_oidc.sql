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
