import { serverFailures } from '../../../../shared/fleet-incidents';
import type { HistoryRow } from './history-store';

// The fleet's trouble as its history shows it: capacity's own reading of its buckets, which
// failure attribution (loops/attribution.ts) then weighs against a phase's window.

/** What the fleet's history can show going wrong on a host. */
export type TroubleKind = 'down' | 'shedding' | 'error-burst' | 'saturated';

/** One stretch of trouble on one fleet host (ms since the epoch). */
export interface TroubleEpisode {
  readonly proxy: string;
  readonly host: string;
  readonly what: TroubleKind;
  readonly since: number;
  readonly until: number;
}

/** The error-burst thresholds of the proxy (its `incidents`, else the defaults). */
export interface BurstLimits {
  readonly errorPct: number;
  readonly errorMinRequests: number;
}

function parseErrors(json: string | null): Record<string, number> {
  if (!json) return {};
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, number>) : {};
  } catch {
    return {};
  }
}

/** What a history bucket shows going wrong. */
function troubleOf(row: HistoryRow, limits: BurstLimits): TroubleKind[] {
  const out: TroubleKind[] = [];
  if (row.n > 0 && row.up_n * 2 < row.n) out.push('down');
  const errors = parseErrors(row.errors);
  if ((errors.shed ?? 0) > 0) out.push('shedding');
  const requests = row.requests ?? 0;
  if (requests > 0 && (100 * serverFailures(errors)) / requests > limits.errorPct) out.push('error-burst');
  if ((row.queued_max ?? 0) > 0) out.push('saturated');
  return out;
}

/**
 * The episodes of trouble in one (proxy, host)'s history rows of one resolution (time order):
 * buckets of the same trouble no more than one bucket apart make one episode, which ends a bucket
 * after its last. An error burst counts only with `errorMinRequests` requests in its episode.
 */
export function troubleEpisodes(rows: readonly HistoryRow[], resolutionMs: number, limits: BurstLimits): TroubleEpisode[] {
  const out: TroubleEpisode[] = [];
  const open = new Map<TroubleKind, { since: number; until: number; requests: number; proxy: string; host: string }>();
  const close = (what: TroubleKind): void => {
    const e = open.get(what);
    if (!e) return;
    open.delete(what);
    if (what !== 'error-burst' || e.requests >= limits.errorMinRequests) out.push({ proxy: e.proxy, host: e.host, what, since: e.since, until: e.until });
  };
  const width = Math.max(resolutionMs, 1);
  for (const row of rows) {
    const now = new Set(troubleOf(row, limits));
    for (const what of [...open.keys()]) {
      const e = open.get(what);
      if (!now.has(what) || (e && row.t - e.until > width)) close(what);
    }
    for (const what of now) {
      const e = open.get(what);
      if (e) {
        e.until = row.t + width;
        e.requests += row.requests ?? 0;
      } else open.set(what, { since: row.t, until: row.t + width, requests: row.requests ?? 0, proxy: row.proxy, host: row.host });
    }
  }
  for (const what of [...open.keys()]) close(what);
  return out;
}
