import type Database from 'better-sqlite3';
import { ChartRowCache } from './chart-cache';
import { boundErrors } from '../limits';
import type { Sample, UsageRow } from '../sources/poll-types';

/** A minute and ten minutes, in ms: the rollup resolutions. */
export const MINUTE_MS = 60_000;
/** Ten minutes in ms. */
export const TEN_MINUTES_MS = 600_000;
/** The rollup resolutions, and every resolution stored (0 is raw). */
const ROLLUPS = [MINUTE_MS, TEN_MINUTES_MS] as const;
const RESOLUTIONS = [0, ...ROLLUPS] as const;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** How long each resolution is kept (ms); usage rows are kept as long as the coarsest rollup. */
export const RETENTION_MS: Readonly<Record<number, number>> = { 0: 48 * HOUR, [MINUTE_MS]: 7 * DAY, [TEN_MINUTES_MS]: 30 * DAY };
/** How long usage rows are kept. */
export const USAGE_RETENTION_MS = 30 * DAY;

/** One sample ready to store: the polled gauges, and counter deltas over `spanMs` (0 and null when unknown). */
export type StoredSample = Omit<Sample, 'counters' | 'generatedTokens'> & {
  readonly spanMs: number;
  readonly requests: number | null;
  readonly errors: Readonly<Record<string, number>> | null;
  /** Generated tokens since the previous sample, over `tokenSpanMs` (absent: unknown). */
  readonly tokens?: number | null;
  readonly tokenSpanMs?: number;
};

/** A row of `capacity_samples`: a raw sample or a rollup bucket, as sums, counts and peaks. */
export interface HistoryRow {
  proxy: string;
  host: string;
  resolution_ms: number;
  t: number;
  n: number;
  up_n: number;
  slots_total: number | null;
  slots_busy_sum: number | null;
  slots_busy_n: number;
  slots_busy_max: number | null;
  inflight_sum: number | null;
  inflight_n: number;
  inflight_max: number | null;
  queued_sum: number | null;
  queued_n: number;
  queued_max: number | null;
  span_ms: number;
  requests: number | null;
  errors: string | null;
  /** KV-cache in use (%): sum, count and peak, like the gauges above (migration 14; absent in rows made by hand). */
  kv_sum?: number | null;
  kv_n?: number;
  kv_max?: number | null;
  /** Generated tokens as a delta over `token_span_ms`, like `requests` over `span_ms`. */
  token_span_ms?: number;
  tokens?: number | null;
}

const add = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : a + b);
const max = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));

/** The raw row for one sample. */
export function rawRow(s: StoredSample): HistoryRow {
  const g = (v: number | null) => ({ sum: v, n: v === null ? 0 : 1, max: v });
  const busy = g(s.slotsBusy);
  const inf = g(s.inflight);
  const q = g(s.queued);
  const kv = g(s.kvCachePct ?? null);
  const tokens = s.tokens ?? null;
  return {
    proxy: s.proxy,
    host: s.host,
    resolution_ms: 0,
    t: s.t,
    n: 1,
    up_n: s.up ? 1 : 0,
    slots_total: s.slotsTotal,
    slots_busy_sum: busy.sum,
    slots_busy_n: busy.n,
    slots_busy_max: busy.max,
    inflight_sum: inf.sum,
    inflight_n: inf.n,
    inflight_max: inf.max,
    queued_sum: q.sum,
    queued_n: q.n,
    queued_max: q.max,
    span_ms: s.requests === null ? 0 : s.spanMs,
    requests: s.requests,
    errors: s.errors === null ? null : JSON.stringify(s.errors),
    kv_sum: kv.sum,
    kv_n: kv.n,
    kv_max: kv.max,
    token_span_ms: tokens === null ? 0 : (s.tokenSpanMs ?? 0),
    tokens,
  };
}

function mergeErrors(a: string | null, b: string | null): string | null {
  if (a === null || b === null) return a ?? b;
  const out = JSON.parse(a) as Record<string, number>;
  for (const [k, v] of Object.entries(JSON.parse(b) as Record<string, number>)) out[k] = (out[k] ?? 0) + v;
  return JSON.stringify(boundErrors(out));
}

/** Fold row `b` into bucket `a` (or start the bucket): sums and counts add, peaks take the max. */
export function mergeRows(a: HistoryRow | undefined, b: HistoryRow, resolutionMs: number): HistoryRow {
  const t = Math.floor(b.t / resolutionMs) * resolutionMs;
  if (!a) return { ...b, resolution_ms: resolutionMs, t };
  return {
    ...a,
    n: a.n + b.n,
    up_n: a.up_n + b.up_n,
    slots_total: max(a.slots_total, b.slots_total),
    slots_busy_sum: add(a.slots_busy_sum, b.slots_busy_sum),
    slots_busy_n: a.slots_busy_n + b.slots_busy_n,
    slots_busy_max: max(a.slots_busy_max, b.slots_busy_max),
    inflight_sum: add(a.inflight_sum, b.inflight_sum),
    inflight_n: a.inflight_n + b.inflight_n,
    inflight_max: max(a.inflight_max, b.inflight_max),
    queued_sum: add(a.queued_sum, b.queued_sum),
    queued_n: a.queued_n + b.queued_n,
    queued_max: max(a.queued_max, b.queued_max),
    span_ms: a.span_ms + b.span_ms,
    requests: add(a.requests, b.requests),
    errors: mergeErrors(a.errors, b.errors),
    kv_sum: add(a.kv_sum ?? null, b.kv_sum ?? null),
    kv_n: (a.kv_n ?? 0) + (b.kv_n ?? 0),
    kv_max: max(a.kv_max ?? null, b.kv_max ?? null),
    token_span_ms: (a.token_span_ms ?? 0) + (b.token_span_ms ?? 0),
    tokens: add(a.tokens ?? null, b.tokens ?? null),
  };
}

