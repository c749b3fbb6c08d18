-- The audit trail in time order (issue 34): the supervisor's CSV export
-- reads a time range oldest first, and the hourly retention purge deletes
-- the oldest rows in bounded batches. Without an index on the time both
-- read every row (the only index was by account), and the export sorted
-- the whole range in memory.
-- all:
CREATE INDEX audit_events_at ON audit_events (at, id);
