/**
 * Migration 5: capacity history. One table holds raw samples (`resolution_ms` 0) and the
 * per-minute and per-10-minute rollups, each row as sums and counts so rollups merge exactly:
 * an average is `*_sum / *_n` over the samples that knew the figure, a peak is `*_max`.
 * Request counters are stored as deltas over `span_ms` (the time they cover), so a rate at any
 * resolution is `requests / span_ms`. Usage rows are deduplicated by their key across polls.
 */
export const CAPACITY_MIGRATION = `
CREATE TABLE capacity_samples (
  proxy TEXT NOT NULL,
  host TEXT NOT NULL,
  resolution_ms INTEGER NOT NULL,
  t INTEGER NOT NULL,
  n INTEGER NOT NULL,
  up_n INTEGER NOT NULL,
  slots_total REAL,
  slots_busy_sum REAL, slots_busy_n INTEGER NOT NULL DEFAULT 0, slots_busy_max REAL,
  inflight_sum REAL, inflight_n INTEGER NOT NULL DEFAULT 0, inflight_max REAL,
  queued_sum REAL, queued_n INTEGER NOT NULL DEFAULT 0, queued_max REAL,
  span_ms REAL NOT NULL DEFAULT 0,
  requests REAL,
  errors TEXT,
  PRIMARY KEY (proxy, host, resolution_ms, t)
) WITHOUT ROWID;
CREATE INDEX capacity_samples_t ON capacity_samples (resolution_ms, t);
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
CREATE INDEX usage_rows_t ON usage_rows (t);
`;

/**
 * Migration 14: the KV-cache in use (vLLM, and llama.cpp builds that expose it) as a gauge like
 * the others (sum, count, peak), and generated tokens as a delta over `token_span_ms`, so the
 * charts draw both at every resolution. Rows written before know neither (NULL, 0).
 */
export const CAPACITY_KV_MIGRATION = `
ALTER TABLE capacity_samples ADD COLUMN kv_sum REAL;
ALTER TABLE capacity_samples ADD COLUMN kv_n INTEGER NOT NULL DEFAULT 0;
ALTER TABLE capacity_samples ADD COLUMN kv_max REAL;
ALTER TABLE capacity_samples ADD COLUMN token_span_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE capacity_samples ADD COLUMN tokens REAL;
`;
