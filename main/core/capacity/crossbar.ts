import type { Capacity, ModelCapacity } from '../../../shared/domain';
import { parsePrometheus, type PromPoint } from './prometheus';
import {
  blankCapacity,
  downResult,
  errorLabel,
  FetchError,
  getJson,
  getText,
  int,
  obj,
  pick,
  sumKnown,
  type Adapter,
  type Counters,
  type PollResult,
  type Sample,
  type UsageRow,
} from './poll-types';
import { isErrorStatus, parseUsageRows } from './usage-rows';

/** Fields of a crossbar `HostView` Loopdeck expects; absent ones are reported in `missing`. */
export const CROSSBAR_HOST_FIELDS = ['up', 'n_ctx', 'slots', 'per_slot_ctx', 'models', 'inflight', 'queued'] as const;

const UP_KEYS = ['up', 'healthy', 'health', 'status'];
const INFLIGHT_KEYS = ['inflight', 'in_flight', 'inFlight'];
const QUEUED_KEYS = ['queued', 'waiting', 'queue'];

function upValue(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return ['up', 'ok', 'healthy', 'ready', 'loaded'].includes(v.toLowerCase());
  const o = obj(v);
  if (o) return upValue(pick(o, UP_KEYS)?.value);
  return null;
}

/** Host views from `/_crossbar/hosts`: an array, `{hosts: [...]}`, or an object keyed by name. */
function hostList(body: unknown): Array<[string, Record<string, unknown>]> {
  const o = obj(body);
  const list = Array.isArray(body) ? body : Array.isArray(o?.hosts) ? (o?.hosts as unknown[]) : null;
  if (list) {
    return list.flatMap((h, i) => {
      const v = obj(h);
      if (!v) return [];
      const name = pick(v, ['name', 'host', 'id'])?.value;
      return [[typeof name === 'string' ? name : `host-${i}`, v] as [string, Record<string, unknown>]];
    });
  }
  if (o) return Object.entries(o).flatMap(([k, v]) => (obj(v) ? [[k, obj(v) as Record<string, unknown>] as [string, Record<string, unknown>]] : []));
  throw new Error('hosts is neither a JSON array nor an object');
}

function models(v: Record<string, unknown>, hostSlots: number | null, gauges: Map<string, { inflight?: number; queued?: number }>, host: string): ModelCapacity[] {
  const m = obj(v.models) ?? {};
  return Object.entries(m).map(([id, raw]) => {
    const mv = obj(raw) ?? {};
    const g = gauges.get(`${host}\0${id}`);
    return {
      id,
      nCtx: int(pick(mv, ['n_ctx', 'nCtx', 'ctx'])?.value),
      slots: int(pick(mv, ['slots', 'total_slots'])?.value) ?? hostSlots,
      inflight: int(pick(mv, INFLIGHT_KEYS)?.value) ?? g?.inflight ?? null,
      queued: int(pick(mv, QUEUED_KEYS)?.value) ?? g?.queued ?? null,
    };
  });
}

/** Per-host cumulative counters and per-(host, model) gauges from crossbar's Prometheus text. */
function fromMetrics(points: readonly PromPoint[]): { counters: Map<string, Counters>; gauges: Map<string, { inflight?: number; queued?: number }> } {
  const counters = new Map<string, { requests: number; errors: Record<string, number> }>();
  const gauges = new Map<string, { inflight?: number; queued?: number }>();
  for (const p of points) {
    const host = p.labels.host ?? '';
    if (p.name === 'crossbar_requests_total') {
      const c = counters.get(host) ?? { requests: 0, errors: {} };
      c.requests += p.value;
      const status = p.labels.status ?? null;
      if (status !== null && isErrorStatus(status)) c.errors[status] = (c.errors[status] ?? 0) + p.value;
      counters.set(host, c);
    } else if (p.name === 'crossbar_inflight' || p.name === 'crossbar_queued') {
      const key = `${host}\0${p.labels.model ?? ''}`;
      const g = gauges.get(key) ?? {};
      if (p.name === 'crossbar_inflight') g.inflight = p.value;
      else g.queued = p.value;
      gauges.set(key, g);
    }
  }
  return { counters, gauges };
}

