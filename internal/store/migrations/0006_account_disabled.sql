-- Accounts disabled by staff (issue 11): the right password answers spec
-- §8.1's 403 3001 (the block roadblock). A flag beside the status, not a
-- status of its own, so enabling the account gives back exactly the state it
-- had (active, holding a temporary password, locked). 0 = not disabled;
-- otherwise unix milliseconds (UTC).
-- all:
ALTER TABLE accounts ADD COLUMN disabled_at BIGINT NOT NULL DEFAULT 0;
