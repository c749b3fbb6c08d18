-- Maintenance mode (spec §8.1: 503 -> the maintenance roadblock), set by
-- `guichet maintenance on|off` and read by every instance (internal/
-- maintenance). One row per brand under maintenance, brand '*' for every
-- brand. Times are unix milliseconds (UTC); ends_at 0 means no end was set.
-- all:
CREATE TABLE maintenance (
  brand TEXT PRIMARY KEY,
  started_at BIGINT NOT NULL,
  ends_at BIGINT NOT NULL DEFAULT 0
);

-- Who did an audited operators' action: "cli" for a command of the binary
-- (staff ids later); empty for a visitor's own events.
ALTER TABLE audit_events ADD COLUMN actor TEXT NOT NULL DEFAULT '';
