/**
 * Migration 5: capacity history. Raw samples, per-minute and per-10-minute rollups (one table,
 * `resolution_ms` 0 = raw), and usage rows deduplicated by their key across polls.
 */
export const CAPACITY_MIGRATION = `
CREATE TABLE capacity_samples (
  proxy TEXT NOT NULL,
  host TEXT NOT NULL,
  resolution_ms INTEGER NOT NULL,
  t INTEGER NOT NULL,
  up REAL,
  slots_total REAL,
  slots_busy REAL,
  inflight REAL,
  queued REAL,
  requests REAL,
  errors TEXT,
  n INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (proxy, host, resolution_ms, t)
) WITHOUT ROWID;
CREATE TABLE usage_rows (
  proxy TEXT NOT NULL,
  key TEXT NOT NULL,
  t INTEGER NOT NULL,
  route TEXT,
  host TEXT,
  model TEXT,
  status TEXT,
  ttfb_ms REAL,
  tokens INTEGER,
  error TEXT,
  PRIMARY KEY (proxy, key)
) WITHOUT ROWID;
CREATE INDEX usage_rows_t ON usage_rows (proxy, t);
`;
