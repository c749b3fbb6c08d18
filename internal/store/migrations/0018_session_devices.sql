-- Where a customer is signed in (issue 31, internal/sso): each session gets
-- a public id (random, 22 characters: the token stays secret and only its
-- hash is stored) that My account names it by to end it, and the browser's
-- User-Agent (at most 400 characters), from which it shows the browser and
-- the system. Sessions opened before this have neither; they are listed
-- without a way to end them one by one ("sign out everywhere else" does).
-- (0017 is the client keys of the OpenID provider.)
-- all:
ALTER TABLE sessions ADD COLUMN id TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
