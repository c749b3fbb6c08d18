-- The OpenID provider's subjects and issuers (issue 30).
-- oidc_grants.subject is the "sub" the grant's tokens carry
-- (oidc.Service.Subject: an HMAC of brand and account id, never the account
-- id), so that an RP-initiated logout naming a subject ends that client's
-- grants of it without a portal session. issuer (on the request, then its
-- grant) is the brand host the client called /authorize on: the "iss" of
-- the back-channel logout token sent when the grant ends, away from any
-- request.
-- oidc_clients.signing_alg: what the client's ID tokens, access tokens
-- and logout tokens are signed with (ES256; RS256 for the clients whose
-- libraries know no other).
-- all:
ALTER TABLE oidc_clients ADD COLUMN signing_alg TEXT NOT NULL DEFAULT 'ES256';
ALTER TABLE oidc_auth_requests ADD COLUMN issuer TEXT NOT NULL DEFAULT '';
ALTER TABLE oidc_grants ADD COLUMN subject TEXT NOT NULL DEFAULT '';
ALTER TABLE oidc_grants ADD COLUMN issuer TEXT NOT NULL DEFAULT '';
CREATE INDEX oidc_grants_subject ON oidc_grants (client_id, subject);
