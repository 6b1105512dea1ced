import type Database from 'better-sqlite3';
import type { ChartRow } from './history-store';

/** One series' chart rows as last read: every row of its resolution from `from` on, in time order. */
interface Cached {
  readonly rows: ChartRow[];
  from: number;
}

/** How a series' rows are read from SQLite, `from <= t <= to`, in time order. */
export type ReadRows = (from: number, to: number) => ChartRow[];

/**
 * The most rows kept, over every series (~180 bytes each, so ~18 MB): 20 hosts' 7-day and 24-hour views are
 * 49,000; a 30-day view of 50 hosts would be 216,000. Past it the series used longest ago go.
 */
export const MAX_CACHED_ROWS = 100_000;

/**
 * The chart rows last read for each (resolution, proxy, host). The charts refetch their range every
 * 30 s while shown, and a 7-day view of 20 hosts is 20,000 rows (50–110 ms of main's thread); with
 * these, a refetch reads only what can have changed since: the newest bucket again (samples fold
 * into it until it closes) and any after it. What this cannot follow is dropped and read afresh:
 * a sample folded into an older bucket (`written`), a prune, and a commit by another connection
 * (SQLite's `data_version` moves then).
 */
export class ChartRowCache {
  /** By key, least recently used first (a use moves a series to the end). */
  private readonly series = new Map<string, Cached>();
  private readonly versionStmt: Database.Statement;
  private dataVersion: number;
  /** Rows held, over every series. */
  private held = 0;
  /** Rows read from SQLite so far (what the cache is for; tests and the bench read it). */
  rowsRead = 0;

  constructor(
    db: Database.Database,
    private readonly maxRows = MAX_CACHED_ROWS,
  ) {
    this.versionStmt = db.prepare('PRAGMA data_version').pluck();
    this.dataVersion = this.versionStmt.get() as number;
  }

  /** A series' rows in `from <= t <= to`, reading only what the cache cannot answer. */
  rows(resolutionMs: number, proxy: string, host: string, from: number, to: number, read: ReadRows): ChartRow[] {
    this.checkVersion();
    const key = keyOf(resolutionMs, proxy, host);
    let c = this.series.get(key);
    if (c) {
      this.series.delete(key);
      this.held -= c.rows.length;
    }
    if (!c || from < c.from) {
      c = { rows: this.counted(read(from, to)), from };
    } else {
      const rows = c.rows;
      const since = rows.length > 0 ? (rows[rows.length - 1] as ChartRow)[0] : c.from;
      const fresh = this.counted(read(since, to));
      let keep = rows.length;
      while (keep > 0 && (rows[keep - 1] as ChartRow)[0] >= since) keep -= 1;
      rows.length = keep;
      for (const r of fresh) rows.push(r);
      // What fell out of the window is not kept: the cache holds one window per series.
      if (from > c.from) {
        rows.splice(0, firstAtOrAfter(rows, from));
        c.from = from;
      }
    }
    this.series.set(key, c);
    this.held += c.rows.length;
    this.evict(key);
    const start = firstAtOrAfter(c.rows, from);
    let end = c.rows.length;
    while (end > start && (c.rows[end - 1] as ChartRow)[0] > to) end -= 1;
    return c.rows.slice(start, end);
  }

  /** Rows held now, over every series. */
  get size(): number {
    return this.held;
  }

  /** Drop the series used longest ago until the rows held fit, never the one just used (`keep`). */
  private evict(keep: string): void {
    for (const [key, c] of this.series) {
      if (this.held <= this.maxRows || key === keep) break;
      this.series.delete(key);
      this.held -= c.rows.length;
    }
  }

  /**
   * A sample of (proxy, host) at `t` was stored: a series whose newest cached bucket is after the
   * one it folded into cannot pick it up by reading from its newest bucket on, so it is dropped.
   */
  written(proxy: string, host: string, t: number, resolutions: readonly number[]): void {
    for (const res of resolutions) {
      const key = keyOf(res, proxy, host);
      const rows = this.series.get(key)?.rows;
      const newest = rows && rows.length > 0 ? (rows[rows.length - 1] as ChartRow)[0] : null;
      const bucket = res === 0 ? t : Math.floor(t / res) * res;
      if (rows && newest !== null && bucket < newest) {
        this.series.delete(key);
        this.held -= rows.length;
      }
    }
  }

  /** Forget every series (after a prune). */
  clear(): void {
    this.series.clear();
    this.held = 0;
  }

  private counted(rows: ChartRow[]): ChartRow[] {
    this.rowsRead += rows.length;
    return rows;
  }

  private checkVersion(): void {
    const v = this.versionStmt.get() as number;
    if (v === this.dataVersion) return;
    this.dataVersion = v;
    this.clear();
  }
}

const keyOf = (res: number, proxy: string, host: string): string => `${res}\u0000${proxy}\u0000${host}`;

/** The index of the first row with `t >= from` (rows are in time order). */
function firstAtOrAfter(rows: readonly ChartRow[], from: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rows[mid] as ChartRow)[0] < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
