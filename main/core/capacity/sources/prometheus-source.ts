// Prometheus as a capacity source: the fleet's llama.cpp and vLLM servers as Prometheus already
// scrapes them (the queries: prometheus-queries.ts). Live figures come from instant queries (`/api/v1/query`) on every poll; the charts' past
// comes from range queries (`/api/v1/query_range`), so Loopdeck neither polls the servers nor
// keeps their history itself.
import * as z from 'zod';
import type { CommandOutput } from '../../../../shared/contract';
import type { Capacity, ModelCapacity } from '../../../../shared/domain';
import { clip, MAX_ERROR_TEXT, MAX_HOSTS_PER_PROXY, MAX_MODELS_PER_HOST, parseJsonBounded, proxyKey } from '../limits';
import { blankCapacity, downResult, excerpt, type GetReply, type PollResult } from './poll-types';
import { LLAMA_SERIES, prometheusQueries, prometheusRangeQueries, VLLM_SERIES } from './prometheus-queries';
import { checkFigure, MAX_PROM_REQUESTS, MAX_PROM_TOKENS_PER_SECOND, quoteLabel, refusedLabel, refusedText } from './prom-checks';
import { messageOf } from '../../../../shared/errors';

/** GET a path with its query string on the Prometheus server, reading at most `maxBytes`. */
export type PromGetter = (pathAndQuery: string, maxBytes: number) => Promise<GetReply>;

/** An instant answer: one sample per (instance, model) for at most 256 hosts is far below 1 MiB. */
export const MAX_PROM_QUERY_BODY = 1024 * 1024;
/** A range answer: 256 series × 1,000 points × ~30 bytes a point is about 8 MB. */
export const MAX_PROM_RANGE_BODY = 16 * 1024 * 1024;
/** Points per series a history answer keeps at most (the charts' limit). */
export const MAX_PROM_POINTS = 1000;

const Labels = z.record(z.string(), z.string());
/** `[<unix seconds>, "<value>"]`: Prometheus sends values as strings ("NaN", "+Inf" included). */
const PromSample = z.tuple([z.number(), z.string()]);
/** An instant vector's result. */
export const PromVector = z.array(z.object({ metric: Labels, value: PromSample }));
/** A range query's matrix result. */
export const PromMatrix = z.array(z.object({ metric: Labels, values: z.array(PromSample) }));
/** The envelope of every `/api/v1` answer: success with data, or the server's error. */
export const PromAnswer = z.discriminatedUnion('status', [
  z.looseObject({ status: z.literal('success'), data: z.looseObject({ resultType: z.string(), result: z.unknown() }) }),
  z.looseObject({ status: z.literal('error'), errorType: z.string().nullish(), error: z.string().nullish() }),
]);

/** Matchers plus `instance="<host>"`, for a history asked about one host. */
function withInstance(selector: string | undefined, host: string | undefined): string | undefined {
  if (host === undefined) return selector;
  const inner = selector ? selector.trim().slice(1, -1).trim() : '';
  return `{${inner ? `${inner},` : ''}instance=${JSON.stringify(host)}}`;
}

/** The step (whole seconds) that keeps a range at most `maxPoints` points per series. */
export function stepFor(rangeMs: number, maxPoints = MAX_PROM_POINTS): number {
  // A range query answers floor(range / step) + 1 points.
  return Math.max(1, Math.ceil(rangeMs / 1000 / Math.max(1, maxPoints - 1)));
}

/** `proxy "fleet" (Prometheus http://…)`: who answered, for every error. */
export function promLabel(proxy: string, base: string): string {
  return `proxy "${proxy}" (Prometheus ${base})`;
}

/** Run one query; throws an Error naming the query and the server's own message. */
export async function promQuery(get: PromGetter, label: string, endpoint: '/api/v1/query' | '/api/v1/query_range', query: string, params: Record<string, string>, maxBytes: number): Promise<unknown> {
  const what = `${label}: query \`${query}\``;
  let reply: GetReply;
  try {
    reply = await get(`${endpoint}?${new URLSearchParams({ query, ...params }).toString()}`, maxBytes);
  } catch (e) {
    throw new Error(`${what}: ${messageOf(e) || String(e)}`, { cause: e });
  }
  let body: unknown = undefined;
  try {
    body = parseJsonBounded(reply.body);
  } catch {
    // Not JSON: said below with the status and an excerpt.
  }
  const parsed = PromAnswer.safeParse(body);
  if (parsed.success && parsed.data.status === 'error') {
    const { errorType, error } = parsed.data;
    throw new Error(`${what}: Prometheus answered ${errorType ?? 'an error'}${reply.status >= 400 ? ` (HTTP ${reply.status})` : ''}: ${clip(error ?? '(no message)', MAX_ERROR_TEXT)}`);
  }
  if (reply.status < 200 || reply.status > 299) throw new Error(`${what}: HTTP ${reply.status}: ${excerpt(reply.body)}`);
  if (!parsed.success || parsed.data.status !== 'success') throw new Error(`${what}: not a Prometheus API answer (is the URL Prometheus?): ${excerpt(reply.body)}`);
  return parsed.data.data.result;
}

