/** Migration 6: notices, one row per stable key, so nothing is raised twice across restarts. */
export const NOTICES_MIGRATION = `
CREATE TABLE notices (
  key TEXT PRIMARY KEY,
  priority INTEGER NOT NULL,
  source TEXT NOT NULL,
  title TEXT NOT NULL,
  message TEXT NOT NULL,
  url TEXT,
  url_title TEXT,
  created_at TEXT NOT NULL,
  acknowledged_at TEXT,
  snoozed_until TEXT,
  last_sent_at TEXT,
  sends INTEGER NOT NULL DEFAULT 0,
  pushover_receipt TEXT
);
CREATE INDEX notices_created ON notices (created_at);
`;
