-- The staff console's customer search from indexes (issue 34): a prefix of
-- the email, the first, last or full name (case folded), a phone, a policy
-- number. Before, each search read every account of its brands and every
-- policy (2.6 s of CPU per all-brand search at a million accounts). Each
-- kind of match now reads a range of an index of its own, at most the
-- search's limit of rows (account.SearchForStaff). On PostgreSQL the keys
-- are in the "C" collation: a prefix is a range of bytes there whatever
-- the database's collation (in a language's collation, punctuation is
-- skipped at first and 'jean.t' would not lie between 'jean.' and 'jean/').
-- sqlite:
CREATE INDEX accounts_search_email ON accounts (email_normalized);
CREATE INDEX accounts_search_first ON accounts (LOWER(first_name));
CREATE INDEX accounts_search_last ON accounts (LOWER(last_name));
CREATE INDEX accounts_search_full ON accounts (LOWER(first_name || ' ' || last_name));
-- postgres:
CREATE INDEX accounts_search_email ON accounts (email_normalized COLLATE "C");
CREATE INDEX accounts_search_first ON accounts ((LOWER(first_name)) COLLATE "C");
CREATE INDEX accounts_search_last ON accounts ((LOWER(last_name)) COLLATE "C");
CREATE INDEX accounts_search_full ON accounts ((LOWER(first_name || ' ' || last_name)) COLLATE "C");
-- all:
CREATE INDEX accounts_search_phone ON accounts (phone);
CREATE INDEX policies_number ON policies (number);