/**
 * Run queries in parallel; the first to fail in the given order decides the error, so a bad
 * selector (which breaks them all) reads the same on every poll instead of whichever lost a race.
 */
async function allInOrder<T>(jobs: readonly (() => Promise<T>)[]): Promise<T[]> {
  const settled = await Promise.allSettled(jobs.map((job) => job()));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<T>).value);
}

const r3 = (v: number): number => Math.round(v * 1000) / 1000;

type Field = 'inflight' | 'queued' | 'tokens' | 'kv';
type Figures = Record<Field, number | null>;
const FIELDS = ['inflight', 'queued', 'tokens', 'kv'] as const;
const NO_FIGURES = (): Figures => ({ inflight: null, queued: null, tokens: null, kv: null });
type Dialect = 'llama' | 'vllm';
/** What each figure is named (in a host's `missing` list, and when its value is refused), by the server's dialect. */
function seriesName(field: Field, dialect: Dialect, refused = false): string {
  const name = (dialect === 'vllm' ? VLLM_SERIES : LLAMA_SERIES)[field];
  return refused && field === 'tokens' ? `irate(${name})` : name;
}
const FIELD_MAX: Record<Field, number> = { inflight: MAX_PROM_REQUESTS, queued: MAX_PROM_REQUESTS, tokens: MAX_PROM_TOKENS_PER_SECOND, kv: 1 };
const FIELD_WHAT: Record<Field, string> = { inflight: 'a count of requests', queued: 'a count of requests', tokens: 'a rate of tokens a second', kv: 'a share of the KV-cache from 0 to 1' };

interface Instance {
  up: boolean | null;
  readonly total: Figures;
  readonly models: Map<string, Figures>;
  /** Why a figure (or `up`) was refused: it is then missing for the whole instance. */
  readonly refused: Map<Field | 'up', string>;
}

function decodeVector(label: string, query: string, result: unknown): z.infer<typeof PromVector> {
  const parsed = PromVector.safeParse(result);
  if (!parsed.success) throw new Error(`${label}: query \`${query}\`: the answer is not an instant vector`);
  return parsed.data;
}

/** The series of an answer whose names can be shown; the others named in one note of the query. */
function safeSeries<T extends { readonly metric: Readonly<Record<string, string>> }>(label: string, query: string, series: readonly T[], notes: string[]): T[] {
  const refused: string[] = [];
  const kept = series.filter((s) => {
    const bad = refusedLabel(s.metric);
    if (bad) refused.push(bad);
    return bad === null;
  });
  if (refused.length) notes.push(`${label}: query \`${query}\`: ${refusedText(refused)}`);
  return kept;
}

const add = (a: number | null, b: number | null): number | null => (b === null ? a : (a ?? 0) + b);

/** `2026-11-29T12:00:00Z`: a time as an operator types it for `--now`. */
const isoSeconds = (t: Date): string => t.toISOString().replace(/\.000Z$/, 'Z');

/** How a poll is asked: `pinned` when `now` is a pinned clock's (`--now`) rather than the present. */
export interface PollOptions {
  readonly pinned?: boolean;
}

