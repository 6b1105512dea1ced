/** Migration 7: the drill audit trail, one row per run, and how far its output has been read. */
export const DRILLS_MIGRATION = `
CREATE TABLE drill_runs (
  id TEXT PRIMARY KEY,
  drill TEXT NOT NULL,
  host TEXT NOT NULL,
  args TEXT NOT NULL,
  user TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  rc INTEGER,
  status TEXT NOT NULL,
  override INTEGER NOT NULL DEFAULT 0,
  dir TEXT NOT NULL,
  pid INTEGER,
  duration_ms INTEGER
);
CREATE INDEX drill_runs_started ON drill_runs (started_at);
`;