/** Poll a crossbar routing proxy's admin API: hosts (required), usage and metrics (optional). */
export const pollCrossbar: Adapter = async (get, proxy, now, base) => {
  const label = errorLabel(proxy, base);
  let hostsBody: unknown;
  try {
    hostsBody = await getJson(get, label, '/_crossbar/hosts');
  } catch (e) {
    return downResult(proxy, 'crossbar', now, (e as Error).message);
  }
  let hosts: Array<[string, Record<string, unknown>]>;
  try {
    hosts = hostList(hostsBody);
  } catch (e) {
    return downResult(proxy, 'crossbar', now, `${label}/_crossbar/hosts: ${(e as Error).message}`);
  }
  if (hosts.length === 0) {
    const empty = downResult(proxy, 'crossbar', now, `${label}/_crossbar/hosts lists no backends`);
    return { ...empty, capacity: empty.capacity.map((c) => ({ ...c, up: true })), samples: empty.samples.map((s) => ({ ...s, up: true })) };
  }
  const proxyMissing: string[] = [];
  const notes: string[] = [];
  let usage: UsageRow[] = [];
  try {
    const parsed = parseUsageRows(await getJson(get, label, '/_crossbar/usage'));
    usage = parsed.rows;
    if (parsed.skipped) notes.push(`${parsed.skipped} usage rows without a time were skipped`);
  } catch (e) {
    proxyMissing.push('usage');
    if (!(e instanceof FetchError && e.status === 404)) notes.push((e as Error).message);
  }
  let metrics: ReturnType<typeof fromMetrics> = { counters: new Map(), gauges: new Map() };
  let haveMetrics = false;
  try {
    const points = parsePrometheus(await getText(get, label, '/_crossbar/metrics'));
    metrics = fromMetrics(points);
    haveMetrics = points.some((p) => p.name === 'crossbar_requests_total');
    if (!haveMetrics) proxyMissing.push('metrics.crossbar_requests_total');
  } catch (e) {
    proxyMissing.push('metrics');
    if (!(e instanceof FetchError && e.status === 404)) notes.push(e instanceof FetchError ? e.message : `${label}/_crossbar/metrics: ${(e as Error).message}`);
  }
  const capacity: Capacity[] = [];
  const samples: Sample[] = [];
  for (const [host, v] of hosts) {
    const missing = [...proxyMissing, ...CROSSBAR_HOST_FIELDS.filter((f) => f !== 'inflight' && f !== 'queued' && (v[f] === undefined || v[f] === null) && !(f === 'up' && pick(v, UP_KEYS)))];
    const up = upValue(pick(v, UP_KEYS)?.value) ?? false;
    const slotsTotal = int(pick(v, ['slots', 'total_slots', 'parallel'])?.value);
    const ms = models(v, slotsTotal, metrics.gauges, host);
    const inflight = int(pick(v, INFLIGHT_KEYS)?.value) ?? sumKnown(ms, 'inflight');
    const queued = int(pick(v, QUEUED_KEYS)?.value) ?? sumKnown(ms, 'queued');
    if (inflight === null) missing.push('inflight');
    if (queued === null) missing.push('queued');
    const hostErr = typeof v.error === 'string' && v.error ? v.error : null;
    const slotsBusy = inflight === null ? null : slotsTotal === null ? inflight : Math.min(inflight, slotsTotal);
    const counters = haveMetrics ? (metrics.counters.get(host) ?? { requests: 0, errors: {} }) : null;
    capacity.push({
      ...blankCapacity(proxy, 'crossbar', host, now),
      up,
      slotsTotal,
      slotsBusy,
      inflight,
      queued,
      nCtx: int(pick(v, ['n_ctx', 'nCtx'])?.value),
      models: ms,
      missing,
      error: hostErr ? `proxy "${proxy}": host "${host}": ${hostErr}` : notes.length ? notes.join('; ') : null,
    });
    samples.push({ proxy, host, t: now.getTime(), up, slotsTotal, slotsBusy, inflight, queued, counters });
  }
  const result: PollResult = { capacity, samples, usage };
  return result;
};
