import type { CommandInput, CommandOutput } from '../../../../shared/contract';
import type { Capacity } from '../../../../shared/domain';
import { limitsOf, shedAbove } from '../../../../shared/fleet-incidents';
import { MINUTE_MS, TEN_MINUTES_MS, type CapacityHistory, type ChartRow, type ChartRows } from './history-store';
import { lttbIndices } from './lttb';

/** The chart ranges, in ms. */
export const RANGE_MS: Readonly<Record<CommandInput<'capacity.history'>['range'], number>> = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
};

/** Resolutions that cover each range, finest first (raw is kept 48 h, minutes 7 d, 10 minutes 30 d). */
const CANDIDATES: Readonly<Record<keyof typeof RANGE_MS, readonly number[]>> = {
  '1h': [0, MINUTE_MS],
  '24h': [0, MINUTE_MS],
  '7d': [MINUTE_MS, TEN_MINUTES_MS],
  '30d': [TEN_MINUTES_MS],
};

/**
 * Read the finest resolution whose points per series (range ÷ resolution, raw samples assumed
 * no closer than 10 s) stay within this many times maxPoints: reading 200,000 minute rows for a
 * 7-day view of 20 hosts costs seconds, and LTTB would throw nearly all of them away.
 */
const OVERSAMPLE = 2;
const MIN_SAMPLE_MS = 10_000;


type Series = CommandOutput<'capacity.history'>['series'][number];
type Input = Pick<CommandInput<'capacity.history'>, 'range' | 'proxy' | 'host'> & { maxPoints?: number };

/** Three decimals are more than a chart can show, and keep the answer a third of the size. */
const r3 = (v: number): number => Math.round(v * 1000) / 1000;

/** One chart series from a (proxy, host)'s rows: averages, and rates over the time the counters cover. */
export function toSeries({ proxy, host, rows }: ChartRows): Series {
  const n = rows.length;
  const t = new Array<number>(n);
  const slotsBusy = new Array<number | null>(n);
  const inflight = new Array<number | null>(n);
  const queued = new Array<number | null>(n);
  const requestRate = new Array<number | null>(n);
  const kvCache = new Array<number | null>(n);
  const tokenRate = new Array<number | null>(n);
  let kvKnown = false;
  let tokensKnown = false;
  // Error counts by status, parsed once per row; a status column starts as zeros where a row had
  // counts but not this status, and null where the row knew nothing.
  const counts = new Array<Record<string, number> | null>(n);
  const statuses = new Set<string>();
  for (let i = 0; i < n; i++) {
    const r = rows[i] as ChartRow;
    t[i] = r[0];
    slotsBusy[i] = r[1];
    inflight[i] = r[2];
    queued[i] = r[3];
    requestRate[i] = r[4];
    kvCache[i] = r[8] ?? null;
    tokenRate[i] = r[9] ?? null;
    if (r[8] != null) kvKnown = true;
    if (r[9] != null) tokensKnown = true;
    const e = r[6] === null ? null : (JSON.parse(r[6]) as Record<string, number>);
    counts[i] = e;
    if (e) for (const k in e) statuses.add(k);
  }
  const errors: Record<string, (number | null)[]> = {};
  for (const s of [...statuses].sort()) {
    errors[s] = rows.map((r, i) => {
      const e = counts[i];
      return e === null || e === undefined || r[5] <= 0 ? null : r3((e[s] ?? 0) / (r[5] / 1000));
    });
  }
  // Only a host that exposed them gets the KV-cache and token lines: nothing is drawn where absent.
  return { proxy, host, t, slotsBusy, inflight, queued, requestRate, errors, ...(kvKnown ? { kvCache } : {}), ...(tokensKnown ? { tokenRate } : {}) };
}

/** Keep at most `maxPoints` of a series, chosen by LTTB on its main line (in-flight, else busy slots). */
export function downsample(s: Series, maxPoints: number): Series {
  if (s.t.length <= maxPoints) return s;
  const main = s.t.map((_, i) => s.inflight[i] ?? s.slotsBusy[i] ?? null);
  const idx = lttbIndices(s.t, main, maxPoints);
  const take = <T>(a: readonly T[]): T[] => idx.map((i) => a[i] as T);
  return {
    ...s,
    t: take(s.t),
    slotsBusy: take(s.slotsBusy),
    inflight: take(s.inflight),
    queued: take(s.queued),
    requestRate: take(s.requestRate),
    errors: Object.fromEntries(Object.entries(s.errors).map(([k, v]) => [k, take(v)])),
    ...(s.kvCache ? { kvCache: take(s.kvCache) } : {}),
    ...(s.tokenRate ? { tokenRate: take(s.tokenRate) } : {}),
  };
}

/**
 * A gateway whose shed threshold is more than its `incidents.shedFactor` (default 2) × the
 * in-flight level at which its errors began in the charted range: shedding cannot engage before
 * the provider fails (the R40 finding). The comparison is the incident's (shedAbove).
 */
export function shedWarnings(groups: readonly ChartRows[], current: readonly Capacity[]): string[] {
  const warnings: string[] = [];
  for (const { proxy, host, rows } of groups) {
    const cap = current.find((c) => c.kind === 'gateway' && c.proxy === proxy && c.host === host);
    if (!cap || cap.shedThreshold === null) continue;
    const began = rows.find((r) => r[6] !== null && Object.values(JSON.parse(r[6]) as Record<string, number>).some((v) => v > 0) && (r[7] ?? 0) > 0);
    if (!began) continue;
    const level = began[7] ?? 0;
    if (shedAbove(cap.shedThreshold, level, limitsOf(cap).shedFactor)) {
      warnings.push(
        `Gateway "${cap.proxy}": errors began at about ${Math.round(level)} requests in flight (${new Date(began[0]).toISOString()}), ` +
          `but its shed threshold is ${cap.shedThreshold}, so load shedding never engages before the provider fails` +
          `${cap.totalShed === 0 ? ' (nothing has been shed)' : ''}. Lower the threshold to about ${Math.round(level)}.`,
      );
    }
  }
  return warnings;
}

/** Answer `capacity.history`: pick the resolution for the range, build the series, downsample, warn. */
export function historyOutput(store: CapacityHistory, input: Input, now: Date, current: readonly Capacity[]): CommandOutput<'capacity.history'> {
  const maxPoints = input.maxPoints ?? 1000;
  const to = now.getTime();
  const from = to - RANGE_MS[input.range];
  const candidates = CANDIDATES[input.range];
  const res = candidates.find((r) => RANGE_MS[input.range] / Math.max(r, MIN_SAMPLE_MS) <= OVERSAMPLE * maxPoints) ?? candidates[candidates.length - 1] ?? 0;
  // A bucket starting before `from` still holds samples inside the range.
  const groups = store.chartRows(res, res === 0 ? from : Math.floor(from / res) * res, to, input.proxy, input.host);
  return {
    from: new Date(from).toISOString(),
    to: now.toISOString(),
    series: groups.map((g) => downsample(toSeries(g), maxPoints)),
    warnings: shedWarnings(groups, current),
  };
}
