import type { CommandOutput } from '../../../../shared/contract';
import { isSaturated, slotFraction, type Capacity, type CapacityRange, type LoopState, type PhaseStatus } from '../../../../shared/domain';
import { errorBurst, heapHigh } from '../../../../shared/fleet-incidents';

export { CAPACITY_RANGES, slotFraction, type CapacityRange } from '../../../../shared/domain';

/** What `capacity.history` answers. */
export type CapacityHistory = CommandOutput<'capacity.history'>;

/** One host's downsampled history. */
export type HistorySeries = CapacityHistory['series'][number];

/** The metrics charted with one line per host. */
export type LineMetric = 'slotsBusy' | 'inflight' | 'queued' | 'requestRate' | 'kvCache' | 'tokenRate';

/** A series' values of a metric, or null where the host did not expose it (no KV-cache gauge, no token counter). */
export function metricValues(s: HistorySeries, metric: LineMetric): readonly (number | null)[] | null {
  return s[metric] ?? null;
}

/** The key of one inference host behind one proxy. */
export function hostKey(proxy: string, host: string): string {
  return `${proxy}/${host}`;
}

/** Hosts grouped by their proxy, both in the order main sent them. */
export interface ProxyGroup {
  readonly proxy: string;
  readonly kind: Capacity['kind'];
  readonly hosts: readonly Capacity[];
}

/** Group hosts by proxy, keeping main's order of proxies and of hosts within each. */
export function groupByProxy(capacity: readonly Capacity[]): ProxyGroup[] {
  const groups = new Map<string, { proxy: string; kind: Capacity['kind']; hosts: Capacity[] }>();
  for (const c of capacity) {
    let g = groups.get(c.proxy);
    if (!g) groups.set(c.proxy, (g = { proxy: c.proxy, kind: c.kind, hosts: [] }));
    g.hosts.push(c);
  }
  return [...groups.values()];
}


/** Meter level: saturated at every slot busy or with a queue, busy from 75%. */
export function loadLevel(c: Capacity): 'idle' | 'ok' | 'busy' | 'saturated' | 'unknown' {
  const f = slotFraction(c);
  if (isSaturated(c)) return 'saturated';
  if (f === null) return 'unknown';
  if (f >= 0.75) return 'busy';
  return f === 0 ? 'idle' : 'ok';
}

/** Context tokens per slot: llama.cpp splits `n_ctx` evenly across its slots. */
export function ctxPerSlot(nCtx: number | null, slots: number | null): number | null {
  if (nCtx === null || slots === null || slots <= 0) return null;
  return Math.floor(nCtx / slots);
}

/** The error statuses any series reports, numerically sorted. */
export function errorStatuses(series: readonly HistorySeries[]): string[] {
  const set = new Set<string>();
  for (const s of series) for (const k of Object.keys(s.errors)) set.add(k);
  return [...set].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
}

function mean(values: readonly (number | null)[]): number {
  let sum = 0;
  let n = 0;
  for (const v of values) {
    if (v === null) continue;
    sum += v;
    n++;
  }
  return n === 0 ? 0 : sum / n;
}

/** Host keys, busiest first: mean busy slots plus mean queue over the range (in-flight breaks ties). */
export function busiestHosts(series: readonly HistorySeries[]): string[] {
  return series
    .map((s) => ({ key: hostKey(s.proxy, s.host), load: mean(s.slotsBusy) + mean(s.queued), tie: mean(s.inflight) }))
    .sort((a, b) => b.load - a.load || b.tie - a.tie || a.key.localeCompare(b.key))
    .map((x) => x.key);
}

/** A loop phase drawn as a band on the capacity time axis, clipped to the shown window. */
export interface PhaseBand {
  readonly key: string;
  readonly loop: string;
  readonly date: string;
  readonly phase: string;
  readonly status: PhaseStatus;
  /** Unclipped start and end (ms), for the label. */
  readonly start: number;
  readonly end: number;
  /** Clipped to the window, for drawing. */
  readonly x1: number;
  readonly x2: number;
  readonly running: boolean;
}

function ms(iso: string | null): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
}

/** Every phase with a start that overlaps `from..to` (running phases end at `to`), oldest first. */
export function phaseBands(loops: readonly LoopState[], from: number, to: number): PhaseBand[] {
  const bands: PhaseBand[] = [];
  for (const loop of loops) {
    for (const c of loop.cycles) {
      for (const p of c.phases) {
        const start = ms(p.startedAt);
        if (start === null) continue;
        const running = p.status === 'running';
        const end = running ? Math.max(to, start) : (ms(p.endedAt) ?? start);
        if (end < from || start > to) continue;
        bands.push({
          key: `${loop.name}:${c.date}:${p.name}`,
          loop: loop.name,
          date: c.date,
          phase: p.name,
          status: p.status,
          start,
          end,
          x1: Math.max(from, start),
          x2: Math.min(to, Math.max(end, start)),
          running,
        });
      }
    }
  }
  return bands.sort((a, b) => a.start - b.start || a.key.localeCompare(b.key));
}

