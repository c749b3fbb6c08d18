-- Legacy registration (issue 13): the insurer's policy records people are
-- identified against (imported by `guichet import-policies`), and the
-- server-side registrations (internal/registration).
-- Times are unix milliseconds (UTC); 0 means "not yet". Names are kept as
-- imported and as keys (no case, no accents, hyphens, apostrophes and spaces
-- folded) for matching; postal codes and phones as digits/letters only.
-- PINs are stored as HMAC-SHA256 only (key derived from recovery_secrets).
-- all:
ALTER TABLE policies ADD COLUMN status TEXT NOT NULL DEFAULT 'active';

CREATE TABLE insured_people (
  id TEXT PRIMARY KEY,
  policy_id TEXT NOT NULL REFERENCES policies (id) ON DELETE CASCADE,
  brand TEXT NOT NULL,
  role TEXT NOT NULL,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  first_name_key TEXT NOT NULL,
  last_name_key TEXT NOT NULL,
  date_of_birth TEXT NOT NULL,
  postal_code TEXT NOT NULL DEFAULT '',
  driver_licence TEXT NOT NULL DEFAULT '',
  licence_province TEXT NOT NULL DEFAULT '',
  email TEXT NOT NULL DEFAULT '',
  cell_phone TEXT NOT NULL DEFAULT '',
  ubi INTEGER NOT NULL DEFAULT 0,
  pin_hash TEXT NOT NULL DEFAULT '',
  pin_issued_at BIGINT NOT NULL DEFAULT 0,
  account_id TEXT REFERENCES accounts (id) ON DELETE SET NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX insured_people_identity
  ON insured_people (policy_id, role, first_name_key, last_name_key, date_of_birth);
CREATE INDEX insured_people_account ON insured_people (account_id);

-- One registration: the person identified, the options offered (JSON), the
-- state of spec §4.2's flow, the live code (one at a time) and the counters.
CREATE TABLE registrations (
  id TEXT PRIMARY KEY,
  brand TEXT NOT NULL,
  person_id TEXT NOT NULL REFERENCES insured_people (id) ON DELETE CASCADE,
  state TEXT NOT NULL,
  options TEXT NOT NULL,
  chosen TEXT NOT NULL DEFAULT '',
  email TEXT NOT NULL DEFAULT '',
  pending_email TEXT NOT NULL DEFAULT '',
  code_hmac TEXT NOT NULL DEFAULT '',
  code_expires_at BIGINT NOT NULL DEFAULT 0,
  code_attempts INTEGER NOT NULL DEFAULT 0,
  sends INTEGER NOT NULL DEFAULT 0,
  pin_attempts INTEGER NOT NULL DEFAULT 0,
  create_failures INTEGER NOT NULL DEFAULT 0,
  language TEXT NOT NULL DEFAULT 'en',
  province TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  closed_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX registrations_person ON registrations (person_id);
CREATE INDEX registrations_expiry ON registrations (expires_at);
