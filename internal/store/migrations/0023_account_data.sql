-- The customer's data export and account deletion (issue 31, Quebec's Law 25
-- and PIPEDA; internal/privacy).
--
-- data_exports: an export asked for on My account, prepared in the
-- background by whichever instance claims it (state requested → preparing,
-- with a lease as the outbox's: a worker that dies leaves it to the next
-- once lease_until passes; never prepared twice), then ready with its
-- document (JSON, the account's data; the HTML page is rendered from it at
-- download) until expires_at (7 days). origin, language and province are
-- what the 'export ready' email needs (no request is at hand then). Rows
-- are removed when they expire, when the customer asks again, and with the
-- account.
--
-- account_deletions: an account the customer asked to delete. Until
-- delete_at (30 days later) it is pending: the customer still signs in and
-- may cancel, on My account or by the emailed link, whose token is only
-- stored hashed (undo_hash, SHA-256 hex; the row goes with its use, so the
-- link works once). Then the janitor erases the account and its personal
-- rows (deleted_at): the row stays, without a token, only until scrub_at,
-- when the account's audit rows lose their personal data (the brand's
-- privacy.deletedAuditDays after the deletion).
-- all:
CREATE TABLE data_exports (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  brand TEXT NOT NULL,
  language TEXT NOT NULL,
  province TEXT NOT NULL DEFAULT '',
  origin TEXT NOT NULL,
  state TEXT NOT NULL,
  requested_at BIGINT NOT NULL,
  lease_token TEXT NOT NULL DEFAULT '',
  lease_until BIGINT NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  ready_at BIGINT NOT NULL DEFAULT 0,
  expires_at BIGINT NOT NULL DEFAULT 0,
  document TEXT NOT NULL DEFAULT ''
);
CREATE INDEX data_exports_account ON data_exports (account_id);
CREATE INDEX data_exports_state ON data_exports (state, lease_until);

CREATE TABLE account_deletions (
  account_id TEXT PRIMARY KEY,
  brand TEXT NOT NULL,
  requested_at BIGINT NOT NULL,
  delete_at BIGINT NOT NULL,
  undo_hash TEXT NOT NULL DEFAULT '',
  deleted_at BIGINT NOT NULL DEFAULT 0,
  scrub_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX account_deletions_due ON account_deletions (deleted_at, delete_at);
CREATE INDEX account_deletions_undo ON account_deletions (undo_hash);