/** Bands under time `t`. */
export function bandsAt(bands: readonly PhaseBand[], t: number): PhaseBand[] {
  return bands.filter((b) => b.x1 <= t && t <= b.x2);
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const STEP: Readonly<Record<CapacityRange, number>> = { '1h': 10 * 60_000, '24h': 3 * HOUR, '7d': DAY, '30d': 5 * DAY };

/** Round tick times over `from..to`: 10 min, 3 h, local midnights, every 5th local midnight. */
export function timeTicks(from: number, to: number, range: CapacityRange): number[] {
  const step = STEP[range];
  const ticks: number[] = [];
  if (step < DAY) {
    // Local-time alignment: offset by the zone's offset at `from` (good enough across one day).
    const off = new Date(from).getTimezoneOffset() * 60_000;
    for (let t = Math.ceil((from - off) / step) * step + off; t <= to; t += step) ticks.push(t);
    return ticks;
  }
  const d = new Date(from);
  d.setHours(0, 0, 0, 0);
  if (d.getTime() < from) d.setDate(d.getDate() + 1);
  const every = step / DAY;
  for (let i = 0; d.getTime() <= to; i++, d.setDate(d.getDate() + 1)) if (i % every === 0) ticks.push(d.getTime());
  return ticks;
}

const CLOCK = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const DAYF = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric' });
const DATEF = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short' });

/** A tick label for the range: `14:30` within a day, `Sun 23` for a week, `23 Aug` for a month. */
export function tickLabel(t: number, range: CapacityRange): string {
  if (range === '1h' || range === '24h') return CLOCK.format(t);
  return range === '7d' ? DAYF.format(t) : DATEF.format(t);
}

/** Nearest point index to `t` in ascending times (binary search); -1 for none. */
export function nearestIndex(times: readonly number[], t: number): number {
  if (times.length === 0) return -1;
  let lo = 0;
  let hi = times.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && Math.abs(times[lo - 1]! - t) <= Math.abs(times[lo]! - t)) return lo - 1;
  return lo;
}

/** Distinct, colour-blind-friendlier line colours; hosts keep theirs across ranges. */
export const HOST_COLORS: readonly string[] = [
  '#2f6fd6', '#de7410', '#b0309a', '#0f9aa8', '#7a5bd1', '#a07800', '#d63f5a', '#4d6b8a', '#2e8a4c', '#6d9c1e',
];

const FIGURE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/**
 * A gateway's heap for its card: `42.5 % of 4,144 MB`, the limit alone when the share is not
 * exposed, null when neither is. `high` when above its `incidents.heapPct` (the incident's rule).
 */
export function heapText(c: Pick<Capacity, 'heapUtilizationPct' | 'heapSizeLimitMb' | 'limits' | 'up'>): { readonly text: string; readonly high: boolean } | null {
  const used = c.heapUtilizationPct ?? null;
  const limit = c.heapSizeLimitMb ?? null;
  if (used === null && limit === null) return null;
  const of = limit === null ? '' : `${used === null ? '— of ' : ' of '}${FIGURE.format(Math.round(limit))} MB`;
  return { text: `${used === null ? '' : `${FIGURE.format(used)} %`}${of}`, high: heapHigh(c) !== null };
}

/** Server failures over the window for a card: `2.1 % of 480 (15 min)`, null while unknown. */
export function errorShareText(c: Pick<Capacity, 'errorShare' | 'limits'>): { readonly text: string; readonly burst: boolean } | null {
  const s = c.errorShare;
  if (!s || s.requests <= 0) return null;
  return { text: `${FIGURE.format((100 * s.errors) / s.requests)} % of ${FIGURE.format(s.requests)} (${Math.round(s.windowMs / 60_000)} min)`, burst: errorBurst(c) !== null };
}

/** KV-cache in use from this share (%) is high: the server is close to preempting or queueing. */
export const KV_HIGH_PCT = 90;

/** A host's KV-cache for its card: `42.1 %` and its meter level, null where the server does not expose it. */
export function kvText(c: Pick<Capacity, 'kvCachePct' | 'up'>): { readonly text: string; readonly pct: number; readonly level: 'ok' | 'busy' | 'saturated' } | null {
  const pct = c.kvCachePct ?? null;
  if (pct === null || !c.up) return null;
  return { text: `${FIGURE.format(pct)} %`, pct, level: pct >= KV_HIGH_PCT ? 'saturated' : pct >= 75 ? 'busy' : 'ok' };
}

/** Generated tokens a second for a card (`412.5`), null while unknown. */
export function tokensText(c: Pick<Capacity, 'tokensPerSecond' | 'up'>): string | null {
  const v = c.tokensPerSecond ?? null;
  return v === null || !c.up ? null : FIGURE.format(v);
}