/**
 * A chart's row: time, busy slots, in-flight and queued (averages), request rate (per s), the span
 * the counters cover (ms), the error counts by status (JSON) and the in-flight peak.
 */
export type ChartRow = [
  t: number,
  slotsBusy: number | null,
  inflight: number | null,
  queued: number | null,
  requestRate: number | null,
  spanMs: number,
  errors: string | null,
  inflightMax: number | null,
  kvCachePct: number | null,
  tokenRate: number | null,
];

/** One (proxy, host)'s chart rows, in time order. */
export interface ChartRows {
  readonly proxy: string;
  readonly host: string;
  readonly rows: readonly ChartRow[];
}

const COLUMNS =
  'proxy, host, resolution_ms, t, n, up_n, slots_total, slots_busy_sum, slots_busy_n, slots_busy_max, inflight_sum, inflight_n, inflight_max, ' +
  'queued_sum, queued_n, queued_max, span_ms, requests, errors, kv_sum, kv_n, kv_max, token_span_ms, tokens';

/**
 * The capacity history in SQLite: each sample is written raw and folded into its minute and
 * ten-minute buckets in the same transaction (so rollups are current, not a batch job's), and
 * `prune` drops what is past each resolution's retention.
 */
export class CapacityHistory {
  private readonly put: Database.Statement;
  private readonly fold: Database.Statement;
  private readonly putUsage: Database.Statement;
  private readonly chartQuery: Database.Statement;
  /** The chart rows last read, so a refetch reads only the buckets that can have changed. */
  readonly charts: ChartRowCache;