/** A live poll of a prometheus proxy at `now` (its instant queries' time): each scraped instance becomes a capacity host. Never throws. */
export async function pollPrometheus(get: PromGetter, proxy: string, now: Date, base: string, selector: string | undefined, options: PollOptions = {}): Promise<PollResult> {
  const label = promLabel(proxy, base);
  const q = prometheusQueries(selector);
  const time = String(now.getTime() / 1000);
  const queries = [q.up, q.vllm, q.inflight, q.queued, q.tokens, q.kv];
  let vectors: z.infer<typeof PromVector>[];
  try {
    vectors = await allInOrder(queries.map((query) => async () => decodeVector(label, query, await promQuery(get, label, '/api/v1/query', query, { time }, MAX_PROM_QUERY_BODY))));
  } catch (e) {
    return { ...downResult(proxy, 'prometheus', now, messageOf(e)), samples: [] };
  }
  const notes: string[] = [];
  const [upVec = [], vllmVec = [], ...figureVecs] = vectors.map((vec, k) => safeSeries(label, queries[k] as string, vec, notes));
  const instances = new Map<string, Instance>();
  const entry = (name: string): Instance => {
    let i = instances.get(name);
    if (!i) instances.set(name, (i = { up: null, total: NO_FIGURES(), models: new Map(), refused: new Map() }));
    return i;
  };
  for (const s of upVec) {
    if (!s.metric.instance) continue;
    const i = entry(clip(s.metric.instance));
    const v = checkFigure(s.value[1], 1);
    if (v.ok) i.up = v.value >= 1;
    else i.refused.set('up', `up = ${v.why}, not 0 or 1`);
  }
  const vllmHosts = new Set(vllmVec.flatMap((s) => (s.metric.instance ? [clip(s.metric.instance)] : [])));
  const dialectOf = (host: string): Dialect => (vllmHosts.has(host) ? 'vllm' : 'llama');
  figureVecs.forEach((vec, k) => {
    const field = FIELDS[k] as Field;
    for (const s of vec) {
      if (!s.metric.instance) continue;
      const i = entry(clip(s.metric.instance));
      const checked = checkFigure(s.value[1], FIELD_MAX[field]);
      if (!checked.ok && !i.refused.has(field)) i.refused.set(field, `${seriesName(field, dialectOf(clip(s.metric.instance)), true)} = ${checked.why}: not ${FIELD_WHAT[field]}`);
      const v = checked.ok ? checked.value : null;
      i.total[field] = add(i.total[field], v);
      const model = s.metric.model;
      if (model && field !== 'kv') {
        const m = i.models.get(clip(model)) ?? NO_FIGURES();
        m[field] = add(m[field], v);
        i.models.set(clip(model), m);
      }
    }
  });
  // A refused value leaves the sum of the rest, which is not the instance's figure either.
  for (const i of instances.values()) for (const f of FIELDS) if (i.refused.has(f)) i.total[f] = null;
  if (instances.size === 0) {
    const matched = selector ? `, and matched by selector ${selector}` : '';
    // Pinned, the queries ran at that time: the likely reason is the time, not the scrape config.
    const why = options.pinned
      ? ` at ${isoSeconds(now)} (the time --now pinned; the queries ran at that time: is it within the data Prometheus keeps, and were the llama.cpp (started with --metrics) or vLLM servers scraped then${matched}?)`
      : ` (are the llama.cpp (started with --metrics) or vLLM servers scraped${matched}?)`;
    const none = `${label}: no inference servers: \`${q.up}\` matched no series${why}`;
    const down = downResult(proxy, 'prometheus', now, [...notes, none].join('; '));
    return { capacity: down.capacity.map((c) => ({ ...c, up: true })), samples: [], usage: [] };
  }
  const names = [...instances.keys()].sort();
  if (names.length > MAX_HOSTS_PER_PROXY) notes.push(`${proxyKey(proxy)}: Prometheus has ${names.length} inference servers; showing the first ${MAX_HOSTS_PER_PROXY}`);
  const capacity = names.slice(0, MAX_HOSTS_PER_PROXY).map((host): Capacity => {
    const i = instances.get(host) as Instance;
    const up = i.up ?? (i.total.inflight !== null || i.total.queued !== null);
    const missing: string[] = [];
    if (i.up === null) missing.push('up');
    const dialect = dialectOf(host);
    // llama.cpp's KV-cache gauge is gone from current builds: not worth listing as missing.
    for (const f of FIELDS) if ((up || i.refused.has(f)) && i.total[f] === null && (f !== 'kv' || dialect === 'vllm')) missing.push(seriesName(f, dialect));
    const hostNotes = [...notes];
    if (i.refused.size) hostNotes.push(`${label}: instance ${quoteLabel(host)}: ${[...i.refused.values()].join('; ')} (treated as missing)`);
    if (i.models.size > MAX_MODELS_PER_HOST) hostNotes.push(`${proxyKey(proxy)}: instance "${host}" has ${i.models.size} models; showing the first ${MAX_MODELS_PER_HOST}`);
    const models = [...i.models.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .slice(0, MAX_MODELS_PER_HOST)
      .map(([id, m]): ModelCapacity => ({ id, nCtx: null, slots: null, inflight: m.inflight === null ? null : Math.round(m.inflight), queued: m.queued === null ? null : Math.round(m.queued) }));
    const inflight = up && i.total.inflight !== null ? Math.round(i.total.inflight) : null;
    return {
      ...blankCapacity(proxy, 'prometheus', host, now),
      up,
      slotsBusy: inflight,
      inflight,
      queued: up && i.total.queued !== null ? Math.round(i.total.queued) : null,
      tokensPerSecond: up && i.total.tokens !== null ? r3(i.total.tokens) : null,
      ...(up && i.total.kv !== null ? { kvCachePct: Math.round(i.total.kv * 1000) / 10 } : {}),
      models,
      missing,
      error: hostNotes.length ? hostNotes.join('; ') : null,
    };
  });
  // The past of these hosts is Prometheus's: nothing is stored.
  return { capacity, samples: [], usage: [] };
}

type Series = CommandOutput<'capacity.history'>['series'][number];
/** One step of a host's charts: in flight, queued, tokens a second, KV-cache %. */
type Row = [number | null, number | null, number | null, number | null];

/** The charts' series of a prometheus proxy over [from, to], read from range queries; never throws. */
export async function prometheusHistory(
  get: PromGetter,
  proxy: string,
  base: string,
  opts: { readonly selector?: string; readonly host?: string; readonly from: number; readonly to: number; readonly maxPoints?: number },
): Promise<{ series: Series[]; warnings: string[] }> {
  const label = promLabel(proxy, base);
  const points = Math.min(opts.maxPoints ?? MAX_PROM_POINTS, MAX_PROM_POINTS);
  const step = stepFor(opts.to - opts.from, points);
  const q = prometheusRangeQueries(withInstance(opts.selector, opts.host), step);
  // The grid ends at `to`, so the newest point averages the latest data (a 30-day grid counted
  // from `from` would end up to a step before now and miss a fresh server entirely).
  const start = opts.to - (points - 1) * step * 1000;
  const params = { start: String(start / 1000), end: String(opts.to / 1000), step: String(step) };
  const fields = ['inflight', 'queued', 'tokenRate', 'kvCache'] as const;
  let matrices: z.infer<typeof PromMatrix>[];
  try {
    matrices = await allInOrder(
      fields.map((f) => async () => {
        const result = await promQuery(get, label, '/api/v1/query_range', q[f], params, MAX_PROM_RANGE_BODY);
        const parsed = PromMatrix.safeParse(result);
        if (!parsed.success) throw new Error(`${label}: query \`${q[f]}\`: the answer is not a range matrix`);
        return parsed.data;
      }),
    );
  } catch (e) {
    return { series: [], warnings: [messageOf(e)] };
  }
  // Every value sits on the step grid, so one map per instance from time to the four figures.
  const byHost = new Map<string, Map<number, Row>>();
  const warnings: string[] = [];
  const max = [MAX_PROM_REQUESTS, MAX_PROM_REQUESTS, MAX_PROM_TOKENS_PER_SECOND, 1] as const;
  matrices.forEach((matrix, k) => {
    const query = q[fields[k] as (typeof fields)[number]];
    let gaps = 0;
    let example = '';
    for (const s of safeSeries(label, query, matrix, warnings)) {
      const host = s.metric.instance;
      if (!host) continue;
      const points = byHost.get(host) ?? new Map<number, Row>();
      byHost.set(host, points);
      for (const [ts, v] of s.values) {
        const t = Math.round(ts * 1000);
        const row = points.get(t) ?? [null, null, null, null];
        const checked = checkFigure(v, max[k] as number);
        if (!checked.ok && gaps++ === 0) example = `${quoteLabel(host)}: ${checked.why}`;
        // The KV-cache share is charted as a percentage.
        row[k] = checked.ok ? (k === 3 ? Math.round(checked.value * 1000) / 10 : r3(checked.value)) : null;
        points.set(t, row);
      }
    }
    if (gaps) warnings.push(`${label}: query \`${query}\`: ${gaps} point(s) are not figures from 0 to ${max[k]} (e.g. instance ${example}) and are charted as gaps`);
  });
  const hosts = [...byHost.keys()].sort();
  if (hosts.length > MAX_HOSTS_PER_PROXY) warnings.push(`${proxyKey(proxy)}: Prometheus has history for ${hosts.length} inference servers; charting the first ${MAX_HOSTS_PER_PROXY}`);
  const series = hosts.slice(0, MAX_HOSTS_PER_PROXY).map((host): Series => {
    const rows = [...(byHost.get(host) ?? new Map<number, Row>()).entries()].sort((a, b) => a[0] - b[0]);
    return {
      proxy,
      host: clip(host),
      t: rows.map(([t]) => t),
      slotsBusy: rows.map(([, r]) => r[0]),
      inflight: rows.map(([, r]) => r[0]),
      queued: rows.map(([, r]) => r[1]),
      requestRate: rows.map(() => null),
      errors: {},
      tokenRate: rows.map(([, r]) => r[2]),
      // Only where the host exposed it: nothing is drawn for a server without a KV-cache gauge.
      ...(rows.some(([, r]) => r[3] !== null) ? { kvCache: rows.map(([, r]) => r[3]) } : {}),
    };
  });
  return { series, warnings };
}
