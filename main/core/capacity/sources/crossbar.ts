import type { Capacity, ModelCapacity } from '../../../../shared/domain';
import type { z } from 'zod';
import { CrossbarHost, CrossbarHosts, CrossbarModel, first, parseLenient } from './admin-schemas';
import { clip, MAX_ERROR_TEXT, MAX_HOSTS_PER_PROXY, MAX_MODELS_PER_HOST, proxyKey } from '../limits';
import { parsePrometheus, type PromPoint } from './prometheus';
import {
  blankCapacity,
  downResult,
  errorLabel,
  FetchError,
  getJson,
  getText,
  sumKnown,
  type Adapter,
  type Counters,
  type PollResult,
  type Sample,
  type UsageRow,
} from './poll-types';
import { isErrorStatus, parseUsageRows } from './usage-rows';
import { messageOf } from '../../../../shared/errors';

/** Fields of a crossbar `HostView` Loopdeck expects; absent ones are reported in `missing`. */
export const CROSSBAR_HOST_FIELDS = ['up', 'n_ctx', 'slots', 'per_slot_ctx', 'models', 'inflight', 'queued'] as const;

type Host = z.infer<typeof CrossbarHost>;

/** Up from a boolean, a word, or an object holding one (crossbar versions differ). */
function upValue(v: unknown, depth = 0): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return ['up', 'ok', 'healthy', 'ready', 'loaded'].includes(v.toLowerCase());
  if (v !== null && typeof v === 'object' && depth < 2) {
    const o = v as Record<string, unknown>;
    return upValue(first(o.up, o.healthy, o.health, o.status), depth + 1);
  }
  return null;
}

const upOf = (h: Host): Host['up'] | null => first(h.up, h.healthy, h.health, h.status);

/** A host view with its name (clipped to MAX_TEXT) and the fields it had of the wrong type. */
type HostEntry = { readonly name: string; readonly view: Host; readonly problems: readonly string[] };

/**
 * Host views from `/_crossbar/hosts`: an array, `{hosts: [...]}`, or an object keyed by name.
 * Keeps the first MAX_HOSTS_PER_PROXY and counts how many were listed; entries that are not
 * objects are not hosts and are skipped.
 */
function hostList(body: unknown): { hosts: HostEntry[]; listed: number } {
  const parsed = CrossbarHosts.safeParse(body);
  if (!parsed.success) throw new Error('hosts is neither a JSON array nor an object');
  const list = Array.isArray(parsed.data) ? parsed.data : Array.isArray(parsed.data.hosts) ? parsed.data.hosts : null;
  const entries: [string | null, unknown][] = list ? list.map((h) => [null, h]) : Object.entries(parsed.data);
  const hosts: HostEntry[] = [];
  let listed = 0;
  entries.forEach(([key, raw], i) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return;
    listed++;
    if (hosts.length >= MAX_HOSTS_PER_PROXY) return;
    const view = parseLenient(CrossbarHost, raw);
    if (!view.ok) return;
    const name = key ?? first(view.value.name, view.value.host, view.value.id) ?? `host-${i}`;
    hosts.push({ name: clip(name), view: view.value, problems: view.problems });
  });
  return { hosts, listed };
}

/** A host's models, the first MAX_MODELS_PER_HOST of them, and how many it listed. */
function models(v: Host, hostSlots: number | null, gauges: Map<string, { inflight?: number; queued?: number }>, host: string): { models: ModelCapacity[]; listed: number; problems: string[] } {
  const entries = Object.entries(v.models ?? {});
  const problems: string[] = [];
  const models = entries.slice(0, MAX_MODELS_PER_HOST).map(([rawId, raw]): ModelCapacity => {
    const id = clip(rawId);
    const parsed = parseLenient(CrossbarModel, raw);
    const mv = parsed.ok ? parsed.value : {};
    if (parsed.ok && parsed.problems.length > 0 && problems.length === 0) problems.push(`models.${id}.${parsed.problems[0]}`);
    const g = gauges.get(`${host}\0${id}`);
    return {
      id,
      nCtx: first(mv.n_ctx, mv.nCtx, mv.ctx),
      slots: first(mv.slots, mv.total_slots) ?? hostSlots,
      inflight: first(mv.inflight, mv.in_flight, mv.inFlight) ?? g?.inflight ?? null,
      queued: first(mv.queued, mv.waiting, mv.queue) ?? g?.queued ?? null,
    };
  });
  return { models, listed: entries.length, problems };
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
    return downResult(proxy, 'crossbar', now, messageOf(e));
  }
  let hosts: HostEntry[];
  let listed: number;
  try {
    ({ hosts, listed } = hostList(hostsBody));
  } catch (e) {
    return downResult(proxy, 'crossbar', now, `${label}/_crossbar/hosts: ${messageOf(e)}`);
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
    if (parsed.problem) notes.push(`${label}/_crossbar/usage: ${parsed.problem}`);
    if (parsed.dropped) notes.push(`${proxyKey(proxy)}: usage listed ${parsed.rows.length + parsed.dropped} rows; kept the newest ${parsed.rows.length} this poll`);
  } catch (e) {
    proxyMissing.push('usage');
    if (!(e instanceof FetchError && e.status === 404)) notes.push(messageOf(e));
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
    if (!(e instanceof FetchError && e.status === 404)) notes.push(e instanceof FetchError ? e.message : `${label}/_crossbar/metrics: ${messageOf(e)}`);
  }
  const capacity: Capacity[] = [];
  const samples: Sample[] = [];
  for (const { name: host, view: v, problems } of hosts) {
    const missing = [...proxyMissing, ...CROSSBAR_HOST_FIELDS.filter((f) => f !== 'inflight' && f !== 'queued' && v[f] == null && !(f === 'up' && upOf(v) !== null))];
    const up = upValue(upOf(v)) ?? false;
    const slotsTotal = first(v.slots, v.total_slots, v.parallel);
    const { models: ms, listed: modelsListed, problems: modelProblems } = models(v, slotsTotal, metrics.gauges, host);
    const hostNotes = [...problems, ...modelProblems].map((p) => `${label}/_crossbar/hosts: host "${host}": ${p}`);
    if (modelsListed > ms.length) hostNotes.push(`${proxyKey(proxy)}: host "${host}" listed ${modelsListed} models; showing the first ${ms.length}`);
    const inflight = first(v.inflight, v.in_flight, v.inFlight) ?? sumKnown(ms, 'inflight');
    const queued = first(v.queued, v.waiting, v.queue) ?? sumKnown(ms, 'queued');
    if (inflight === null) missing.push('inflight');
    if (queued === null) missing.push('queued');
    const hostErr = v.error ? clip(v.error, MAX_ERROR_TEXT) : null;
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
      nCtx: first(v.n_ctx, v.nCtx),
      models: ms,
      missing,
      error: errors.length ? errors.join('; ') : null,
    });
    samples.push({ proxy, host, t: now.getTime(), up, slotsTotal, slotsBusy, inflight, queued, counters });
  }
  const result: PollResult = { capacity, samples, usage };
  return result;
};
