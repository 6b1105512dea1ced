import type { FleetWindow } from '../../../shared/night-compare';
import { MINUTE_MS, RETENTION_MS, TEN_MINUTES_MS } from '../capacity/history/history-store';
import type { QueryMaker } from '../store/query';

// The fleet over one night's window, from the capacity history Loopdeck stored while it ran
// (capacity_samples and usage_rows, migration 5): three range queries on the time indexes, each
// host's figures summed in SQL, so a night costs a row per host and not a row per minute.

/** The most model names listed for a window. */
export const FLEET_MODELS_MAX = 50;

interface HostRow {
  readonly rows: number;
  readonly tokens: number | null;
  readonly tokenSpan: number;
  readonly queuedPeak: number | null;
}

/** The history's queries for a night's window, declared once. */
export class NightFleet {
  private readonly q;

  constructor(store: QueryMaker) {
    this.q = {
      hosts: store.query<[resolution: number, from: number, to: number], HostRow>(
        'SELECT COUNT(*) AS rows, SUM(tokens) AS tokens, SUM(token_span_ms) AS tokenSpan, MAX(queued_max) AS queuedPeak ' +
          'FROM capacity_samples WHERE resolution_ms = ? AND t >= ? AND t <= ? GROUP BY proxy, host',
      ),
      errors: store.column<[resolution: number, from: number, to: number], string>('SELECT errors FROM capacity_samples WHERE resolution_ms = ? AND t >= ? AND t <= ? AND errors IS NOT NULL'),
      models: store.column<[from: number, to: number, limit: number], string>('SELECT DISTINCT model FROM usage_rows WHERE t >= ? AND t <= ? AND model IS NOT NULL ORDER BY model LIMIT ?'),
    };
  }

  /**
   * The fleet from `from` to `to` (ms): minute rollups while they are kept (a week), ten-minute ones
   * after (30 days); null when no history row falls in the window (not watched, or pruned).
   */
  window(from: number, to: number, now: number): FleetWindow | null {
    if (!(to >= from)) return null;
    const resolution = from >= now - (RETENTION_MS[MINUTE_MS] ?? 0) ? MINUTE_MS : TEN_MINUTES_MS;
    // A bucket is stamped with its start: the one holding `from` starts before it.
    const lo = Math.floor(from / resolution) * resolution;
    const hosts = this.q.hosts.all(resolution, lo, to);
    const samples = hosts.reduce((n, h) => n + h.rows, 0);
    if (samples === 0) return null;
    let rate: number | null = null;
    let queuedPeak: number | null = null;
    for (const h of hosts) {
      if (h.tokens !== null && h.tokenSpan > 0) rate = (rate ?? 0) + (h.tokens * 1000) / h.tokenSpan;
      if (h.queuedPeak !== null) queuedPeak = Math.max(queuedPeak ?? 0, h.queuedPeak);
    }
    // A Map, not an object: a status key such as `__proto__` from a stored row stays a key.
    const byStatus = new Map<string, number>();
    for (const json of this.q.errors.iterate(resolution, lo, to)) {
      let counts: unknown;
      try {
        counts = JSON.parse(json);
      } catch {
        continue;
      }
      if (counts === null || typeof counts !== 'object') continue;
      for (const [status, n] of Object.entries(counts as Record<string, unknown>)) {
        if (typeof n === 'number' && Number.isFinite(n) && n > 0) byStatus.set(status, (byStatus.get(status) ?? 0) + Math.round(n));
      }
    }
    return {
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      tokensPerSecond: rate === null ? null : Math.round(rate * 1000) / 1000,
      queuedPeak,
      errors: [...byStatus.values()].reduce((a, b) => a + b, 0),
      errorsByStatus: Object.fromEntries(byStatus),
      modelsServed: this.q.models.all(from, to, FLEET_MODELS_MAX),
      samples,
    };
  }
}
