-- Clients that authenticate with a signed JWT (private_key_jwt, RFC 7523,
-- OpenID Connect Core §9) instead of a secret (issue 30). Expand only: an
-- older binary reads neither column and, finding no secret_hash for such a
-- client, refuses it at the token endpoint.
-- oidc_clients.auth_method: how the client authenticates at the token,
-- revocation and introspection endpoints: 'client_secret_basic',
-- 'private_key_jwt' or 'none'; '' (the clients of before) is by its kind
-- (public: none, confidential: client_secret_basic).
-- oidc_clients.jwks: a private_key_jwt client's public keys, a JSON Web Key
-- Set (ES256 or RS256 keys, public halves only) as registered.
-- all:
ALTER TABLE oidc_clients ADD COLUMN auth_method TEXT NOT NULL DEFAULT '';
ALTER TABLE oidc_clients ADD COLUMN jwks TEXT NOT NULL DEFAULT '';

-- oidc_client_assertions: the "jti" of every client assertion accepted,
-- until the assertion expires (at most 5 minutes after it is used): a
-- second use of one is refused. The hourly janitor deletes expired rows.
CREATE TABLE oidc_client_assertions (
  client_id TEXT NOT NULL,
  jti TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (client_id, jti)
);
CREATE INDEX oidc_client_assertions_expiry ON oidc_client_assertions (expires_at);
