import type { Capacity, ModelCapacity } from '../../../shared/domain';
import { clip, MAX_ERROR_TEXT, MAX_HOSTS_PER_PROXY, MAX_MODELS_PER_HOST, proxyKey } from './limits';
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

/** A host view with its name (clipped to MAX_TEXT). */
type HostEntry = [string, Record<string, unknown>];

/**
 * Host views from `/_crossbar/hosts`: an array, `{hosts: [...]}`, or an object keyed by name.
 * Keeps the first MAX_HOSTS_PER_PROXY and counts how many were listed.
 */
function hostList(body: unknown): { hosts: HostEntry[]; listed: number } {
  const o = obj(body);
  const list = Array.isArray(body) ? body : Array.isArray(o?.hosts) ? (o?.hosts as unknown[]) : null;
  const hosts: HostEntry[] = [];
  let listed = 0;
  const add = (name: string, v: Record<string, unknown>): void => {
    listed++;
    if (hosts.length < MAX_HOSTS_PER_PROXY) hosts.push([clip(name), v]);
  };
  if (list) {
    list.forEach((h, i) => {
      const v = obj(h);
      const name = v ? pick(v, ['name', 'host', 'id'])?.value : undefined;
      if (v) add(typeof name === 'string' ? name : `host-${i}`, v);
    });
    return { hosts, listed };
  }
  if (o) {
    for (const [k, raw] of Object.entries(o)) {
      const v = obj(raw);
      if (v) add(k, v);
    }
    return { hosts, listed };
  }
  throw new Error('hosts is neither a JSON array nor an object');
}

/** A host's models, the first MAX_MODELS_PER_HOST of them, and how many it listed. */
function models(v: Record<string, unknown>, hostSlots: number | null, gauges: Map<string, { inflight?: number; queued?: number }>, host: string): { models: ModelCapacity[]; listed: number } {
  const entries = Object.entries(obj(v.models) ?? {});
  const models = entries.slice(0, MAX_MODELS_PER_HOST).map(([rawId, raw]): ModelCapacity => {
    const id = clip(rawId);
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
  return { models, listed: entries.length };
}

/** Per-host cumulative counters and per-(host, model) gauges from crossbar's Prometheus text. */
function fromMetrics(points: readonly PromPoint[]): { counters: Map<string, Counters>; gauges: Map<string, { inflight?: number; queued?: number }> } {
  const counters = new Map<string, { requests: number; errors: Record<string, number> }>();
  const gauges = new Map<string, { inflight?: number; queued?: number }>();
  for (const p of points) {
    const host = clip(p.labels.host ?? '');
    if (p.name === 'crossbar_requests_total') {
      const c = counters.get(host) ?? { requests: 0, errors: {} };
      c.requests += p.value;
      const status = p.labels.status ?? null;
      if (status !== null && isErrorStatus(status)) c.errors[status] = (c.errors[status] ?? 0) + p.value;
      counters.set(host, c);
    } else if (p.name === 'crossbar_inflight' || p.name === 'crossbar_queued') {
      const key = `${host}\0${clip(p.labels.model ?? '')}`;
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
  let hosts: HostEntry[];
  let listed: number;
  try {
    ({ hosts, listed } = hostList(hostsBody));
  } catch (e) {
    return downResult(proxy, 'crossbar', now, `${label}/_crossbar/hosts: ${(e as Error).message}`);
  }
  if (hosts.length === 0) {
    const empty = downResult(proxy, 'crossbar', now, `${label}/_crossbar/hosts lists no backends`);
    return { ...empty, capacity: empty.capacity.map((c) => ({ ...c, up: true })), samples: empty.samples.map((s) => ({ ...s, up: true })) };
  }
  const proxyMissing: string[] = [];
  const notes: string[] = [];
  if (listed > hosts.length) notes.push(`${proxyKey(proxy)}: crossbar listed ${listed} hosts; showing the first ${hosts.length} (Loopdeck polls at most ${MAX_HOSTS_PER_PROXY} hosts per proxy)`);
  let usage: UsageRow[] = [];
  try {
    const parsed = parseUsageRows(await getJson(get, label, '/_crossbar/usage'));
    usage = parsed.rows;
    if (parsed.skipped) notes.push(`${parsed.skipped} usage rows without a time were skipped`);
    if (parsed.dropped) notes.push(`${proxyKey(proxy)}: usage listed ${parsed.rows.length + parsed.dropped} rows; kept the newest ${parsed.rows.length} this poll`);
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
    const { models: ms, listed: modelsListed } = models(v, slotsTotal, metrics.gauges, host);
    const hostNotes = modelsListed > ms.length ? [`${proxyKey(proxy)}: host "${host}" listed ${modelsListed} models; showing the first ${ms.length}`] : [];
    const inflight = int(pick(v, INFLIGHT_KEYS)?.value) ?? sumKnown(ms, 'inflight');
    const queued = int(pick(v, QUEUED_KEYS)?.value) ?? sumKnown(ms, 'queued');
    if (inflight === null) missing.push('inflight');
    if (queued === null) missing.push('queued');
    const hostErr = typeof v.error === 'string' && v.error ? clip(v.error, MAX_ERROR_TEXT) : null;
    const errors = hostErr ? [`proxy "${proxy}": host "${host}": ${hostErr}`, ...hostNotes] : [...notes, ...hostNotes];
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
      error: errors.length ? errors.join('; ') : null,
    });
    samples.push({ proxy, host, t: now.getTime(), up, slotsTotal, slotsBusy, inflight, queued, counters });
  }
  const result: PollResult = { capacity, samples, usage };
  return result;
};
