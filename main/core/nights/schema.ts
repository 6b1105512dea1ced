/**
 * Migration 13: each loop's nights as Trends keeps them (shared/night-summary.ts), one row per
 * loop and night, the night's JSON bounded by MAX_NIGHT_BYTES (2 KB). Written when a followed
 * night's cycle changes (only that night's row), and once for nights older than the followed
 * window (back to the loop's `history`), whose files are not followed: Trends reaches back past
 * `cycles` and across restarts without reading those nights' files again.
 */
export const NIGHTS_MIGRATION = `
CREATE TABLE nights (
  loop TEXT NOT NULL,
  date TEXT NOT NULL,
  data TEXT NOT NULL,
  written_at TEXT NOT NULL,
  PRIMARY KEY (loop, date)
) WITHOUT ROWID;
`;
