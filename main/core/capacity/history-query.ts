import type { CommandInput, CommandOutput } from '../../../shared/contract';
import type { Capacity } from '../../../shared/domain';
import { MINUTE_MS, TEN_MINUTES_MS, type CapacityHistory, type HistoryRow } from './history-store';
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

/** How much the shed threshold may exceed the in-flight level where errors began before it is a finding. */
export const SHED_WARNING_RATIO = 2;

type Series = CommandOutput<'capacity.history'>['series'][number];
type Input = Pick<CommandInput<'capacity.history'>, 'range' | 'proxy' | 'host'> & { maxPoints?: number };

const avg = (sum: number | null, n: number): number | null => (sum === null || n === 0 ? null : sum / n);

/** Rows grouped by (proxy, host), in time order. */
function group(rows: readonly HistoryRow[]): HistoryRow[][] {
  const out = new Map<string, HistoryRow[]>();
  for (const r of rows) {
    const key = `${r.proxy}\0${r.host}`;
    const list = out.get(key) ?? [];
    list.push(r);
    out.set(key, list);
  }
  return [...out.values()];
}

function errorsOf(r: HistoryRow): Record<string, number> | null {
  return r.errors === null ? null : (JSON.parse(r.errors) as Record<string, number>);
}

/** Three decimals are more than a chart can show, and keep the answer a third of the size. */
const r3 = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);

/** One chart series from a (proxy, host)'s rows: averages, and rates over the time the counters cover. */
export function toSeries(rows: readonly HistoryRow[]): Series {
  const statuses = new Set<string>();
  for (const r of rows) for (const k of Object.keys(errorsOf(r) ?? {})) statuses.add(k);
  const rate = (count: number | null, r: HistoryRow): number | null => (count === null || r.span_ms <= 0 ? null : r3(count / (r.span_ms / 1000)));
  const errors: Record<string, (number | null)[]> = {};
  for (const s of [...statuses].sort()) {
    errors[s] = rows.map((r) => {
      const e = errorsOf(r);
      return e === null ? null : rate(e[s] ?? 0, r);
    });
  }
  return {
    proxy: rows[0]?.proxy ?? '',
    host: rows[0]?.host ?? '',
    t: rows.map((r) => r.t),
    slotsBusy: rows.map((r) => r3(avg(r.slots_busy_sum, r.slots_busy_n))),
    inflight: rows.map((r) => r3(avg(r.inflight_sum, r.inflight_n))),
    queued: rows.map((r) => r3(avg(r.queued_sum, r.queued_n))),
    requestRate: rows.map((r) => rate(r.requests, r)),
    errors,
  };
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
  };
}

/**
 * A gateway whose shed threshold is more than SHED_WARNING_RATIO × the in-flight level at which
 * its errors began: shedding cannot engage before the provider fails (the R40 finding).
 */
export function shedWarnings(groups: readonly HistoryRow[][], current: readonly Capacity[]): string[] {
  const warnings: string[] = [];
  for (const rows of groups) {
    const first = rows[0];
    const cap = current.find((c) => c.kind === 'gateway' && c.proxy === first?.proxy && c.host === first?.host);
    if (!first || !cap || cap.shedThreshold === null) continue;
    const began = rows.find((r) => Object.values(errorsOf(r) ?? {}).some((v) => v > 0) && (r.inflight_max ?? 0) > 0);
    if (!began) continue;
    const level = began.inflight_max ?? 0;
    if (cap.shedThreshold > SHED_WARNING_RATIO * level) {
      warnings.push(
        `Gateway "${cap.proxy}": errors began at about ${Math.round(level)} requests in flight (${new Date(began.t).toISOString()}), ` +
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
  const rows: HistoryRow[] = store.rows(res, res === 0 ? from : Math.floor(from / res) * res, to, input.proxy, input.host);
  const groups = group(rows);
  return {
    from: new Date(from).toISOString(),
    to: now.toISOString(),
    series: groups.map((g) => downsample(toSeries(g), maxPoints)),
    warnings: shedWarnings(groups, current),
  };
}
