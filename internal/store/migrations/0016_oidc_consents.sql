-- Consent to third-party clients (issue 30, internal/oidc). A client marked
-- third-party asks the customer once what it may have; the answer is kept
-- per account and client with the scopes it covers (space-separated), until
-- the customer takes it back on /my-account (which also ends the client's
-- grants). oidc_auth_requests.consented_at is when the customer said yes to
-- that request (0 before): its callback gives a code only after it, or when
-- a kept consent covers its scopes.
-- all:
CREATE TABLE oidc_consents (
  account_id TEXT NOT NULL,
  client_id TEXT NOT NULL,
  brand TEXT NOT NULL,
  scopes TEXT NOT NULL,
  granted_at BIGINT NOT NULL,
  PRIMARY KEY (account_id, client_id)
);
ALTER TABLE oidc_auth_requests ADD COLUMN consented_at BIGINT NOT NULL DEFAULT 0;
