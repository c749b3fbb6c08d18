-- The OpenID provider's subjects (issue 30): oidc_grants.subject is the
-- "sub" the grant's tokens carry (oidc.Service.Subject: an HMAC of brand and
-- account id, never the account id), so that an RP-initiated logout naming a
-- subject ends that client's grants of it without a portal session.
-- all:
ALTER TABLE oidc_grants ADD COLUMN subject TEXT NOT NULL DEFAULT '';
CREATE INDEX oidc_grants_subject ON oidc_grants (client_id, subject);
