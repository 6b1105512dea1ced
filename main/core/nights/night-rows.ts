import { boundNight, NightSummarySchema, type NightSummary } from '../../../shared/night-summary';
import { log } from '../logging/log';
import type { Store } from '../store/store';

/**
 * The `nights` table (migration 13): kept nights by loop and date. A write replaces one night's
 * row, and only when its JSON changed, so a poll that re-derived a cycle to the same summary
 * writes nothing; `writes` counts the rows actually written (tests and the bench read it).
 */
export class NightRows {
  /** Rows written (inserted or changed) since this object was made. */
  writes = 0;

  /** The SQL, its parameters and rows declared once (prepared by the store on first use). */
  private readonly q;

  constructor(private readonly store: Store) {
    this.q = {
      put: store.query<[loop: string, date: string, data: string, at: string]>(
        `INSERT INTO nights (loop, date, data, written_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (loop, date) DO UPDATE SET data = excluded.data, written_at = excluded.written_at WHERE nights.data != excluded.data`,
      ),
      dates: store.column<[loop: string], string>('SELECT date FROM nights WHERE loop = ?'),
      tokens: store.query<[fromMs: number, toMs: number], { s: number | null; n: number }>('SELECT SUM(tokens) AS s, COUNT(tokens) AS n FROM usage_rows WHERE t >= ? AND t <= ?'),
      night: store.column<[loop: string, date: string], string>('SELECT data FROM nights WHERE loop = ? AND date = ?'),
      newest: store.column<[loop: string], string | null>('SELECT MAX(date) AS d FROM nights WHERE loop = ?'),
      allFrom: store.column<[from: string], string>('SELECT data FROM nights WHERE date >= ? ORDER BY loop, date'),
      loopFrom: store.column<[loop: string, from: string], string>('SELECT data FROM nights WHERE loop = ? AND date >= ? ORDER BY date'),
    };
  }

  /** Keep these nights; returns those whose row was written (new, or changed). */
  put(nights: readonly NightSummary[], at: string): NightSummary[] {
    if (nights.length === 0) return [];
    const st = this.q.put;
    const written: NightSummary[] = [];
    this.store.sql.transaction(() => {
      for (const night of nights) {
        // Every row within MAX_NIGHT_BYTES, whatever was added to the night since it was summarised.
        const n = boundNight(night);
        if (st.run(n.loop, n.date, JSON.stringify(n), at).changes > 0) written.push(n);
      }
    })();
    this.writes += written.length;
    return written;
  }

  /** The dates kept for a loop, to know which older nights still need a first read. */
  dates(loop: string): Set<string> {
    return new Set(this.q.dates.all(loop));
  }

  /**
   * The fleet tokens the proxies' usage rows (migration 5, kept 30 days) record from `fromMs` to
   * `toMs`, every proxy summed; null when no row in the window says how many (not known, not 0).
   */
  tokensBetween(fromMs: number, toMs: number): number | null {
    const row = this.q.tokens.get(fromMs, toMs) ?? { s: null, n: 0 };
    return row.n > 0 ? (row.s ?? 0) : null;
  }

  /** The kept nights of a loop on these dates (those that have a row). */
  get(loop: string, dates: readonly string[]): NightSummary[] {
    const out: NightSummary[] = [];
    for (const d of dates) {
      const data = this.q.night.get(loop, d);
      if (data === undefined) continue;
      try {
        out.push(NightSummarySchema.parse(JSON.parse(data)));
      } catch {
        // Not a night as this build keeps it: left as it is (list() says so when it is read).
      }
    }
    return out;
  }

  /** The newest date kept for a loop, or null. */
  newest(loop: string): string | null {
    return this.q.newest.get(loop) ?? null;
  }

  /** A loop's kept nights from `from` (a date) on, oldest first; a row that no longer parses is skipped and logged. */
  list(loop: string | null, from: string): NightSummary[] {
    const rows = loop === null ? this.q.allFrom.all(from) : this.q.loopFrom.all(loop, from);
    const out: NightSummary[] = [];
    for (const data of rows) {
      try {
        out.push(NightSummarySchema.parse(JSON.parse(data)));
      } catch (err) {
        log.warn(`${this.store.dbPath}: a kept night of the nights table could not be read; skipped.`, err);
      }
    }
    return out;
  }
}
