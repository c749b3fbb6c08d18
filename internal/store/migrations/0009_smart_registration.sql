-- Smart registration (issue 15, internal/smartreg): one row per session of
-- the /create-an-account flow, so any instance serves any step. The browser
-- holds a signed token (x-registration-session) naming the row; the row is
-- the truth (step, history for back, the person once identified, the live
-- code). Times are unix milliseconds (UTC); 0 means "not yet".
-- all:
CREATE TABLE smart_registrations (
  id TEXT PRIMARY KEY,
  brand TEXT NOT NULL,
  account_type TEXT NOT NULL,
  step TEXT NOT NULL,
  page TEXT NOT NULL,
  history TEXT NOT NULL DEFAULT '[]',
  person_id TEXT REFERENCES insured_people (id) ON DELETE CASCADE,
  options TEXT NOT NULL DEFAULT '[]',
  chosen TEXT NOT NULL DEFAULT '',
  email TEXT NOT NULL DEFAULT '',
  email_verified INTEGER NOT NULL DEFAULT 0,
  pending_email TEXT NOT NULL DEFAULT '',
  code_hmac TEXT NOT NULL DEFAULT '',
  code_expires_at BIGINT NOT NULL DEFAULT 0,
  code_attempts INTEGER NOT NULL DEFAULT 0,
  sends INTEGER NOT NULL DEFAULT 0,
  identify_failures INTEGER NOT NULL DEFAULT 0,
  create_failures INTEGER NOT NULL DEFAULT 0,
  redirect_number TEXT NOT NULL DEFAULT '',
  redirect_postal TEXT NOT NULL DEFAULT '',
  account_id TEXT NOT NULL DEFAULT '',
  language TEXT NOT NULL DEFAULT 'en',
  province TEXT NOT NULL DEFAULT '',
  version INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  closed_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX smart_registrations_person ON smart_registrations (person_id);
CREATE INDEX smart_registrations_expiry ON smart_registrations (expires_at);
