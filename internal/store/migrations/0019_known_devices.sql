-- The browsers an account was signed in from (issue 31, internal/sso): a
-- sign-in from one not seen on the account in 90 days emails the customer
-- (the first browser of an account is recorded silently: the one that
-- created it, or for an older account the one it used first since). device_hash
-- is the SHA-256 (hex) of the browser's device cookie (a random id, kept
-- 400 days); notified_at when its notice was queued (0: none). A row
-- unseen for 90 days makes its browser new again; rows are pruned after
-- 400 days (the cookie's life).
-- all:
CREATE TABLE known_devices (
  account_id TEXT NOT NULL,
  device_hash TEXT NOT NULL,
  brand TEXT NOT NULL,
  user_agent TEXT NOT NULL DEFAULT '',
  first_seen BIGINT NOT NULL,
  last_seen BIGINT NOT NULL,
  notified_at BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, device_hash)
);
CREATE INDEX known_devices_last_seen ON known_devices (last_seen);