  constructor(private readonly db: Database.Database) {
    this.charts = new ChartRowCache(db);
    this.chartQuery = db.prepare(
      'SELECT t, round(slots_busy_sum / NULLIF(slots_busy_n, 0), 3), round(inflight_sum / NULLIF(inflight_n, 0), 3), ' +
        'round(queued_sum / NULLIF(queued_n, 0), 3), CASE WHEN span_ms > 0 THEN round(requests * 1000.0 / span_ms, 3) END, ' +
        'span_ms, errors, inflight_max, round(kv_sum / NULLIF(kv_n, 0), 1), CASE WHEN token_span_ms > 0 THEN round(tokens * 1000.0 / token_span_ms, 3) END ' +
        'FROM capacity_samples WHERE proxy = ? AND host = ? AND resolution_ms = ? AND t >= ? AND t <= ? ORDER BY t',
    );
    this.put = db.prepare(`INSERT OR REPLACE INTO capacity_samples (${COLUMNS}) VALUES (${COLUMNS.split(', ').map((c) => `@${c}`).join(', ')})`);
    // Rollups fold in SQL (an upsert) rather than read-modify-write: the same arithmetic as mergeRows.
    db.function('capacity_merge_errors', (a: unknown, b: unknown) => mergeErrors(a as string | null, b as string | null));
    const sum = (c: string) => `${c} = CASE WHEN ${c} IS NULL THEN excluded.${c} WHEN excluded.${c} IS NULL THEN ${c} ELSE ${c} + excluded.${c} END`;
    const peak = (c: string) => `${c} = CASE WHEN ${c} IS NULL THEN excluded.${c} WHEN excluded.${c} IS NULL THEN ${c} ELSE max(${c}, excluded.${c}) END`;
    const count = (c: string) => `${c} = ${c} + excluded.${c}`;
    this.fold = db.prepare(
      `INSERT INTO capacity_samples (${COLUMNS}) VALUES (${COLUMNS.split(', ').map((c) => `@${c}`).join(', ')}) ON CONFLICT (proxy, host, resolution_ms, t) DO UPDATE SET ` +
        [
          count('n'), count('up_n'), peak('slots_total'),
          sum('slots_busy_sum'), count('slots_busy_n'), peak('slots_busy_max'),
          sum('inflight_sum'), count('inflight_n'), peak('inflight_max'),
          sum('queued_sum'), count('queued_n'), peak('queued_max'),
          count('span_ms'), sum('requests'), 'errors = capacity_merge_errors(errors, excluded.errors)',
          sum('kv_sum'), count('kv_n'), peak('kv_max'), count('token_span_ms'), sum('tokens'),
        ].join(', '),
    );
    this.putUsage = db.prepare(
      'INSERT OR IGNORE INTO usage_rows (proxy, key, t, route, host, model, status, ttfb_ms, tokens, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
  }

  /** Store samples raw and fold them into the rollups, atomically. */
  record(samples: readonly StoredSample[]): void {
    this.db.transaction(() => {
      for (const s of samples) {
        const raw = rawRow(s);
        this.put.run(raw);
        for (const res of ROLLUPS) this.fold.run(mergeRows(undefined, raw, res));
        this.charts.written(s.proxy, s.host, s.t, RESOLUTIONS);
      }
    })();
  }

  /** Store usage rows not seen before (by proxy and key); returns the rows that were new. */
  addUsage(proxy: string, rows: readonly UsageRow[]): UsageRow[] {
    return this.db.transaction(() =>
      rows.filter((r) => this.putUsage.run(proxy, r.key, r.t, r.route, r.host, r.model, r.status, r.ttfbMs, r.tokens, r.error).changes === 1),
    )();
  }

  /** Drop samples, rollups and usage rows past their retention at `now` (ms). */
  prune(now: number): void {
    this.db.transaction(() => {
      const del = this.db.prepare('DELETE FROM capacity_samples WHERE resolution_ms = ? AND t < ?');
      for (const [res, keep] of Object.entries(RETENTION_MS)) {
        // A bucket is dropped once all of it is older than the retention.
        del.run(Number(res), now - keep - Number(res));
      }
      this.db.prepare('DELETE FROM usage_rows WHERE t < ?').run(now - USAGE_RETENTION_MS);
    })();
    this.charts.clear();
  }

  /**
   * What a chart needs of one resolution in `from <= t <= to`, one (proxy, host) at a time, each
   * read along the primary key (contiguous, already in time order): the averages and the request
   * rate computed by SQLite, three decimals, no row objects. A 7-day view of 20 hosts is 20,000
   * rows; through the time index that costs a lookup per row and a sort, this way neither. And
   * of each series only what can have changed since its last read (see ChartRowCache).
   */
  chartRows(resolutionMs: number, from: number, to: number, proxy?: string, host?: string): ChartRows[] {
    const pairs = (
      this.db
        .prepare(
          'SELECT DISTINCT proxy, host FROM capacity_samples WHERE resolution_ms = ? AND t >= ? AND t <= ?' +
            `${proxy !== undefined ? ' AND proxy = @proxy' : ''}${host !== undefined ? ' AND host = @host' : ''}`,
        )
        .raw()
        .all(resolutionMs, from, to, { ...(proxy !== undefined ? { proxy } : {}), ...(host !== undefined ? { host } : {}) }) as [string, string][]
    ).sort(([p1, h1], [p2, h2]) => (p1 === p2 ? (h1 < h2 ? -1 : h1 > h2 ? 1 : 0) : p1 < p2 ? -1 : 1));
    const q = this.chartQuery.raw();
    return pairs.map(([p, h]) => ({
      proxy: p,
      host: h,
      rows: this.charts.rows(resolutionMs, p, h, from, to, (a, b) => q.all(p, h, resolutionMs, a, b) as ChartRow[]),
    }));
  }

  /** Rows of one resolution with `from <= t <= to`, optionally for one proxy and/or host, by series then time. */
  rows(resolutionMs: number, from: number, to: number, proxy?: string, host?: string): HistoryRow[] {
    return this.db
      .prepare(
        `SELECT ${COLUMNS} FROM capacity_samples WHERE resolution_ms = ? AND t >= ? AND t <= ?` +
          `${proxy !== undefined ? ' AND proxy = @proxy' : ''}${host !== undefined ? ' AND host = @host' : ''} ORDER BY proxy, host, t`,
      )
      .all(resolutionMs, from, to, { ...(proxy !== undefined ? { proxy } : {}), ...(host !== undefined ? { host } : {}) }) as HistoryRow[];
  }

  /**
   * The counter deltas of one (proxy, host)'s raw samples with `from < t <= to`, along the primary
   * key: what an error window starts from after a restart (a window's worth of rows, not history).
   */
  counterRows(proxy: string, host: string, from: number, to: number): { t: number; requests: number; errors: string | null }[] {
    return this.db
      .prepare('SELECT t, requests, errors FROM capacity_samples WHERE proxy = ? AND host = ? AND resolution_ms = 0 AND t > ? AND t <= ? AND requests IS NOT NULL ORDER BY t')
      .all(proxy, host, from, to) as { t: number; requests: number; errors: string | null }[];
  }

  /** How many rows of a resolution, or of the whole table when none is given. */
  count(resolutionMs?: number): number {
    const row = (resolutionMs === undefined
      ? this.db.prepare('SELECT COUNT(*) AS c FROM capacity_samples').get()
      : this.db.prepare('SELECT COUNT(*) AS c FROM capacity_samples WHERE resolution_ms = ?').get(resolutionMs)) as { c: number };
    return row.c;
  }

  /** How many usage rows are stored. */
  usageCount(): number {
    return (this.db.prepare('SELECT COUNT(*) AS c FROM usage_rows').get() as { c: number }).c;
  }
}
